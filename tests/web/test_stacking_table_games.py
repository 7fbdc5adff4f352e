"""The stacking game's must-show at the simulated table, three players, nothing but what a table
has: the tiles laid on the board (a stack shows only its top letter, a token on each rainbow
tile) photographed by the rendered mounted camera and read by the real board reader; the
players' clock buttons on gpiozero's mock pins; taps on the page in Chromium at a phone's size
(a player's own page buys and redraws, the organiser's names a wild). Every total is worked out
by hand below and read off the page.

- Game one: a stack of three (and then four), a purchase at each of the first four prices from
  Ann's own page, the fifth refused beyond her score, a wild laid on a tile, a rainbow tile
  doubling a word two turns after it was laid and stopping once covered, a redraw; it ends when
  every player has passed in a row.
- Game two: a pool of 30 tiles (the option that sets the pool) runs out on the second play.
- Game three: a play area of the centre 3x3 squares; the third play covers its last square.

The companion deals from its randomness; here the randomness is the test's (:class:`Dealt`):
the pool is shuffled with the tiles the test names on top, the opening rainbow tiles are the
ones it names, and no later tile turns rainbow unless it says so. Everything else (drawing,
the marketplace, the rules, the log, the page) is the companion's own."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import pytest

from companion.core.board import STANDARD, Board, Tile
from companion.core.gcg import parse_gcg
from companion.rules.stacking import RAINBOW_ODDS, GameLength, StackingOptions
from companion.rules.rescore import choose_tileset
from companion.rules.stacking_record import rescore_stacking
from companion.sim.stackingdemo import StackWorld
from companion.table.stacking import StackingSession
from tests.web.conftest import PIN, open_organiser
from tests.web.sim_table import SimTable
from tests.web.test_browser import shot

NAMES = ["Ann", "Bob", "Cy"]


@pytest.fixture(scope="module")
def english():
    from companion.lexicon import load_lexicon

    return load_lexicon("en")


class _Rigged(random.Random):
    """One random draw of the game (the rules' ``stream(n)``), the test's where it matters."""

    def __init__(self, deal: Dealt, n: int) -> None:
        super().__init__(f"dealt:{n}")
        self.deal = deal

    def shuffle(self, x: list[Any]) -> None:  # type: ignore[override]
        super().shuffle(x)
        for i, tile in enumerate(self.deal.top):  # the test's tiles on top, in its order
            x.insert(i, x.pop(x.index(tile, i)))
        self.deal.top = ""

    def choice(self, seq: Any) -> Any:  # an opening rack's rainbow tile
        letter = self.deal.opening.pop(0)
        assert letter in seq, (letter, seq)
        return letter

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:  # type: ignore[override]
        if stop is None and start == RAINBOW_ODDS:  # a later tile drawn into a rack: rainbow?
            self.deal.drawn += 1
            return 0 if self.deal.drawn in self.deal.later else 1
        return super().randrange(start, stop, step)


class Dealt:
    """The test's deal. ``top``: the pool's first tiles after the first shuffle, in order (the
    racks in seat order, the marketplace, then every later draw); ``opening``: each opening
    rack's rainbow tile; ``later``: which later tiles drawn into a rack (1 the first) are rainbow."""

    def __init__(self, top: str, opening: str, later: Iterable[int] = ()) -> None:
        self.top, self.opening, self.later, self.drawn = top, list(opening), set(later), 0

    def stream(self, n: int) -> random.Random:
        return _Rigged(self, n)


def sq(name: str) -> tuple[int, int]:
    return (int(name[1:]) - 1, ord(name[0]) - ord("A"))


class StackTable(SimTable):
    """The simulated table with the rendered camera over the board's top tiles and tokens."""

    def __init__(self, tmp, english, deal: Dealt, **options: Any) -> None:  # type: ignore[no-untyped-def]
        world = StackWorld("en", truth=False)
        options.setdefault("same_letter", False)  # as at every table: the camera cannot see it

        def start(store: Any, now: int) -> StackingSession:
            return StackingSession(store, NAMES, options=StackingOptions(**options), seed=0, now_ms=now,
                                   lexicon_for=lambda _: english, randomness=deal)

        super().__init__(tmp, start, players=3, camera=world, analyser=world.analyser(),
                         table_clock=lambda: world.seconds)
        self.world = world
        self.top = Board(STANDARD)  # the board as the players leave it: each square's top tile
        self.tokens: set[tuple[int, int]] = set()

    def lay(self, tiles: dict[str, str], rainbow: Iterable[str] = ()) -> None:
        """The player to move lays ``tiles`` (lower case: a wild, a blank face up), puts a token
        on each ``rainbow`` one, takes the token off a rainbow tile covered, and presses."""
        placed = {sq(k): Tile(v.upper(), blank=v.islower()) for k, v in tiles.items()}
        self.top = self.top.with_tiles(placed.items())
        self.tokens = (self.tokens - set(placed)) | {sq(k) for k in rainbow}
        self.world.lay(self.top, frozenset(self.tokens))
        player = self.call(lambda s, now: s.state.to_move)
        self.press(player, think_ms=20_000)
        asked = self.call(lambda s, now: list(s.questions))
        assert not asked, asked  # the reader read the board right and the rules took the play


def organiser(phone, url: str):  # type: ignore[no-untyped-def]
    page = phone(url)
    open_organiser(page)
    page.fill("#pin", PIN)
    page.click("#login button")
    page.wait_for_selector("#admin", state="visible")
    return page


def scores(page: Any, expected: list[int]) -> None:
    """The players' cards show ``expected`` (waiting for the page to catch up)."""
    want = [str(n) for n in expected]
    try:
        page.wait_for_function(
            "(want) => want.every((s, i) => (document.getElementById(`score-${i}`) || {}).textContent === s)",
            arg=want, timeout=10_000,
        )
    except Exception:
        shown = [page.inner_text(f"#score-{i}") for i in range(len(want))]
        raise AssertionError(f"the page shows {shown}, not {want}: {page.inner_text('#status')}") from None


def tap_action(page: Any, name: str, tiles: str = "") -> None:
    page.fill("#action-tiles", tiles)
    page.click(f'#action-buttons [data-action="{name}"]')
    page.wait_for_function("() => !document.getElementById('admin-msg').textContent.endsWith('…')")
    assert "bad" not in (page.get_attribute("#admin-msg", "class") or ""), page.inner_text("#admin-msg")


def buy_on_own_page(page: Any, letter: str | None = None) -> str:
    """A tap on a marketplace tile on the player's own page; the line it answers."""
    page.evaluate("document.getElementById('my-msg').textContent = ''")
    tile = page.locator("#market button").first if letter is None else page.locator(
        f'#market button[data-letter="{letter}"]').first
    tile.click()
    page.wait_for_function("() => document.getElementById('my-msg').textContent !== ''")
    return page.inner_text("#my-msg")


def test_game_one_stacks_purchases_a_wild_rainbows_a_redraw_and_every_player_passing(tmp_path, english, phone):
    # Racks: Ann EMNRSTU (rainbow N), Bob AEIOPTT (rainbow P), Cy AABDEFX (rainbow F); the
    # marketplace D, G, L; then the draws: Ann E (rainbow: the first later draw) O I, Bob ? S,
    # Cy L R, the marketplace's C after Ann's first purchase, Bob U N.
    deal = Dealt("EMNRSTU" "AEIOPTT" "ABDEFAX" "DGL" "EOI" "?S" "LR" "C" "UN", opening="NPF", later=[1])
    t = StackTable(tmp_path, english, deal)
    try:
        org = organiser(phone, t.url)
        ann = phone(t.url + "?player=1")
        assert "Ann: 0 points · rack EMNRSTU (rainbow N) · your next tile costs 5" in ann.inner_text("#mine")
        # 1 Ann: MEN on row 8, the rainbow N on the star: (M3 + E1 + N1) x2 DW x2 rainbow = 20.
        t.lay({"F8": "M", "G8": "E", "H8": "N"}, rainbow=["H8"])
        scores(org, [20, 0, 0])
        # The referee tells Ann what to take and which tile to mark: her own page shows it too.
        assert "take E, I, O (mark the E with a token: rainbow)" in org.inner_text("#verdicts")
        ann.wait_for_function("() => document.getElementById('mine').textContent.includes('rack EIORSTU (rainbow E)')")
        # 2 Bob: A on the E of G8 (a stack of two), T on G9 (DL): AT = A1 x2 + T1 x2 DL = 4;
        #   MAN = (M3 + A1 x2 + N1) x2 for the rainbow N = 12. 16.
        t.lay({"G8": "A", "G9": "T"})
        scores(org, [20, 16, 0])
        # 3 Cy: A on H9, X on I9 (DL): TAX = 1 + 1 + X8 x2 = 18; NA = (1 + 1) x2: the rainbow
        #   N Ann laid two turns before doubles it. 22.
        t.lay({"H9": "A", "I9": "X"})
        scores(org, [20, 16, 22])
        assert "NA: N1 + A1 x2 rainbow = 4" in org.inner_text("#last-move")
        # Ann buys on her own page: her first price, 5 (20 -> 15). Bob's page buys on his turn only.
        bob = phone(t.url + "?player=2")
        assert buy_on_own_page(bob, "D") == "it is Ann's turn: buy before your own play"
        assert buy_on_own_page(ann, "D") == "Bought D for 5."
        scores(org, [15, 16, 22])
        assert org.inner_text("#price-0").split() == ["Ann", "1", "10"]
        # 4 Ann: her rainbow E (drawn after her first play) on I8: MANE = (3 + 1 x2 + 1 + 1) x2 x2
        #   for the rainbow N and E = 28; EX = (1 + 8) x2 = 18. 46: 15 -> 61.
        t.lay({"I8": "E"}, rainbow=["I8"])
        scores(org, [61, 16, 22])
        # 5 Bob: a wild (a blank face up), named I on the organiser's page, on the A of G8 (a
        #   stack of three), S on G10: ITS = 0 x3 + 1 + 1 = 2; MINE = (3 + 0 + 1 + 1) x4 = 20. 22.
        tap_action(org, "name", "G8 I")
        t.lay({"G8": "i", "G10": "S"})
        scores(org, [61, 38, 22])
        assert org.locator("g.piece.tile title", has_text="G8: blank as I, stack of 3").count() == 1
        # 6 Cy redraws on his own page (its button shows on his turn only): 22 - 5 = 17.
        cy = phone(t.url + "?player=3")
        assert ann.is_hidden("#my-redraw")
        cy.click("#my-redraw")
        cy.wait_for_function("() => document.getElementById('my-msg').textContent.startsWith('Redrawn')")
        scores(org, [61, 38, 17])
        assert "Cy redraws for 5 points: put ABDEFLR back" in org.inner_text("#verdicts")
        cy.wait_for_selector("#my-redraw", state="hidden")
        # Ann's own page: her next three prices, 10, 15 and 25 (61 -> 11); the fifth, 40, is
        # beyond her score: refused in one line, nothing spent.
        for price, left in ((10, 51), (15, 36), (25, 11)):
            assert f"your next tile costs {price}" in ann.inner_text("#mine")
            assert buy_on_own_page(ann).startswith("Bought ")
            scores(ann, [left, 38, 17])
        assert "your next tile costs 40 (more than your score)" in ann.inner_text("#mine")
        refused = buy_on_own_page(ann)
        assert refused.endswith("costs 40 points and Ann has 11: you cannot buy below zero"), refused
        assert "\n" not in refused and "bad" in (ann.get_attribute("#my-msg", "class") or "")
        assert org.inner_text("#price-0").split() == ["Ann", "4", "40"]
        shot(ann, "stacking-game1-own-page")
        # 7 Ann: T on the rainbow N of H8 (covered: it doubles no more; its token comes off),
        #   S on J8: MITES = (3 + 0 + 1 x2 + 1 + 1) x2 for the rainbow E alone = 14;
        #   TA = T1 x2 + A1 = 3. 17: 11 -> 28.
        t.lay({"H8": "T", "J8": "S"})
        scores(org, [28, 38, 17])
        assert t.call(lambda s, now: s.state.rainbow) == {sq("I8")}
        # 8 Bob: O on G7 (DL), U on the stack of three on G8 (now four): OUTS = O1 x2 + U1 x4 +
        #   1 + 1 = 8; MUTES = (3 + 4 + 1 x2 + 1 + 1) x2 for the rainbow E = 22. 30: 38 -> 68.
        t.lay({"G7": "O", "G8": "U"})
        scores(org, [28, 68, 17])
        assert org.locator("g.piece.tile title", has_text="G8: U, stack of 4").count() == 1
        assert "MUTES: M3 + U1 x4 + T1 x2 + E1 + S1 x2 rainbow = 22" in org.inner_text("#last-move")
        # 9-11: Cy, Ann and Bob press with nothing new on the board: passes; all three in a row
        #   end the game. Bob wins with 68.
        for _ in range(3):
            t.lay({})
        org.wait_for_function("() => document.getElementById('status').textContent.startsWith('Game over')")
        assert "over: every player passed in a row" in org.inner_text("#stacking-facts")
        scores(org, [28, 68, 17])
        # Every turn in the Moves table of the page that watched the game (not only after a reload).
        assert org.locator("#history tr").count() == 11
        shot(org, "stacking-game1-end")
        # The record the page offers rescores exactly.
        record = parse_gcg(t.call(lambda s, now: s.gcg()))
        rescored = rescore_stacking(record, choose_tileset(record, "en"), "game one")
        assert rescored.agrees, rescored.disagreements
        assert {r.seat: r.total for r in rescored.events} == {0: 28, 1: 68, 2: 17}
    finally:
        t.close()


def test_game_two_ends_when_the_pool_runs_out(tmp_path, english, phone):
    # A pool of 30 (the Short game's size set to 30): 21 in the racks, 3 in the marketplace,
    # 6 to draw. Ann DEMNOTU (rainbow O), Bob ABCGHIK (rainbow K), Cy FIJLPQR (rainbow J);
    # the marketplace S V W; then Ann draws A E X Y and Bob Z and the wild: the pool is empty.
    deal = Dealt("DEMNOTU" "ABCGHIK" "FIJLPQR" "SVW" "AEXY" "Z?", opening="OKJ")
    t = StackTable(tmp_path, english, deal, length=GameLength.SHORT, pool_sizes=(30, 100, 150))
    try:
        org = phone(t.url)
        assert "pool 6" in org.inner_text("#stacking-facts")
        # 1 Ann: MEND on row 8 through the star: (3 + 1 + 1 + 2) x2 = 14; she draws 4 of the 6.
        t.lay({"F8": "M", "G8": "E", "H8": "N", "I8": "D"})
        scores(org, [14, 0, 0])
        # 2 Bob: HAM down column F onto the M, H on F6 (TL): H4 x3 + A1 + M3 = 16; he draws the
        #   last two tiles: the pool is empty and the game is over. Bob wins.
        t.lay({"F6": "H", "F7": "A"})
        org.wait_for_function("() => document.getElementById('status').textContent.startsWith('Game over')")
        scores(org, [14, 16, 0])
        assert "pool 0" in org.inner_text("#stacking-facts")
        assert "over: the tile pool is empty" in org.inner_text("#stacking-facts")
        shot(org, "stacking-game2-pool-empty")
    finally:
        t.close()


def test_game_three_ends_when_every_square_of_the_play_area_is_covered(tmp_path, english, phone):
    # The centre 3x3 squares, G7 to I9. Ann ENTUVWY (rainbow V), Bob AEFGHKT (rainbow K),
    # Cy DENOPRS (rainbow P); the marketplace B C L.
    deal = Dealt("ENTUVWY" "AEFGHKT" "DENOPRS" "BCL", opening="VKP")
    t = StackTable(tmp_path, english, deal, area=3)
    try:
        org = organiser(phone, t.url)
        assert "play area the centre 3x3 squares, G7 to I9" in org.inner_text("#stacking-facts")
        assert org.locator("#board rect.play-area title").text_content() == (
            "The play area: the centre 3x3 squares, G7 to I9")
        # 1 Ann: TEN on row 8: (1 + 1 + 1) x2 for the star = 6.
        t.lay({"G8": "T", "H8": "E", "I8": "N"})
        scores(org, [6, 0, 0])
        # 2 Bob: ATE on row 7, A and E on DLs: ATE = 1 x2 + 1 + 1 x2 = 5; AT = 1 x2 + 1 = 3;
        #   TE = 1 + 1 = 2 (the star counts once); EN = 1 x2 + 1 = 3. 13.
        t.lay({"G7": "A", "H7": "T", "I7": "E"})
        scores(org, [6, 13, 0])
        # 3 Cy: END on row 9, E and D on DLs: END = 1 x2 + 1 + 2 x2 = 7; ATE = 1 + 1 + 1 x2 = 4;
        #   TEN = 3; END down = 1 + 1 + 2 x2 = 6. 20: every square of the area is covered.
        t.lay({"G9": "E", "H9": "N", "I9": "D"})
        org.wait_for_function("() => document.getElementById('status').textContent.startsWith('Game over')")
        scores(org, [6, 13, 20])
        assert "over: every square is covered" in org.inner_text("#stacking-facts")
        assert t.call(lambda s, now: s.state.end.value) == "board-full"
        shot(org, "stacking-game3-board-full")
        # The organiser's next game from the page's form: a short game on the centre 5x5 squares.
        org.select_option("#game", "stacking")
        org.fill("#names", "Ann\nBob\nCy")
        org.select_option("#length", "short")
        org.select_option("#area", "5")
        org.click("#new-game button[type=submit]")
        org.wait_for_function("() => document.getElementById('stacking-facts').textContent.includes('5x5')")
        assert org.inner_text("#stacking-facts") == (
            "pool 36 · short game · play area the centre 5x5 squares, F6 to J10")  # 60 - 3 x 7 - 3
    finally:
        t.close()
