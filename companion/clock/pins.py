"""Which GPIO pin each button, LED and the buzzer is wired to: the pin map and its defaults.

Pins are BCM numbers (GPIO17, not header pin 11), as gpiozero and the Pi's documentation name
them. The defaults keep clear of I2C (2, 3), SPI (7 to 11), the UART (14, 15) and the HAT ID
EEPROM (0, 1), so a display or a HAT can be added later; ``hardware/README.md`` has the wiring
table, which a test checks against :data:`DEFAULT_PINS` and :data:`HEADER`.
"""

from __future__ import annotations

from dataclasses import dataclass

# BCM number -> physical pin on the 40-pin header (every Pi since the B+).
HEADER = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 5: 29, 6: 31, 13: 33,
    19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26, 12: 32,
    16: 36, 20: 38, 21: 40,
}
GROUND = (6, 9, 14, 20, 25, 30, 34, 39)  # physical pins
MAX_PLAYERS = 4


@dataclass(frozen=True)
class PinMap:
    player_buttons: tuple[int, ...]  # one clock button per player: press = my turn is over
    player_leds: tuple[int, ...]  # one LED per player: lit while it is that player's turn; () none
    pause_button: int | None
    roll_button: int | None  # the dungeon's dice
    buzzer: int | None  # an active buzzer: flag fall, invalid move
    bounce_ms: int = 10  # gpiozero's bounce_time on a Pi; the engine's lock-out is the guarantee

    def named(self) -> dict[str, int]:
        """Every wired pin by the name of what it drives (player1 ... pause, roll, buzzer)."""
        out = {f"player{i + 1}": p for i, p in enumerate(self.player_buttons)}
        out.update({f"led{i + 1}": p for i, p in enumerate(self.player_leds)})
        for name in ("pause_button", "roll_button", "buzzer"):
            if (pin := getattr(self, name)) is not None:
                out[name.removesuffix("_button")] = pin
        return out


DEFAULT_PINS = PinMap(
    player_buttons=(17, 27, 22, 23),
    player_leds=(5, 6, 13, 19),
    pause_button=24,
    roll_button=25,
    buzzer=12,
)
