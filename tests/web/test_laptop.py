"""The page on a laptop's screen, in a real browser: the whole board (every row) and the last move
in view without scrolling, at the two commonest laptop sizes."""

from __future__ import annotations

import pytest

from tests.web.conftest import shot
from tests.web.test_browser import live, open_live  # noqa: F401 - the fixture: a game with two plays

# The two commonest laptop screens, and a tablet held sideways.
LAPTOPS = [{"width": 1366, "height": 768}, {"width": 1280, "height": 800}, {"width": 1024, "height": 768}]


def rows_in_view(page) -> list[dict]:  # type: ignore[no-untyped-def]
    """Each row of the board's squares: its top and bottom on the screen, and whether all of it
    (and each of its squares' left and right) lies inside the viewport."""
    return page.evaluate("""() => {
        const vw = window.innerWidth, vh = window.innerHeight;
        const rows = {};
        for (const r of document.querySelectorAll('#board rect.sq')) {
            const b = r.getBoundingClientRect();
            const y = Math.round(Number(r.getAttribute('y')));
            const row = rows[y] || (rows[y] = {top: b.top, bottom: b.bottom, inside: true});
            row.inside = row.inside && b.top >= 0 && b.left >= 0 && b.bottom <= vh && b.right <= vw;
        }
        return Object.keys(rows).map(Number).sort((a, b) => a - b).map((y) => rows[y]);
    }""")


@pytest.mark.parametrize("viewport", LAPTOPS, ids=lambda v: f"{v['width']}x{v['height']}")
def test_a_laptop_sees_every_row_of_the_board_and_the_last_move(browser, live, viewport):  # noqa: F811
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        open_live(page, live)
        assert page.evaluate("window.scrollY") == 0
        rows = rows_in_view(page)
        assert len(rows) == 15
        assert all(r["inside"] for r in rows), [(i + 1, r) for i, r in enumerate(rows) if not r["inside"]]
        # Not fitted by shrinking to nothing: the board takes most of the screen's height (or,
        # on a narrower screen, of its width), drawn in its own shape (no band above or beside).
        side = rows[-1]["bottom"] - rows[0]["top"]
        assert side >= 0.75 * viewport["height"] or side >= 0.5 * viewport["width"], side
        board = page.locator("#board").bounding_box()
        view = [float(v) for v in page.get_attribute("#board", "viewBox").split()]
        assert abs(board["width"] / board["height"] - view[2] / view[3]) < 0.01, (board, view)
        # The last move: outlined on the board, and its card with the score, both in view.
        for box in page.locator("#board rect.last").all():
            b = box.bounding_box()
            assert b is not None and b["y"] + b["height"] <= viewport["height"]
        card = page.locator("#last-move").bounding_box()
        if viewport["width"] >= 1280:  # a tablet's narrower column holds the cards above it (the turn's)
            assert card is not None and card["y"] + card["height"] <= viewport["height"], card
        assert "E7 B(O)AT" in page.inner_text("#last-move")
        # No sideways scroll.
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        shot(page, f"laptop-{viewport['width']}x{viewport['height']}")
        # A move tapped in the list (scrolled to: the board stays beside it): the board then,
        # under its caption, still whole on the screen.
        page.locator("#history tr.pickable").first.click()
        page.wait_for_selector("#board-caption:not([hidden])")
        assert all(r["inside"] for r in rows_in_view(page)), rows_in_view(page)
        assert page.locator("#board-caption").bounding_box()["y"] >= 0
    finally:
        context.close()
