"""Moves as players read them, in a real browser: words with the letters played through in
brackets (as Woogles shows them), a withdrawn phony shown on the board and said in words, the
referee's list in the order things happened with whole numbers."""

from __future__ import annotations

from companion.core.board import STANDARD, Board, Tile
from companion.core.move import readable_word
from tests.web.conftest import shot
from tests.web.test_browser import live, open_live, page  # noqa: F401 - fixtures


def test_readable_word_brackets_the_letters_played_through():
    board = Board(STANDARD).with_tiles([((7, 4), Tile("L")), ((6, 3), Tile("A")), ((8, 3), Tile("X", blank=True))])
    assert readable_word(board, "8C", "RE.IgION") == "RE(L)IgION"
    assert readable_word(board, "D6", "Z.A.") == "Z(A)A(x)"
    assert readable_word(board, "D9", ".T") == "(x)T"


def test_a_withdrawn_phony_and_bracketed_words_on_the_page(page, live):  # noqa: F811
    live.call(lambda s, now: s.play(now, "10C", "AN."))  # through BOAT's T: AN(T)
    open_live(page, live)
    assert "10C AN(T)" in page.inner_text("#last-move")
    assert "E7 B(O)AT" in page.inner_text("#history")
    live.call(lambda s, now: s.play(now, "8D", ".....Z"))  # Bob's phony HOUSEZ
    live.call(lambda s, now: s.rule_challenge(now, "dictionary", 0))
    page.wait_for_function("() => document.getElementById('last-move').textContent.includes('came off')")
    text = page.inner_text("#last-move")
    assert "8D (HOUSE)Z came off" in text and "squares I8" in text, text
    # Its square outlined (empty now) on the board.
    assert page.locator("#board rect.last.withdrawn").count() == 1
    assert page.locator("#board rect.last.withdrawn[data-square='I8']").count() == 1
    assert page.locator('g.piece[data-square="I8"]').count() == 0
    assert "8D (HOUSE)Z withdrawn" in page.inner_text("#history")
    # The referee's list: oldest first, numbered in order, the numbers whole (not cut off).
    items = page.locator("#verdicts li")
    values = [int(items.nth(i).get_attribute("value")) for i in range(items.count())]
    assert values == sorted(values) and len(values) >= 3
    for _ in range(12):
        live.call(lambda s, now: s.pause(now))
        live.call(lambda s, now: s.resume(now))
    page.wait_for_function("() => document.querySelectorAll('#verdicts li').length >= 20")
    box = page.locator("#verdicts").bounding_box()
    card = page.locator("#verdicts").locator("xpath=..").bounding_box()
    # The marker of a two-digit item lies inside the card (the list's padding holds it).
    assert box["x"] - card["x"] >= 0
    padding = float(page.evaluate("parseFloat(getComputedStyle(document.getElementById('verdicts')).paddingLeft)"))
    assert padding >= 2.5 * 14  # room for "100." at the list's font size
    shot(page, "phone-withdrawn")


def test_a_move_tapped_shows_the_board_then_and_the_pool_and_spread_are_shown(page, live):  # noqa: F811
    live.call(lambda s, now: s.play(now, "10C", "AN."))
    open_live(page, live)
    assert page.locator("g.piece.tile").count() == 10
    page.click("#history tr:nth-child(1)")
    page.wait_for_function("() => document.body.classList.contains('viewing-past')")
    assert page.locator("g.piece.tile").count() == 5  # HOUSE alone
    assert page.locator("rect.last").count() == 5
    assert "After move 1: Ann 8D HOUSE" in page.inner_text("#board-caption")
    shot(page, "phone-history-move-1")
    page.keyboard.press("Tab")  # the rows are reachable by keyboard too
    page.focus("#history tr:nth-child(2)")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelectorAll('g.piece.tile').length === 8")
    page.click("#history tr:nth-child(2)")  # again: back to now
    page.wait_for_function("() => !document.body.classList.contains('viewing-past')")
    assert page.locator("g.piece.tile").count() == 10
    # Time per move (the test's moves come a moment apart), the unseen tiles, the spread.
    assert page.locator("#history tr:nth-child(2) td.time").inner_text().startswith("0:0")
    pool = page.inner_text("#pool")
    assert "Unseen (90)" in pool and "Spread: Ann +21" in pool
    assert "H" in pool.split(":", 1)[1]
