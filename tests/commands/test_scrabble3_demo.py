"""`companion demo --game scrabble3 --headless --sim-time`: a whole Scrabble III game at the
simulated table, every verdict and total as computed by hand in companion/data/scrabble3_demo.gcg:
once on rendered photos of the 21x21 board (plain wings) read by the real reader, a Q face down
among them (the camera knows the set's backs, as a Scrabble III table is calibrated), and once
on the board's truth (fast: the rules and the table, not the reader)."""

from __future__ import annotations

import json

import pytest

from tests.commands.test_gcg_cli import run

# Each judged turn: (verdict kinds, points), by hand:
#  DREAMY 12 x2 + 6-tiler 20 = 44; DREAMILY (Y picked off M11) 18 + stretch by 2, 30 = 48;
#  BEAKER with a Q face down for the A on J12 (DL): 6 + 1 + 0 + 5 + 1 + 1 = 14;
#  BEAKERS after bob swaps his A for it: 3+1+1+5+1+1+2 = 14; JOKERS 17 x2 + J 10 = 44;
#  ANOREXIA 7-tiler 50 + X in 8 letters 30 + ANOREXIA 48 + BI (B capped at 2) 3 = 131;
#  DREAMILYE invalid: comes off; both pass; racks told; bob plays JOCKEY with ann's rack:
#  44 + J 10 + 50 = 104; ann's DREAMILYE with bob's rack costs 15; racks -21 and -26.
TURNS = [
    (["played"], 44), (["played"], 48), (["played"], 14), (["played"], 14), (["played"], 44),
    (["played"], 131), (["invalid"], 0), (["passed"], 0), (["passed"], 0), (["final-racks"], 104),
    (["final-racks-invalid", "game-over"], -15),
]


@pytest.mark.parametrize("camera", ["rendered photos", "truth readings"])
def test_a_whole_scrabble3_game_at_the_simulated_table(tmp_path, camera):
    summary = tmp_path / "summary.json"
    truth = ["--truth-readings"] if camera == "truth readings" else []
    proc = run("demo", "--game", "scrabble3", "--headless", "--sim-time", *truth,
               "--data-dir", str(tmp_path / "data"), "--summary", str(summary), timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "final 66, 271; PPT 11.0, 67.75"
    # The Q lies face down on J12, and the camera saw it so (a blank, rule 12).
    assert [line for line in proc.stdout.splitlines() if "face down" in line] == [
        "ann: J10 B.aKER                  played                 Ann 58, Bob 48 (face down: J12)"]
    doc = json.loads(summary.read_text(encoding="utf-8"))
    assert doc["over"] and doc["scores"] == [66, 271]
    rows = [r for r in doc["history"] if r["kind"] != "blank-swapped"]
    assert [(r["kind"], r["points"]) for r in rows] == [
        (kinds[0], points) for kinds, points in TURNS]
    bonuses = [r.get("bonuses") for r in rows]
    assert bonuses[1]["stretch"] == 30 and rows[1]["pick_off"] == ["M11"]
    assert rows[2]["flipped"] == [] and rows[3]["swaps"] == ["J12"]  # the face-down Q swapped for
    assert bonuses[4]["jqxz"] == 10 and bonuses[5]["jqxz"] == 30 and bonuses[5]["capped"] == 1
    assert bonuses[5]["big_play"] == 50
    # The table's record of the game is a Scrabble III record that rescores exactly.
    record = tmp_path / "table.gcg"
    record.write_text(doc["gcg"], encoding="utf-8")
    proc = run("gcg", "rescore", "--game", "scrabble3", str(record))
    assert proc.returncode == 0, proc.stdout
    lines = proc.stdout.splitlines()
    assert any("picked off M11, stretch by 2 30" in line for line in lines)
    assert any("final racks: 54 + 50" in line for line in lines)
