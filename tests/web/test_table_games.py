"""Whole games at the simulated table, from the first press to the final score, with nothing but
buttons (gpiozero's mock pins, through the panel and the table's own thread) and taps on the
page (Playwright's Chromium at a phone's viewport). The camera gives the board as the players
leave it; time is simulated. Each game's final GCG is compared with one computed by hand."""

from __future__ import annotations

import pytest

from companion.core.move import format_square
from companion.table.classic import TableSession
from tests.web.conftest import PIN, open_organiser
from tests.web.sim_table import SimTable
from tests.web.test_browser import shot


DE_WORDS = frozenset({"DÜS", "DÜSE", "SEE", "DÜSEN"})


def _classic(tmp_path, names, tileset, words, *, seed, challenge="single") -> SimTable:  # type: ignore[no-untyped-def]
    """A classic game at the simulated table, on a small word list."""
    return SimTable(tmp_path, lambda store, now: TableSession(
        store, names, control="tournament", challenge=challenge, tileset=tileset, seed=seed, now_ms=now,
        lexicon_for=lambda ts: words))


@pytest.fixture
def classic_de(tmp_path):
    table = _classic(tmp_path, ["Anna", "Ben"], "de", DE_WORDS, seed=3)
    yield table
    table.close()


def test_classic_with_a_camera_question_answered_on_the_page(phone, classic_de):
    t = classic_de
    page = phone(t.url)
    first = t.call(lambda s, now: s.state.to_move)
    t.press(1 - first)  # the clock starts: the first player's runs
    # DÜS through the centre; the camera is not sure of the Ü on H8.
    t.camera.lay({(7, 6): "D", (7, 7): "Ü", (7, 8): "S"})
    t.camera.unsure = {(7, 7)}
    t.press(first, think_ms=40_000)
    page.wait_for_selector("#question:not([hidden])")
    assert "is there a tile on H8?" in page.inner_text("#question")
    assert page.locator('#board rect.asked[data-square="H8"]').count() == 1
    shot(page, "table-question")
    ask = page.locator('[data-ask="H8"]')
    ask.locator(".answer-letter").fill("ü")
    ask.locator('[data-answer="letter"]').click()
    page.wait_for_selector("#question", state="hidden")
    page.wait_for_function("() => document.querySelectorAll('#history tr').length === 1")
    assert "8G DÜS" in page.inner_text("#history") and "+16" in page.inner_text("#history")
    assert page.locator('#board rect.asked').count() == 0
    assert t.call(lambda s, now: s.history()[-1]["points"]) == 16


EN_WORDS = frozenset({"HOUSE", "HOUSES", "BOAT", "AN", "ANT", "QI"})
HOUSE = {(7, 3): "H", (7, 4): "O", (7, 5): "U", (7, 6): "S", (7, 7): "E"}  # 8D HOUSE, 24
HOUSS = {**HOUSE, (7, 7): "S"}


@pytest.fixture
def classic_en(tmp_path):
    table = _classic(tmp_path, ["Ann", "Bob"], "en", EN_WORDS, seed=11)
    yield table
    table.close()


def _started(t: SimTable) -> tuple[int, int]:
    """The clock started by the button of the player not on move: (the player on move, the other)."""
    a = t.call(lambda s, now: s.state.to_move)
    t.press(1 - a)
    return a, 1 - a


def _login(page) -> None:  # type: ignore[no-untyped-def]
    open_organiser(page)
    page.fill("#pin", PIN)
    page.click("#login button")
    page.wait_for_selector("#admin:not([hidden])")


def _version(page) -> int:  # type: ignore[no-untyped-def]
    return int(page.evaluate("document.body.dataset.version"))


def _rows(page, n: int) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(f"() => document.querySelectorAll('#history tr').length === {n}")


def test_classic_question_exchange_pass_six_scoreless_turns_and_racks_entered(phone, classic_en):
    t = classic_en
    page = phone(t.url)
    a, b = _started(t)
    names = ["Ann", "Bob"]
    # a: HOUSE on 8D; the camera cannot make out the E on H8: asked, answered on the page.
    t.camera.lay(HOUSE)
    t.camera.unsure = {(7, 7)}
    t.press(a, think_ms=30_000)
    page.wait_for_selector('[data-ask="H8"]')
    page.fill('[data-ask="H8"] .answer-letter', "E")
    page.click('[data-ask="H8"] [data-answer="letter"]')
    _rows(page, 1)
    t.camera.unsure = set()
    # b: an exchange of 3, told on the page before the press (the board shows no new tile).
    page.wait_for_selector("#turn:not([hidden])")
    page.fill("#exchange-count", "3")
    page.click("#declare-exchange")
    page.wait_for_function("() => document.getElementById('declared').textContent.includes('exchange of 3')")
    t.press(b, think_ms=20_000)
    _rows(page, 2)
    # Then passes: a, b, a, b, a: with the exchange, six scoreless turns end the game.
    for i in range(5):
        t.press(a if i % 2 == 0 else b, think_ms=5_000)
        _rows(page, 3 + i)
    page.wait_for_selector("#racks:not([hidden])")
    assert "tell the companion the racks left" in page.inner_text("#status")
    racks = {a: "QZXJKAA", b: "EEEEEEE"}
    for i in (0, 1):
        page.fill(f"#rack-{i}", racks[i])
    page.click("#racks-form button")
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Game over')")
    status = page.inner_text("#status")
    # a: 24 - 43 (Q10 Z10 X8 J8 K5 A1 A1) = -19; b: 0 - 7 (seven E) = -7: b wins.
    assert f"{names[b]} wins" in status, status
    assert page.inner_text(f"#score-{a}") == "-19" and page.inner_text(f"#score-{b}") == "-7"
    shot(page, "table-classic-end")
    gcg = t.call(lambda s, now: s.gcg())
    na, nb = names[a], names[b]
    expected = "\n".join([
        "#character-encoding UTF-8",
        f"#player1 {names[0]} {names[0]}",
        f"#player2 {names[1]} {names[1]}",
        "#title Classic Scrabble at the companion's table",
        "#lexicon en",
        "#tile-set en",
        # The rack field (docs/web.md, "The GCG the companion writes"): a play's tiles where the
        # rack before it is private, a ? for each tile not seen.
        f">{na}: HOUSE 8D HOUSE +24 24",
        f">{nb}: ??? -3 +0 0",
        f">{na}: ? - +0 24",
        f">{nb}: ? - +0 0",
        f">{na}: ? - +0 24",
        f">{nb}: ? - +0 0",
        f">{na}: ? - +0 24",
        f">{na}: AAJKQXZ (AAJKQXZ) -43 -19",
        f">{nb}: EEEEEEE (EEEEEEE) -7 -7",
        f"#note Result: {nb} wins ({names[0]} {[-19, -7][a != 0]}, {names[1]} {[-19, -7][a != 1]})",
    ])
    assert gcg.strip() == expected, gcg


def test_classic_adjourned_resumed_and_ended_by_resignation(phone, classic_en):
    t = classic_en
    page = phone(t.url)
    a, b = _started(t)
    names = ["Ann", "Bob"]
    t.camera.lay(HOUSE)
    t.press(a, think_ms=30_000)
    _rows(page, 1)
    _login(page)
    page.click("#adjourn")
    page.wait_for_function("() => document.getElementById('status').textContent.includes('adjourned')")
    # Adjourned: the clock stands, and a companion started again finds the game as it was left.
    assert t.call(lambda s, now: s.clocks.paused)
    again = TableSession.restore(t.store, lexicon_for=lambda tileset: EN_WORDS)
    assert again.adjourned and again.clocks.paused and again.history() == t.call(lambda s, now: s.history())
    t.clock.set(t.clock() + 3_600_000)  # an hour later
    page.click("#resume")
    page.wait_for_function("() => !document.getElementById('status').textContent.includes('adjourned')")
    assert not t.call(lambda s, now: s.clocks.paused)
    page.select_option("#resigner", str(b))
    page.click("#resign")
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Game over')")
    assert f"{names[b]} resigned. {names[a]} wins" in page.inner_text("#status")
    assert "wins" in page.inner_text(f"#players article:nth-child({a + 1})")
    gcg = t.call(lambda s, now: s.gcg())
    assert gcg.strip().endswith("\n".join([
        f">{names[a]}: HOUSE 8D HOUSE +24 24",
        f"#note Result: {names[b]} resigned. {names[a]} wins ({names[0]} {[24, 0][a != 0]}, {names[1]} {[24, 0][a != 1]})",
    ])), gcg
    # The log's last word on the game is its result.
    last = t.store.last()
    assert last.kind == "result" and last.payload["winners"] == [a] and last.payload["resigned"] == b




@pytest.mark.parametrize("mode", ["void", "single", "double", "five-points"])
def test_classic_a_challenge_in_each_mode(phone, tmp_path, mode):
    t = _classic(tmp_path, ["Ann", "Bob"], "en", EN_WORDS, seed=11, challenge=mode)
    page = phone(t.url)
    try:
        a = t.call(lambda s, now: s.state.to_move)
        b = 1 - a
        na, nb = ["Ann", "Bob"][a], ["Ann", "Bob"][b]
        t.press(b)
        if mode == "void":
            # Every word is checked when played: the phony is refused at the press, the clock
            # goes back to Ann, who sets the board right and presses again.
            t.camera.lay(HOUSS)
            t.press(a, think_ms=30_000)
            page.wait_for_function("() => document.getElementById('verdicts').textContent.includes('HOUSS')")
            assert t.call(lambda s, now: (s.history(), sorted(s.clocks.on_move()))) == ([], [a])
            assert page.locator("#challenge-window").is_hidden()
            t.camera.take_off([(7, 7)])
            t.camera.lay({(7, 7): "E"})
            t.press(a, think_ms=10_000)
            _rows(page, 1)
            tail = [f">{na}: HOUSE 8D HOUSE +24 24"]
        else:
            t.camera.lay(HOUSS if mode == "single" else HOUSE)
            t.press(a, think_ms=30_000)
            _rows(page, 1)
            # The window is open until Bob acts; Bob challenges from the page.
            page.wait_for_selector("#challenge-window:not([hidden])")
            assert f"can be challenged until {nb} acts" in page.inner_text("#challenge-what")
            page.click(f'[data-challenger="{b}"]')
            page.wait_for_selector("#challenge-window", state="hidden")
            if mode == "single":  # the phony comes off; Bob's turn
                _rows(page, 2)
                t.camera.take_off(list(HOUSS))
                t.press(b, think_ms=5_000)
                tail = [f">{na}: HOUSS 8D HOUSS +24 24", f">{na}: HOUSS -- -24 0", f">{nb}: ? - +0 0"]
            elif mode == "double":  # HOUSE stands; Bob loses his turn: Ann again
                assert t.call(lambda s, now: (s.state.to_move, sorted(s.clocks.on_move()))) == (a, [a])
                t.press(a, think_ms=5_000)
                tail = [f">{na}: HOUSE 8D HOUSE +24 24", f">{na}: ? - +0 24"]
            else:  # HOUSE stands: 5 points to Ann
                _rows(page, 2)
                t.press(b, think_ms=5_000)
                tail = [f">{na}: HOUSE 8D HOUSE +24 24", f">{na}: ? (challenge) +5 29", f">{nb}: ? - +0 0"]
        rows = len(tail)
        _rows(page, rows)
        # Bob resigns: the game is over, and its GCG is the one computed by hand.
        _login(page)
        page.select_option("#resigner", str(b))
        page.click("#resign")
        page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Game over')")
        score = {"void": 24, "single": 0, "double": 24, "five-points": 29}[mode]
        scores = {a: score, b: 0}
        assert t.call(lambda s, now: s.gcg()).splitlines() == [
            "#character-encoding UTF-8", "#player1 Ann Ann", "#player2 Bob Bob",
            "#title Classic Scrabble at the companion's table", "#lexicon en", "#tile-set en", *tail,
            f"#note Result: {nb} resigned. {na} wins (Ann {scores[0]}, Bob {scores[1]})"]
    finally:
        t.close()


class PhysicalCamera:
    """The dungeon's board as it lies (tiles face up or down, tokens), read for sure."""

    def __init__(self) -> None:
        from tests.rules.dungeon_table import PhysicalBoard

        self.board = PhysicalBoard()

    def read(self):  # type: ignore[no-untyped-def]
        from companion.sim.truth import TruthFrame

        return TruthFrame(self.board.reading())

    def close(self) -> None:
        pass


def test_dungeon_from_a_set_up_rolled_by_the_roll_button_to_its_end_with_its_stopwatch(phone, tmp_path):
    """The solo dungeon from the first press to the game's end: the roll button rolls the set-up
    (the dice as the test knows them), the plan laid out, the rack told on the page, three
    moves and the last a fight lost to a monster; the stopwatch runs from the rack to the end,
    on the page. Every button a mock pin, every rack a tap on the page."""
    import random

    from companion.core.tiles import get_tileset
    from companion.engine.dawg import build
    from companion.engine.movegen import Generator
    from companion.rules import dungeon as rules
    from companion.table.dungeon import DungeonSession
    from tests.rules.dungeon_table import PhysicalBoard

    words = frozenset({"LANTERN", "NOTES", "ES"})
    english = get_tileset("en")
    generator = Generator(build(words, english.alphabetical()), english)  # the trapped check's
    first = rules.roll_setup(rules.DEFAULT_OBJECTS, 2, "1")
    camera = PhysicalCamera()
    t = SimTable(tmp_path, lambda store, now: DungeonSession(
        store, first, name="Dora", lexicon_for=lambda ts: words, generator_for=lambda ts: generator, now_ms=now),
        players=1, camera=camera)
    t.call(lambda s, now: setattr(s, "dice", random.Random(0)))  # the dice as the test knows them
    page = phone(t.url)
    try:
        plan = page.inner_text("#dungeon-plan")
        # The dungeon has dice: its page shows the roll button beside the clock's.
        page.wait_for_selector('[data-press="roll"]')
        # The roll button before the set-up stands: a new plan, on the page and in the log.
        t.press("roll")
        rolled = rules.roll_setup(rules.DEFAULT_OBJECTS, 2, None, rng=random.Random(0))
        assert t.call(lambda s, now: s.setup) == rolled != first
        page.wait_for_function(f"() => document.getElementById('dungeon-plan').innerText !== {plan!r}")
        assert "The dice are rolled again" in page.inner_text("#verdicts")
        assert any(line == "roll: rolled: 18 objects, 30 tiles" for line in t.said)
        # The dice put a monster on D8 below an empty D7, a fixed letter on E7 and the left
        # edge's wall on A8 to C8 (the plan on the page says so too).
        kinds = {sq: o.kind for o in rolled.obstacles for sq in o.squares}
        assert (kinds[(7, 3)], kinds[(6, 4)], kinds[(7, 0)], (6, 3) in kinds) == (rules.MONSTER, rules.FIXED,
                                                                                  rules.WALL, False)
        # The plan laid out (the fixed letter an S, the monster a K, every other tile an E);
        # the press: the set-up stands; the rack entered on the page.
        letters = {sq: "E" for sq in kinds} | {(6, 4): "S", (7, 3): "K"}
        camera.board = PhysicalBoard.laid_out(rolled, letters)
        t.press(0, think_ms=60_000)
        page.wait_for_function("() => document.getElementById('dungeon-phase').textContent.includes('Draw seven')")
        _login(page)
        page.fill("#action-tiles", "LANTERN")
        page.click('[data-action="rack"]')
        page.wait_for_function("() => document.getElementById('dungeon-phase').textContent.includes('Your move')")
        # A second roll now does nothing: the set-up stands (a double beep, a line).
        t.press("roll")
        assert t.said[-1].startswith("roll: ignored: the set-up stands")
        assert t.call(lambda s, now: s.setup) == rolled
        # The stopwatch runs from the rack on; the page counts it up.
        t.clock.set(t.clock() + 65_000)
        t.call(lambda s, now: s.revision)  # (the hub publishes on the next change; the page counts on its own)
        page.wait_for_function("() => document.getElementById('clock-0').textContent !== '–'")
        # 1. LANTERN down from A1 (the first word begins there): seven tiles of 1 point: 7.
        camera.board.place((0, 0), "LANTERN", across=False)
        t.press(0, think_ms=5_000)
        page.wait_for_function("() => document.getElementById('verdicts').textContent.includes('LANTERN 7')")
        watch = t.call(lambda s, now: s.watch_view(now))
        assert watch == {"elapsed_ms": 70_000, "started": True, "running": True, "moves": 1}
        face = page.inner_text("#clock-0")
        assert face.startswith("1:1"), face  # 1:10 and counting up
        # A refill told on the page: nothing held, so it costs nothing.
        page.fill("#action-tiles", "OTESABC")
        page.click('[data-action="refill"]')
        page.wait_for_function("() => document.getElementById('dungeon-facts').textContent.includes('rack ABCEOST')")
        assert "Refilled 7: 0 tiles held, -0" in page.inner_text("#verdicts")
        # 2. NOTES along row 7 from LANTERN's last N to the fixed S: O T E laid, 3 points: 10.
        camera.board.place((6, 1), "OTE")
        t.press(0, think_ms=30_000)
        page.wait_for_function("() => document.getElementById('verdicts').textContent.includes('NOTES 3')")
        # 3. The monster under the E turned over (a K): the move waits for the tile in its place.
        camera.board.turn_up((7, 3))
        t.press(0, think_ms=10_000)
        page.wait_for_function("() => document.getElementById('verdicts').textContent.includes('face up')")
        # ES down column D: the S (1 point) against the K (5) neither defeats nor tames it.
        assert camera.board.replace((7, 3), "S") == "K"
        t.press(0, think_ms=10_000)
        page.wait_for_function("() => document.getElementById('dungeon-phase').textContent.includes('over')")
        said = page.inner_text("#verdicts")
        assert "The monster on D8 was a K: your S neither defeats nor tames it. You are dead, with 10 points." in said
        # The stopwatch stopped at the last move: 65 + 5 + 30 + 10 + 10 s; the page shows it still.
        t.clock.set(t.clock() + 60_000)
        t.call(lambda s, now: s.revision)
        end = t.call(lambda s, now: s.watch_view(now))
        assert end == {"elapsed_ms": 120_000, "started": True, "running": False, "moves": 3}
        page.wait_for_function("() => document.getElementById('clock-0').textContent === '2:00'")
        assert t.call(lambda s, now: (s.state.result, s.state.score)) == (rules.DEAD, 10)
        assert [row["points"] for row in t.call(lambda s, now: s.history)] == [7, 0, 3, 0]
        shot(page, "table-dungeon-end")
        # The log keeps the roll, the moves and the stopwatch: a restart folds them back.
        again = DungeonSession.restore(t.store, lexicon_for=lambda ts: words, generator_for=lambda ts: generator)
        assert again.setup == rolled and again.watch_view(t.clock()) == end
        assert (again.state.result, again.state.score) == (rules.DEAD, 10)
    finally:
        t.close()


@pytest.mark.parametrize("word", ["STAR", "RATS"])
def test_house_a_challenge_ends_the_match_as_its_rule_9_says(phone, tmp_path, word):
    """Scrabble House at a table of two boards (two cameras, two table loops, four clock buttons
    on mock pins) by consent (rule 9): words stand unchecked until a challenge; Di challenges
    Cy's word from the page; the word list decides and the match is over."""
    from companion.rules import house
    from companion.rules.house import HouseOptions
    from companion.sim.housedemo import laid, lay
    from companion.table.house import HouseSession

    words = frozenset({"RETAINS", "STONE", "STAR"})
    ann, bob, cy, di = range(4)
    t = SimTable(tmp_path, lambda store, now: HouseSession(
        store, ["Ann", "Bob", "Cy", "Di"], options=HouseOptions(colours=("ivory", "wood"), challenges=True),
        first=ann, seed=5, now_ms=now, lexicon_for=lambda ts: words), players=4)
    try:
        page = phone(t.url)
        board0, board1 = t.cameras

        def play(camera, player, start, across, text, colour):  # type: ignore[no-untyped-def]
            camera.board = lay(camera.board, laid(house.seat(player), start, across, text, colour))
            t.press(player, think_ms=20_000)

        # Rule 3: the starters' opponents start the clocks: Bob Ann's on board 1, Cy Di's on board 2.
        t.press(bob)
        t.press(cy)
        assert t.call(lambda s, now: [c.on_move for c in s.clocks.clocks]) == [0, 1]
        play(board0, ann, (8, 7), False, "RETAINS", "ivory")  # down column H to Ann's home row
        play(board1, di, (0, 11), True, "STONE", "wood")  # Di, at the top, reads right to left
        play(board1, cy, (11, 7), False, word, "wood")  # Cy's word down to his home row
        page.wait_for_function(f"() => document.getElementById('challenge-what').textContent.includes('{word}')")
        assert "a challenge ends the match" in page.inner_text("#challenge-what")
        # Cy's opponents may challenge: Bob (at the other board) and Di.
        assert page.locator("[data-challenger]").all_inner_texts() == ["Bob challenges", "Di challenges"]
        shot(page, "table-house-challenge")
        page.click(f'[data-challenger="{di}"]')
        page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Game over')")
        phony = word not in words
        doc = t.hub.document_json()
        assert doc["game"]["over"] and doc["game"]["winners"] == ([bob, di] if phony else [ann, cy])
        result = (f"Di challenged Cy's {word}: {word} is not in the word list; Di's side wins" if phony else
                  f"Di challenged Cy's {word}: {word} is a word; Cy's side wins")
        assert doc["game"]["reason"] == result
        assert t.call(lambda s, now: s.clocks.paused)  # the match is over: no clock runs
        # The GCG of each board, as computed by hand: House scores nothing (+0); the top
        # player's words are written as the board reads them left to right, top to bottom.
        # Each holds seven tiles of his board's colour (rule 7: a player draws back to seven).
        head = ["#character-encoding UTF-8"]
        title = f"#title Scrabble House at the companion's table (house-5-{1000:x})"  # seed 5, begun at 1000 ms
        ending = f"#note Result: {'Bob and Di' if phony else 'Ann and Cy'} win ({result})"
        assert t.call(lambda s, now: s.gcg(0)).splitlines() == head + [
            "#player1 Ann Ann", "#player2 Bob Bob", f"{title}, board 1 (ivory)", "#tile-set en",
            "#note own tiles: Ann 7, Bob 7",
            ">Ann: RETAINS H9 RETAINS +0 0",  # column H from row 9 down
            ending]
        assert t.call(lambda s, now: s.gcg(1)).splitlines() == head + [
            "#player1 Cy Cy", "#player2 Di Di", f"{title}, board 2 (wood)", "#tile-set en",
            "#note own tiles: Cy 7, Di 7",
            ">Di: ENOTS 1H ENOTS +0 0",  # STONE from L1 leftwards: E N O T S from H1 on the board
            f">Cy: {word} H12 {word} +0 0",  # down from H12, as Cy reads it
            ending]
        # The log keeps the challenge: the match folds back to the same end.
        again = HouseSession.restore(t.store, lexicon_for=lambda ts: words)
        assert again is not None and again.state == t.call(lambda s, now: s.state)
    finally:
        t.close()


def test_classic_against_a_skill_3_computer_seat(phone, tmp_path):
    """Ann plays Bob, a computer of skill 3: the page names Bob's rack and his move; the tiles
    are laid as shown and Bob's button pressed; a tile laid wrong is a question. Ann opens with
    HOUSE, passes her second turn and resigns after Bob's second move. The final GCG is the one
    computed by hand below: Bob's moves as the page showed them, each score counted square by
    square, his racks as the page named them."""
    from companion.engine.movegen import generator_for
    from companion.lexicon import load_lexicon

    english = generator_for("en", load_lexicon("en"))  # the house list's (built once, before the game)
    t = SimTable(tmp_path, lambda store, now: TableSession(
        store, ["Ann", "Bob"], control="tournament", challenge="single", tileset="en", seed=5, now_ms=now,
        computers={"1": 3}, generator_for=lambda ts: english))
    try:
        page = phone(t.url)
        assert t.call(lambda s, now: s.state.to_move) == 0  # (the seed's draw: Ann first)
        t.press(1)  # Bob's button starts Ann's clock
        t.camera.lay(HOUSE)
        t.press(0, think_ms=30_000)
        _rows(page, 1)
        racks: list[str] = []
        shown: list[str] = []
        for turn in range(2):
            page.wait_for_function(f"() => document.querySelectorAll('#history tr').length === {2 * turn + 1}"
                                   " && document.getElementById('computer-move').textContent.startsWith('Bob plays')")
            rack = page.inner_text("#computer-racks").split("rack ", 1)[1].split(";")[0].strip()
            racks.append(rack)
            move = t.call(lambda s, now: s.computer_move())
            text = page.inner_text("#computer-move")
            assert text.startswith(f"Bob plays {move.position} {move.word} ({move.score}): lay "), text
            shown.append(f"{move.position} {move.word} +{move.score}")
            tiles = {(r, c): ch for r, c, ch, _ in move.squares}
            blanks = frozenset((r, c) for r, c, _, b in move.squares if b)
            squares = sorted(tiles)
            if turn == 0:
                # Two tiles laid on each other's squares: the camera checks, and asks.
                a_sq, b_sq = squares[0], squares[1]
                assert tiles[a_sq] != tiles[b_sq]
                t.camera.lay({**tiles, a_sq: tiles[b_sq], b_sq: tiles[a_sq]}, blanks=blanks)
                t.press(1, think_ms=3_000)
                page.wait_for_function("() => document.getElementById('verdicts').textContent.includes("
                                       "'the computer plays')")
                assert f"{format_square(a_sq)} should hold {tiles[a_sq]}" in page.inner_text("#verdicts")
                assert t.call(lambda s, now: s.state.to_move) == 1
                t.camera.take_off(squares)
            t.camera.lay(tiles, blanks=blanks)
            t.press(1, think_ms=3_000)
            _rows(page, 2 * turn + 2)
            if turn == 0:
                t.press(0, think_ms=8_000)  # Ann passes
        _login(page)
        page.select_option("#resigner", "0")
        page.click("#resign")
        page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Game over')")
        # Bob's racks as the page named them (the second: the first's leave T T V and the four
        # tiles dealt after MURVA, E F O U) and his moves as it showed them.
        assert racks == ["AMRTTVV", "EFOTTUV"]
        assert shown == ["F7 M.RVA +18", "E11 FOU +22"]
        expected = "\n".join([
            "#character-encoding UTF-8",
            "#player1 Ann Ann",
            "#player2 Bob Bob",
            "#title Classic Scrabble at the companion's table",
            "#lexicon en",
            "#tile-set en",
            # H on D8 (DL) 8, O U S E 4; the centre's double word: 24. Ann's rack is private:
            # the field holds the tiles she played.
            ">Ann: HOUSE 8D HOUSE +24 24",
            # MURVA down column F through HOUSE's U: M 3, U 1 (on the board), R 1, V 4 on F10 (TL)
            # 12, A 1: 18. Bob's rack is the companion's: the field holds all of it.
            ">Bob: AMRTTVV F7 M.RVA +18 18",
            ">Ann: ? - +0 24",
            # FOU down from E11 (DW): (F 4 + O 1 + U 1) x 2 = 12; across, FA with MURVA's A:
            # (F 4 + A 1) x 2 = 10: 22.
            ">Bob: EFOTTUV E11 FOU +22 40",
            "#note Result: Ann resigned. Bob wins (Ann 24, Bob 40)",
        ])
        gcg = t.call(lambda s, now: s.gcg())
        assert gcg.strip() == expected, gcg
        # The log deals the computer's racks again, tile for tile, after a restart.
        again = TableSession.restore(t.store, generator_for=lambda ts: english)
        assert again.computer_racks() == t.call(lambda s, now: s.computer_racks())
        assert again.history() == t.call(lambda s, now: s.history())
    finally:
        t.close()
