"""The dungeon's plan drawn on the board, in a real browser at a phone's size: each obstacle's mark
large enough to read, and both the mark and the square's outline standing out (WCAG's 3:1 for
graphics) against every colour a square can have: plain, each premium (the dark TW and TL too),
each tile set's body face up and face down; the mark's letter 4.5:1 on its badge."""

from __future__ import annotations

import re

from companion.table import games
from companion.web.app import create_app
from companion.web.auth import Auth
from companion.web.hub import Hub
from companion.web.server import ServerThread
from tests.web.conftest import PIN, shot
from tests.web.test_browser import page  # noqa: F401 - the fixture (a phone; no script error)

MARK_PX = 10  # the marks were 6 px high on a phone; now at least this (a letter's font size on screen)


def rgb(css: str) -> tuple[float, float, float]:
    """A computed colour (rgb(...) or #rrggbb) as three 0-255 numbers."""
    if css.startswith("#"):
        return tuple(int(css[i:i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]
    r, g, b = (float(x) for x in re.findall(r"[\d.]+", css)[:3])
    return r, g, b


def luminance(colour: tuple[float, float, float]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_the_plan_marks_are_large_and_stand_out_on_every_square(page):  # noqa: F811
    session = games.GAMES["dungeon"].start(None, 0, names=["Dora"], seed=11,
                                           lexicon_for=lambda t: frozenset())
    hub = Hub(session).start()
    server = ServerThread(create_app(hub, auth=Auth(PIN)), hub).start()
    try:
        page.goto(server.url + "/")
        page.wait_for_selector("#live.ok")
        marks = page.locator("#board text.plan-mark")
        squares = sum(len(o["squares"]) for o in hub.document_json()["dungeon"]["plan"]["objects"])
        assert marks.count() == squares > 0
        drawn = page.evaluate("""() => {
            const scale = document.getElementById('board').getScreenCTM().a;  // board units to screen pixels
            const fill = (e) => getComputedStyle(e).fill, stroke = (e) => getComputedStyle(e).stroke;
            const under = {};
            for (const r of document.querySelectorAll('#board rect.sq')) {
                under[`${r.getAttribute('x')},${r.getAttribute('y')}`] = fill(r);
            }
            return [...document.querySelectorAll('#board g.plan')].map((g) => {
                const box = g.querySelector('.plan-box'), halo = g.querySelector('.plan-halo');
                const badge = g.querySelector('.plan-badge'), mark = g.querySelector('.plan-mark');
                const x = Number(box.getAttribute('x')) - 2, y = Number(box.getAttribute('y')) - 2;
                return {name: g.dataset.plan, px: parseFloat(getComputedStyle(mark).fontSize) * scale,
                        ink: fill(mark), badge: fill(badge), ring: stroke(badge),
                        box: stroke(box), halo: stroke(halo),
                        square: under[`${x},${y}`]};
            });
        }""")
        # Every colour a square can show: the premiums and the plain square as drawn, each tile
        # set's body, and a face-down tile's (the body at 70 % brightness).
        palette = page.evaluate("""() => [...new Set([...document.querySelectorAll('#board rect.sq')]
            .map((r) => getComputedStyle(r).fill))]""")
        assert len(palette) == 5, palette  # plain, DL, TL, DW, TW
        sets = page.evaluate("Object.values(SET_FILL)")
        colours = [rgb(c) for c in palette] + [rgb(c) for c in sets] + [
            tuple(0.7 * v for v in rgb(c)) for c in sets]
        for d in drawn:
            assert d["px"] >= MARK_PX, d
            assert contrast(rgb(d["ink"]), rgb(d["badge"])) >= 4.5, d
            badge, ring, box, halo = (rgb(d[k]) for k in ("badge", "ring", "box", "halo"))
            for colour in colours + [rgb(d["square"])]:
                assert max(contrast(badge, colour), contrast(ring, colour)) >= 3, (d, colour)
                assert max(contrast(box, colour), contrast(halo, colour)) >= 3, (d, colour)
        # The seed lays marks on the dark premiums as well (where the old ones vanished).
        dark = {p for p in palette if luminance(rgb(p)) < 0.2}
        assert any(d["square"] in dark for d in drawn), [d["square"] for d in drawn]
        shot(page, "dungeon-plan-marks")
    finally:
        server.stop()
