"""`companion run --mock --keys --step`'s pieces: keys typed drive gpiozero's mock pins through
the real panel, and a folder camera shows one photo per player press."""

from __future__ import annotations

import io
import threading

import cv2
import numpy as np
from gpiozero.pins.mock import MockFactory

from companion.pi.gpio import Panel
from companion.clock.pins import DEFAULT_PINS, PinMap
from companion.sim.presses import MockPresses, StepFolder, keyboard


def test_keys_press_the_mock_pins_and_the_folder_steps_one_photo_a_press(tmp_path):
    for i, shade in enumerate((10, 120, 240)):
        cv2.imwrite(str(tmp_path / f"move{i + 1}.png"), np.full((8, 8, 3), shade, np.uint8))
    camera = StepFolder(tmp_path)
    assert camera.read() is None  # before the first press the camera sees nothing
    factory = MockFactory()
    pins = PinMap(DEFAULT_PINS.player_buttons[:2], (), DEFAULT_PINS.pause_button, DEFAULT_PINS.roll_button, None, 0)
    panel = Panel(pins, pin_factory=factory, now_ms=lambda: 0)
    said: list[str] = []
    stop = threading.Event()
    try:
        presses = MockPresses(factory, pins.named(), 2, lambda name: camera.advance(), said.append)
        assert presses.buttons == ["player1", "player2", "pause", "roll"]
        keyboard(io.StringIO("1\n2\nx\n9\np\n2\n2\nq\n1\n"), presses, stop, said.append)
        pressed = []
        while not panel.presses.empty():
            pressed.append(panel.presses.get()[0])
    finally:
        panel.close()
    assert pressed == ["player1", "player2", "pause", "player2", "player2"]  # nothing after q
    assert stop.is_set()
    assert [line for line in said if line.startswith("camera:")] == [
        "camera: move1.png", "camera: move2.png", "camera: move3.png", "camera: move3.png"]
    assert "companion: 'x' is no key here (1-2, p, r, q)" in said and "companion: '9' is no key here (1-2, p, r, q)" in said
    assert int(camera.read().image[0, 0, 0]) == 240 and int(camera.read().image[0, 0, 0]) == 240
