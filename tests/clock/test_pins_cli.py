"""`companion pins test` on gpiozero's MockFactory: the real devices (pi.gpio.Panel), mock pins
that a thread presses as a person would, and the pins' recorded states for the LEDs and buzzer."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

from gpiozero.pins.mock import MockFactory

from companion.clock.pins import DEFAULT_PINS, PinMap
from companion.commands.pins import check_wiring


class Hands:
    """Presses buttons once the test has asked for them, as a person at the box would."""

    def __init__(self, factory: MockFactory, presses: list[int], bounce: bool = False) -> None:
        self.factory, self.presses, self.bounce = factory, presses, bounce
        self.asked = threading.Event()
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self.press, daemon=True)
        self.thread.start()

    def out(self, line: str) -> None:
        self.lines.append(line)
        if line.startswith("press each button"):
            self.asked.set()

    def press(self) -> None:
        self.asked.wait(30)
        for gpio in self.presses:
            pin = self.factory.pin(gpio)
            pin.drive_low()  # pressed: the pull-up's high pulled to ground
            if self.bounce:
                pin.drive_high()
                pin.drive_low()
            time.sleep(0.01)
            pin.drive_high()
            time.sleep(0.2)  # beyond the lock-out: the next press is a press


def test_every_led_lights_the_buzzer_sounds_and_each_button_is_named():
    factory = MockFactory()
    hands = Hands(factory, [17, 27, 22, 23, 24, 25], bounce=True)
    assert check_wiring(DEFAULT_PINS, factory, hands.out, seconds=20, led_s=0.01) == 0
    lines = hands.lines
    assert lines[:4] == [f"LED {i} (GPIO{p}, header pin {h}): on" for i, p, h in
                         ((1, 5, 29), (2, 6, 31), (3, 13, 33), (4, 19, 35))]
    assert lines[4] == "buzzer (GPIO12, header pin 32): beep"
    pressed = [line for line in lines if line.startswith("pressed: ")]
    # One line a press, bounces and all, each with its pin.
    assert pressed == [
        "pressed: player 1 button (GPIO17, header pin 11)", "pressed: player 2 button (GPIO27, header pin 13)",
        "pressed: player 3 button (GPIO22, header pin 15)", "pressed: player 4 button (GPIO23, header pin 16)",
        "pressed: pause button (GPIO24, header pin 18)", "pressed: roll button (GPIO25, header pin 22)",
    ]
    assert lines[-1] == "every button works (6)"
    # What the pins really did: each LED on then off, the buzzer on then off.
    for gpio in (5, 6, 13, 19, 12):
        states = [s.state for s in factory.pin(gpio).states]
        assert True in states and states[-1] is False, (gpio, states)


def test_a_button_never_pressed_is_named_and_the_exit_is_1():
    factory = MockFactory()
    pins = PinMap((17, 27), (5, 6), 24, None, None)
    hands = Hands(factory, [27, 17])
    assert check_wiring(pins, factory, hands.out, seconds=1.5, led_s=0.01) == 1
    assert hands.lines[-1].startswith("not pressed: pause button (GPIO24, header pin 18)")
    assert not any("buzzer" in line for line in hands.lines)  # none wired: none sounded


def test_pins_list_and_a_bad_duration_from_the_command_line(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[game]\nplayers = 3\n[pins]\nroll_button = false\n")
    proc = subprocess.run([sys.executable, "-m", "companion", "pins", "list", "--config", str(config)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    names = [line.split("  ")[0] for line in proc.stdout.splitlines()]
    assert names == ["player 1 button", "player 2 button", "player 3 button", "player 1 LED", "player 2 LED",
                     "player 3 LED", "pause button", "buzzer"]
    proc = subprocess.run([sys.executable, "-m", "companion", "pins", "test", "--mock", "--seconds", "0",
                           "--config", str(config)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.strip() == "companion: --seconds: more than 0, at most 3600"
