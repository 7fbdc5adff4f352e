"""`companion gcg rescore --game scrabble3`: Scrabble III records with the pick-off extension
(docs/scrabble3.md), written and scored by hand."""

from __future__ import annotations

import json

from companion.core.gcg import parse_gcg, write_gcg
from companion.rules import scrabble3 as s3
from companion.rules.scrabble3_gcg import notes_of, options_of
from tests.commands.test_gcg_cli import assert_one_line_error, run, write

# Scored by hand on the 21x21 board (K11 the centre, a double word):
#  DREAMY H11..M11: D2 R1 E1 A1 M3 Y4 = 12, x2 (K11) = 24, 6-tiler 20: 44.
#  Y picked off M11, ILY laid on M11..O11: D2 R1 E1 A1 M3 I1 L1 Y4x2 (O11 DL) = 18, stretch by 2: 30; 48.
#  BEAKER down J10..J15 with a blank K: B3x2 (J10 DL) E1 A1x2 (J12 DL) k0 E1 R1 = 11.
#  bob swaps his K for the blank on J13, then S on J16 (DL): B3 E1 A1 K5 E1 R1 S1x2 = 14 (by 1: no bonus).
#  JOKERS E16..J16: J8 O1x (F16 DW) K5 E1 R1 S1 = 17 x2 = 34, the upright J in 6 letters 10: 44.
#  DREAMILYE (a phony): 18 - 8 + 4 + 1 = 15 (no premiums new); withdrawn.
#  Both pass; final racks. ann with bob's rack: JOCKEY down O6..O11: J8 O1 (O7 DW) C3 K5 E1 Y4
#  = 22 x2 = 44, J 10: 54, + 50 = 104. bob with ann's rack: DREAMILYE again: +0, then 15 charged.
#  Racks: AEI 3, CEJKO 3+1+8+5+1 = 18.
GAME = """\
#character-encoding UTF-8
#player1 ann Ann
#player2 bob Bob
#scrabble3
>ann: ADEMRTYY 11H DREAMY +44 44
>bob: AILNSTUY 11H .....ILY +48 48
#note scrabble3: pick-off M11
>ann: ?ABEIRTY J10 B.AkER +11 55
>bob: EKNOSSTU J10 ......S +14 62
#note scrabble3: swap-blank J13
>ann: ?EIJKORT 16E JOKER. +44 99
>bob: ?EENOSTU 11H ........E +15 77
>bob: ?EENOSTU -- -15 62
>ann: AEI - +0 99
>bob: CEJKO - +0 62
>ann: CEJKO O6 JOCKE. +104 203
#note scrabble3: final-racks
>bob: AEI 11H ........E +0 62
#note scrabble3: final-racks invalid
>bob: AEI -- -15 47
>ann: AEI (AEI) -3 200
>bob: CEJKO (CEJKO) -18 29
"""


def test_a_scrabble3_record_rescores_exactly(tmp_path):
    proc = run("gcg", "rescore", "--game", "scrabble3", "--json", str(write(tmp_path, "s3.gcg", GAME)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["agrees"] and [t["recomputed"] for t in doc["totals"]] == [200, 29]
    remarks = [e["remark"] for e in doc["events"]]
    assert remarks[1] == "picked off M11, stretch by 2 30"
    assert remarks[9] == "final racks: 54 + 50"


def test_a_recorder_forgetting_the_swap_disagrees(tmp_path):
    # Scored as if the K on J13 were still the blank (0 instead of 5): BEAKERS 9.
    bad = GAME.replace("J10 ......S +14 62", "J10 ......S +9 57")
    proc = run("gcg", "rescore", "--game", "scrabble3", str(write(tmp_path, "bad.gcg", bad)))
    assert proc.returncode == 1
    assert "differ" in proc.stdout


def test_the_extension_is_plain_gcg_to_other_readers():
    record = parse_gcg(GAME)
    assert record.pragmas == ("#scrabble3",)
    assert record.events[1].notes == ("scrabble3: pick-off M11",)
    assert parse_gcg(write_gcg(record)) == record
    assert notes_of(record.events[1]).pick_off == ((10, 12),)
    assert notes_of(record.events[3]).swaps == ((12, 9),)


def test_the_pragma_chooses_the_stretch_table():
    record = parse_gcg(GAME.replace("#scrabble3\n", "#scrabble3 stretch=extended\n"))
    assert options_of(record).stretch is s3.StretchTable.EXTENDED


def test_the_stretch_option_changes_a_two_letter_stretch(tmp_path):
    text = GAME.replace("#scrabble3\n", "#scrabble3 stretch=extended\n")
    proc = run("gcg", "rescore", "--game", "scrabble3", str(write(tmp_path, "ext.gcg", text)))
    assert proc.returncode == 1  # the pick-off stretch by 2 is worth 20 there, not 30
    assert "+48   48    +38   38" in proc.stdout


def test_bad_extension_lines_are_one_line_errors(tmp_path):
    leading = GAME.replace("pick-off M11", "pick-off H11")
    proc = run("gcg", "rescore", "--game", "scrabble3", str(write(tmp_path, "lead.gcg", leading)))
    assert_one_line_error(proc, "line 6", "trailing end")
    unknown = GAME.replace("pick-off M11", "pluck M11")
    proc = run("gcg", "rescore", "--game", "scrabble3", str(write(tmp_path, "pluck.gcg", unknown)))
    assert_one_line_error(proc, "line 6", "unknown scrabble3 note")
    swap = GAME.replace("swap-blank J13", "swap-blank J14")
    proc = run("gcg", "rescore", "--game", "scrabble3", str(write(tmp_path, "swap.gcg", swap)))
    assert_one_line_error(proc, "line 9", "no blank there")
    pragma = GAME.replace("#scrabble3\n", "#scrabble3 stretch=huge\n")
    proc = run("gcg", "rescore", "--game", "scrabble3", str(write(tmp_path, "p.gcg", pragma)))
    assert_one_line_error(proc, "unknown setting")
    proc = run("gcg", "rescore", "--game", "scrabble3", "--tileset", "en", str(write(tmp_path, "t.gcg", GAME)))
    assert_one_line_error(proc, "super3")
