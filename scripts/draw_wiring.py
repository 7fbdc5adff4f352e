"""Draw hardware/wiring.svg: the clock box's wiring to the Pi's 40-pin header, from the default pin
map (companion/clock/pins.py) and the ground pin each circuit returns to (:data:`GROUND_OF`, the
"ground pin used" column of hardware/README.md's table; tests/pi/test_hardware.py checks that the
drawing, the table and the pin map agree, and that this script's output is the file).

    .venv/bin/python scripts/draw_wiring.py            # rewrites hardware/wiring.svg

The header is drawn as it lies with the Pi seen from above, turned so that its USB ports face
down: the header runs down the right-hand edge, pin 1 (3V3) top left, odd pins in the left
column, even pins in the right. Each circuit leaves its GPIO pin on the side of its column and
returns to its ground pin along a bus of its own; the buzzer's transistor variant is drawn below.
"""

from __future__ import annotations

import sys
from pathlib import Path
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.clock.pins import DEFAULT_PINS, GROUND, HEADER  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "hardware" / "wiring.svg"

# Each circuit's ground pin: the nearest ground in the column of its GPIO pin, so that no wire
# crosses the header. Several circuits may share one (a ground is a ground).
GROUND_OF = {
    "player 1 clock button": 9, "player 2 clock button": 9, "player 3 clock button": 9,
    "player 4 clock button": 14, "pause button": 20, "roll button (dungeon dice)": 20,
    "player 1 LED (330 Ω)": 25, "player 2 LED (330 Ω)": 25, "player 3 LED (330 Ω)": 39, "player 4 LED (330 Ω)": 39,
    "buzzer (active, +)": 34,
}
POWER = {1: "3V3", 17: "3V3", 2: "5V", 4: "5V"}

ROW_H, TOP = 44, 110
X_ODD, X_EVEN = 420, 460  # the two columns of pins
LANES = {9: 110, 25: 85, 39: 60, 14: 770, 20: 795, 34: 820}  # each ground's bus
COLOURS = {"button": "#1f5fbf", "led": "#d9731a", "buzzer": "#7b3fb0", "ground": "#000000", "power": "#c0392b"}
WIDTH, HEIGHT = 880, 1250


def circuits() -> list[tuple[str, str, int]]:
    """(what, kind, BCM) in the README table's order."""
    p = DEFAULT_PINS
    out = [(f"player {i + 1} clock button", "button", b) for i, b in enumerate(p.player_buttons)]
    out += [(f"player {i + 1} LED (330 Ω)", "led", b) for i, b in enumerate(p.player_leds)]
    out += [("pause button", "button", p.pause_button), ("roll button (dungeon dice)", "button", p.roll_button),
            ("buzzer (active, +)", "buzzer", p.buzzer)]
    return [(what, kind, pin) for what, kind, pin in out if pin is not None]


def pin_xy(n: int) -> tuple[int, int]:
    return (X_ODD if n % 2 else X_EVEN), TOP + (n - 1) // 2 * ROW_H


def line(x1: float, y1: float, x2: float, y2: float, colour: str, width: float = 2) -> str:
    return f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}" stroke-width="{width}"/>'


def text(x: float, y: float, s: str, size: int = 12, anchor: str = "middle", weight: str = "normal") -> str:
    return (f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}">'
            f"{escape(s)}</text>")


def dot(x: float, y: float) -> str:
    return f'<circle cx="{x}" cy="{y}" r="3.5" fill="#000"/>'


def button(cx: float, y: float, d: int, colour: str) -> tuple[list[str], float, float]:
    """A push button (normally open) centred at cx; its two terminals' x."""
    a, b = cx - 18 * d, cx + 18 * d
    parts = [f'<circle cx="{a}" cy="{y}" r="3" fill="#fff" stroke="{colour}" stroke-width="2"/>',
             f'<circle cx="{b}" cy="{y}" r="3" fill="#fff" stroke="{colour}" stroke-width="2"/>',
             line(a - 2 * d, y - 9, b + 2 * d, y - 9, colour), line(cx, y - 9, cx, y - 16, colour),
             line(cx - 6, y - 16, cx + 6, y - 16, colour)]
    return parts, a - 3 * d, b + 3 * d


def resistor(cx: float, y: float, d: int, colour: str, label: str) -> tuple[list[str], float, float]:
    parts = [f'<rect x="{cx - 16}" y="{y - 6}" width="32" height="12" fill="#fff" stroke="{colour}" stroke-width="2"/>',
             text(cx, y - 10, label, 10)]
    return parts, cx - 16 * d, cx + 16 * d


def led(cx: float, y: float, d: int, colour: str) -> tuple[list[str], float, float]:
    """An LED with its anode toward -d (the resistor) and its cathode toward +d (the ground)."""
    a, k = cx - 9 * d, cx + 9 * d
    tri = f"{a},{y - 9} {a},{y + 9} {k},{y}"
    parts = [f'<polygon points="{tri}" fill="#fff" stroke="{colour}" stroke-width="2"/>', line(k, y - 9, k, y + 9, colour),
             text(a, y - 12, "+", 10), text(k, y - 12, "−", 10)]
    return parts, a, k


def buzzer(cx: float, y: float, d: int, colour: str) -> tuple[list[str], float, float]:
    parts = [f'<circle cx="{cx}" cy="{y}" r="13" fill="#fff" stroke="{colour}" stroke-width="2"/>',
             text(cx, y + 4, "BZ", 10, weight="bold"), text(cx - 18 * d, y - 8, "+", 11), text(cx + 18 * d, y - 8, "−", 11)]
    return parts, cx - 13 * d, cx + 13 * d


def header() -> list[str]:
    parts = [f'<rect x="{X_ODD - 20}" y="{TOP - 20}" width="{X_EVEN - X_ODD + 40}" height="{20 * ROW_H + 10}" rx="6" '
             'fill="#2d2d2d"/>', text((X_ODD + X_EVEN) / 2, TOP - 28, "Pi header", 12, weight="bold")]
    used = {HEADER[p] for _, _, p in circuits()} | set(GROUND_OF.values())
    for n in range(1, 41):
        x, y = pin_xy(n)
        fill = "#000" if n in GROUND else COLOURS["power"] if n in POWER else "#f0c419" if n in used else "#9a9a9a"
        shape = (f'<rect x="{x - 8}" y="{y - 8}" width="16" height="16" fill="{fill}" stroke="#fff"/>' if n == 1 else
                 f'<circle cx="{x}" cy="{y}" r="8" fill="{fill}" stroke="#fff"/>')
        colour = "#fff" if n in GROUND or n in POWER else "#000"
        parts += [shape, f'<text x="{x}" y="{y + 3.5}" font-size="9" text-anchor="middle" fill="{colour}">{n}</text>']
        if n in POWER:
            parts.append(text(x + (-24 if n % 2 else 24), y + 4, POWER[n], 10, "end" if n % 2 else "start"))
    return parts


def circuit(what: str, kind: str, bcm: int) -> list[str]:
    n, g = HEADER[bcm], GROUND_OF[what]
    px, y = pin_xy(n)
    gx, gy = pin_xy(g)
    d = -1 if n % 2 else 1  # outward: left for the odd column, right for the even
    lane = LANES[g]
    colour = COLOURS[kind]
    parts = [f'<g class="circuit" data-what="{escape(what)}" data-gpio="{bcm}" data-header="{n}" data-ground="{g}">']
    start = px + 10 * d
    label_x = start + 16 * d
    parts.append(text(label_x, y - 5, f"GPIO{bcm}", 10, "end" if d < 0 else "start"))
    if kind == "led":
        r_parts, r_in, r_out = resistor(px + 150 * d, y, d, colour, "330 Ω")
        l_parts, l_in, l_out = led(px + 215 * d, y, d, colour)
        parts += [line(start, y, r_in, y, colour), *r_parts, line(r_out, y, l_in, y, colour), *l_parts]
        end = l_out
    else:
        draw = button if kind == "button" else buzzer
        c_parts, c_in, end = draw(px + 190 * d, y, d, colour)
        parts += [line(start, y, c_in, y, colour), *c_parts]
    name = what.replace(" (330 Ω)", "").replace(" (active, +)", "").replace(" (dungeon dice)", "")
    parts.append(text(px + (190 if kind != "led" else 185) * d, y + 22, name, 10))
    # Back to ground: out to the ground's bus, along it, into the ground pin.
    parts += [line(end, y, lane, y, COLOURS["ground"]), line(lane, y, lane, gy, COLOURS["ground"]), dot(lane, y)]
    parts += [line(lane, gy, gx + 10 * d, gy, COLOURS["ground"]), dot(lane, gy)]
    parts.append("</g>")
    return parts


def transistor_inset(y0: float) -> list[str]:
    """A buzzer that draws more than a GPIO pin gives (about 15 mA): switched by an NPN transistor."""
    c = COLOURS["buzzer"]
    parts = [f'<rect x="20" y="{y0}" width="{WIDTH - 40}" height="170" rx="6" fill="none" stroke="#999" '
             'stroke-dasharray="5,4"/>',
             text(40, y0 + 22, "Instead, for a buzzer that draws more than about 15 mA: an NPN transistor switches it",
                  12, "start", "bold")]
    by = y0 + 105
    parts += [text(70, by + 4, "GPIO12 (pin 32)", 11, "start"), line(170, by, 230, by, c)]
    r_parts, _, _ = resistor(246, by, 1, c, "1 kΩ")
    parts += r_parts + [line(262, by, 330, by, c)]
    # The transistor: base bar, collector up, emitter down with its arrow.
    tx = 360
    parts += [f'<circle cx="{tx}" cy="{by}" r="24" fill="#fff" stroke="{c}" stroke-width="2"/>',
              line(330, by, 348, by, c), line(348, by - 14, 348, by + 14, c, 3),
              line(348, by - 6, tx + 12, by - 20, c), line(348, by + 6, tx + 12, by + 20, c),
              f'<polygon points="{tx + 12},{by + 20} {tx + 1},{by + 18} {tx + 7},{by + 10}" fill="{c}"/>',
              text(tx + 34, by + 4, "2N2222: which leg is E, B, C is on its datasheet", 10, "start"),
              line(tx + 12, by - 20, tx + 12, y0 + 50, c), line(tx + 12, by + 20, tx + 12, y0 + 150, COLOURS["ground"]),
              text(tx + 20, y0 + 158, "emitter to GND (pin 34)", 11, "start")]
    b_parts, b_in, b_out = buzzer(tx + 110, y0 + 50, -1, c)
    parts += [line(tx + 12, y0 + 50, b_out, y0 + 50, c), *b_parts,
              text(tx + 12 - 4, y0 + 66, "collector", 10, "end"),
              line(b_in, y0 + 50, tx + 240, y0 + 50, COLOURS["power"]),
              text(tx + 248, y0 + 54, "5V (pin 2): the buzzer's +", 11, "start")]
    return parts


def draw() -> str:
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Arial, sans-serif">',
             f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>',
             text(WIDTH / 2, 28, "The clock box on the Pi's 40-pin header (the default [pins])", 16, weight="bold"),
             text(WIDTH / 2, 50, "The Pi seen from above, USB ports at the bottom: the header runs down its right-hand "
                  "edge, pin 1 (square) top left.", 11),
             text(WIDTH / 2, 66, "Buttons: GPIO to ground, the Pi's pull-up inside (no resistor). LEDs: the long leg (+) "
                  "toward the resistor. Ground pins black.", 11)]
    parts += header()
    for what, kind, bcm in circuits():
        parts += circuit(what, kind, bcm)
    parts += transistor_inset(TOP + 20 * ROW_H + 30)
    legend_y = HEIGHT - 20
    x = 40
    for name, kind in (("buttons", "button"), ("LEDs", "led"), ("buzzer", "buzzer"), ("ground", "ground")):
        parts += [line(x, legend_y - 4, x + 24, legend_y - 4, COLOURS[kind], 3), text(x + 30, legend_y, name, 11, "start")]
        x += 120
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    OUT.write_text(draw(), encoding="utf-8")
    print(f"wrote {OUT}")
