"""The stacking game's GCG record: records written by hand rescored to hand-computed scores, a
record written from a game played by the rules with a seed, and `companion gcg rescore --game
stacking` as a user runs it."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from companion.core.gcg import parse_gcg, write_gcg
from companion.core.errors import CompanionError
from companion.rules.rescore import TileSetChoice
from companion.rules.stacking import GameLength, PriceRule, StackingOptions, VerdictKind
from companion.rules.stacking_record import (
    options_text,
    parse_options,
    replay_record,
    rescore_stacking,
    write_record,
)
from tests.commands.test_gcg_cli import assert_one_line_error, run, write

EN = TileSetChoice("en", "test")

# Three players, by hand (squares as GCG names them: column letter, row number):
# 1 ann  MEN across row 8 from F8, N on the star (double word), a rainbow M on F8:
#        (3 + 1 + 1) x 2 x 2 = 20.
# 2 bob  A on the E of G8 (a stack of two), T below on G9 (double letter): AT = 1x2 + 1x2 = 4;
#        MAN changed: (3 + 1x2 + 1) x 2 for the rainbow M = 12. 16.
# 3 cy   TAX across row 9 from the T: A on H9, X on I9 (double letter): 1 + 1 + 16 = 18; NA 2. 20.
#   ann  buys E, her first purchase: 5 (20 -> 15).
# 4 ann  E on I8: MANE (3 + 2 + 1 + 1) x 2 = 14 (the rainbow M, laid two turns before), EX 9. 23 -> 38.
# 5 bob  a wild as I on the A of G8 (a stack of three), S on G10: ITS 0 + 1 + 1 = 2; MINE
#        (3 + 0 + 1 + 1) x 2 = 10. 12 -> 28.
# 6 cy   redraws: 20 - 5 = 15.
#   ann  buys T, her second purchase: 10 (38 -> 28).
# 7 ann  passes.  8 bob passes.  cy concedes: both players left have passed in a row: the end.
HAND = """\
#character-encoding UTF-8
#player1 ann Ann
#player2 bob Bob
#player3 cy Cy
#game-type stacking
#tile-set en
#stacking-options premiums=first-tile prices=sum-of-two rainbows=each
>ann: EMNRSTU 8F MEN +20 20
#rainbow F8
>bob: AEIOPTT G8 AT +16 16
#stack G8
>cy: ABDEFAX 9G .AX +20 20
#buy ann E 5 15
>ann: ERSTUWE 8F ...E +23 38
>bob: EIOPT?S G8 iTS +12 28
#stack G8
>cy: BDEFGHL -BDEFGHL +0 15
#redraw 5
#buy ann T 10 28
>ann: RSTUWWT - +0 28
>bob: EOPRRTW - +0 28
#concede cy
#end all-passed
"""


# Two players under the other options: a premium for every tile placed on it, prices capped at
# 40, a word doubled once however many rainbow tiles it holds.
# 1 ann  OX, both rainbow: (1 + 8) x 2 (star) = 18, doubled once = 36.
# 2 bob  N on the X of H8 (height 2; the star doubles again), O on H9: NO (2 + 1) x 2 = 6;
#        ON (1 + 2) x 2 x 2 for the rainbow O = 12. 18.
# 3 ann  H on H8 (a stack of three), M on I8: OHM (1 + 4x3 + 3) x 2 x 2 = 64; HO (12 + 1) x 2 = 26.
#        90 -> 126.   bob buys twice: 5, 10 (18 -> 3).
# 4 bob  O on H8, a stack of four, F on H10: OOF (4 + 1 + 4) x 2 = 18; OOM (1 + 4 + 3) x 2 x 2 = 32.
#        50 -> 53.
# 5 ann  T on the rainbow O of G8, E on J8: TOME 2 + 4 + 3 + 1 = 10, no double (the rainbow is
#        covered, and H8's star counts only under a new tile). 136.
# 6 bob  passes.  ann buys six: 5, 10, 15, 25, 40, 40 (capped) = 135 -> 1.  7 ann passes: the end.
HAND_OPTIONS = """\
#player1 ann Ann
#player2 bob Bob
#game-type stacking
#tile-set en
#stacking-options premiums=every-tile prices=capped rainbows=once
>ann: OXAEIRT 8G OX +36 36
#rainbow G8 H8
>bob: NOEIRST H8 NO +18 18
#stack H8
>ann: HMAEIRT 8G .HM +90 126
#stack H8
#buy bob E 5 13
#buy bob S 10 3
>bob: OFEEIRSST H8 O.F +50 53
#stack H8
>ann: TEAIRRS 8G T..E +10 136
#stack G8
>bob: EEIRSST - +0 53
#buy ann A 5 131
#buy ann B 10 121
#buy ann C 15 106
#buy ann D 25 81
#buy ann E 40 41
#buy ann F 40 1
>ann: AAIRRSABCDEF - +0 1
#end all-passed
"""


def test_a_record_under_the_other_options_rescores_to_the_hand_computed_scores():
    result = rescore_stacking(parse_gcg(HAND_OPTIONS), EN)
    assert result.agrees, [(r.event.line, r.remark) for r in result.disagreements]
    plays = [r.score for r in result.events if r.event.kind == "play"]
    assert plays == [36, 18, 90, 50, 10]
    assert [-r.score for r in result.events if r.event.kind == "purchase"] == [5, 10, 5, 10, 15, 25, 40, 40]
    assert result.totals() == (1, 53)
    # Under the default options the same plays score otherwise: OX 18 x 2 x 2 = 72; the star is
    # used, so NO 3 and ON 3 x 2 = 9; OHM 16 x 2 + HO 13 = 45; OOF 9 + OOM 8 x 2 = 25; TOME 10.
    # And ann's sixth purchase would cost 65: the record disagrees.
    text = HAND_OPTIONS.replace("premiums=every-tile prices=capped rainbows=once", "")
    default = rescore_stacking(parse_gcg(text), EN)
    assert [r.score for r in default.events if r.event.kind == "play"] == [72, 9, 45, 25, 10]
    assert [-r.score for r in default.events if r.event.kind == "purchase"][-1] == 65


def test_a_record_written_by_hand_rescores_to_the_hand_computed_scores():
    result = rescore_stacking(parse_gcg(HAND), EN)
    assert result.agrees, [(r.event.line, r.remark) for r in result.disagreements]
    assert [r.score for r in result.events] == [20, 16, 20, -5, 23, 12, -5, -10, 0, 0, 0, 0]
    assert result.totals() == (28, 28, 15)
    assert result.board.to_text().splitlines()[7] == ".....MiNE......"


def test_a_changed_score_or_a_missing_rainbow_is_a_disagreement():
    wrong = HAND.replace(">bob: EIOPT?S G8 iTS +12 28", ">bob: EIOPT?S G8 iTS +14 30")
    result = rescore_stacking(parse_gcg(wrong), EN)
    assert [r.event.line for r in result.disagreements][0] == 15
    no_rainbow = HAND.replace("#rainbow F8\n", "")
    result = rescore_stacking(parse_gcg(no_rainbow), EN)
    assert result.events[0].score == 10 and not result.events[0].agrees


def test_a_purchase_beyond_the_score_is_a_disagreement():
    text = HAND.replace("#buy ann E 5 15", "#buy ann E 5 15\n#buy ann Q 10 5\n#buy ann Z 15 -10")
    result = rescore_stacking(parse_gcg(text), EN)
    bad = [r for r in result.events if not r.score_agrees]
    # Q at 10 leaves 5; Z at 15 goes below zero; ann's T later is her fourth purchase: 25, not 10.
    assert [r.event.line for r in bad] == [15, 21]
    assert bad[0].remark == "purchase 3: 15; refused by the rules: 5 points, below zero"


def test_the_capped_price_option_is_read_from_the_record():
    options = parse_options("prices=capped length=long same-letter=no max-height=4", "en")
    assert options.prices is PriceRule.CAPPED and options.length is GameLength.LONG
    assert options.same_letter is False and options.max_height == 4
    assert parse_options(options_text(options), "en") == options
    with pytest.raises(CompanionError, match="unknown key"):
        parse_options("colour=red", "en")
    with pytest.raises(CompanionError, match="prices='often'"):
        parse_options("prices=often", "en")


@pytest.mark.parametrize(
    "change, fragment",
    [
        (("#stack G8\n>cy", "#stack G8 H8\n>cy"), "the play lays no tile there"),
        (("#stack G8\n>cy", "#stack G9\n>cy"), "G8 already holds E"),
        ((">bob: EIOPT?S G8 iTS", ">bob: EIOPT?S G8 aTS"), "must change that square's letter"),
        (("#rainbow F8", "#rainbow F8 Z99"), "off the"),
        (("#buy ann E 5 15", "#buy ann E five 15"), "#buy is NICK LETTER PRICE TOTAL"),
        (("#buy ann E 5 15", "#buy dan E 5 15"), "'dan' is not declared"),
        (("#end all-passed", "#end tired"), "#end is one of"),
        (
            (">cy: BDEFGHL -BDEFGHL +0 15\n#redraw 5", ">cy: BDEFGHL -BDEFGHL +0 15\n#stack G8"),
            "follows a play",
        ),
    ],
)
def test_a_record_that_cannot_be_replayed_is_one_clear_error(change, fragment):
    with pytest.raises(CompanionError, match=fragment):
        rescore_stacking(parse_gcg(HAND.replace(*change)), EN)


def test_a_game_played_by_the_rules_with_a_seed_is_recorded_and_rescored_exactly(stacking_game, english):
    start, steps = stacking_game
    final = steps[-1][1].state
    record = write_record(start, steps, title="self-play")
    text = write_gcg(record)
    read = parse_gcg(text)
    assert read == record  # written and read back
    result = rescore_stacking(read, EN)
    assert result.agrees
    assert result.totals() == tuple(p.score for p in final.players)
    assert result.board == final.board.top
    kinds = Counter(o.verdict.kind for _, o in steps)
    assert kinds[VerdictKind.PLAYED] > 5 and kinds[VerdictKind.BOUGHT] >= 1
    assert "#stack " in text and "#rainbow " in text and "#buy " in text and "#end pool-empty" in text
    # Dealt again from the record's seed, the game is the same game, rack for rack.
    assert replay_record(read, english) == final


def test_a_record_whose_racks_were_not_dealt_so_does_not_replay(stacking_game, english):
    start, steps = stacking_game
    text = write_gcg(write_record(start, steps))
    first = next(line for line in text.splitlines() if line.startswith(">"))
    nick, rack = first.split()[:2]
    forged = text.replace(first, first.replace(f"{nick} {rack}", f"{nick} {'Q' * len(rack)}", 1), 1)
    with pytest.raises(CompanionError, match="the rack dealt is"):
        replay_record(parse_gcg(forged), english)


# --- the command line ------------------------------------------------------------------------


def test_the_command_rescores_a_stacking_record(tmp_path):
    path = write(tmp_path, "hand.gcg", HAND)
    proc = run("gcg", "rescore", "--game", "stacking", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "MEN: (M3 + E1 + N1) x2 x2 rainbow = 20" in proc.stdout
    assert "buys E for 5" in proc.stdout and "redraw BDEFGHL" in proc.stdout
    assert "final (recorded/recomputed): ann 28/28, bob 28/28, cy 15/15" in proc.stdout
    # #game-type stacking chooses the game without --game.
    doc = json.loads(run("gcg", "rescore", "--json", str(path)).stdout)
    assert doc["agrees"] and [e["kind"] for e in doc["events"]].count("purchase") == 2


def test_the_command_exits_1_on_a_disagreement_and_2_on_a_bad_record(tmp_path):
    wrong = write(tmp_path, "wrong.gcg", HAND.replace("iTS +12 28", "iTS +13 29"))
    proc = run("gcg", "rescore", "--game", "stacking", str(wrong))
    assert proc.returncode == 1 and "score and total differ" in proc.stdout
    bad = write(tmp_path, "bad.gcg", HAND.replace(">bob: EIOPT?S G8 iTS", ">bob: EIOPT?S G8 aTS"))
    assert_one_line_error(run("gcg", "rescore", "--game", "stacking", str(bad)), "bad.gcg line 15")


# --- fixtures ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def english():
    from companion.lexicon import load_lexicon

    return load_lexicon("en")


@pytest.fixture(scope="module")
def stacking_game(english):
    """A three-player Short game between computer players, dealt from seed 2."""
    from companion.engine.movegen import generator_for
    from companion.engine.stacking_player import self_play

    generator = generator_for("en", english)
    return self_play(
        ["ann", "bob", "cy"], StackingOptions(length=GameLength.SHORT), english, generator, seed=2
    )


AREA_GAME = """#player1 ann Ann
#player2 bob Bob
#game-type stacking
#tile-set en
#stacking-options area=3
>ann: ENTUVWY 8G TEN +6 6
>bob: AEFGHKT 7G ATE +13 13
>ann: DENOPRS 9G END +20 26
#end board-full
"""


def test_a_play_area_is_read_from_the_record_and_its_covered_board_ends_the_game():
    # The centre 3x3 squares (G7 to I9): TEN 6 (the star), ATE 5 + AT 3 + TE 2 + EN 3 = 13 (A and
    # E on DLs), END 7 + ATE 4 + TEN 3 + END 6 = 20; every square of the area covered.
    options = parse_options("area=3", "en")
    assert options.area == 3 and parse_options(options_text(options), "en") == options
    assert "area=all" in options_text(StackingOptions())
    result = rescore_stacking(parse_gcg(AREA_GAME), EN)
    assert result.agrees, result.disagreements
    whole = rescore_stacking(parse_gcg(AREA_GAME.replace("area=3", "area=all")), EN)
    assert [r.remark for r in whole.disagreements] == ["every square is covered? 216 squares empty"]
    with pytest.raises(CompanionError, match="line 7: 7H TEA: J7 is outside the play area"):
        rescore_stacking(parse_gcg(AREA_GAME.replace("7G ATE +13 13", "7H TEA +3 3")), EN)
    with pytest.raises(CompanionError, match="the play area is an odd number of squares from 3 to 15"):
        parse_options("area=4", "en")
