"""The screen's fold, without a broker: repeats dropped, early events held until the chain
reaches them, a retained game filling a gap, the standings and the results."""

from __future__ import annotations

import csv
import io
import random

from companion.venue.screen import Screen, results_csv, standings


def event(seq: int, prev: int, game: str = "g1", kind: str = "entry") -> dict:
    return {"table": 1, "seq": seq, "prev": prev, "game": game, "kind": kind, "payload": {}, "at_ms": seq,
            "wall_ms": 1000 + seq}


def chain(seqs: list[int], game: str = "g1") -> list[dict]:
    return [event(s, p, game) for p, s in zip([0] + seqs[:-1], seqs)]


def seqs_of(screen: Screen, table: int = 1, game: str = "g1") -> list[int]:
    return [e["seq"] for e in screen.tables[table].games[game].log]


def test_every_order_and_every_repeat_gives_the_log_once_in_order():
    log = chain([1, 2, 5, 6, 9, 10, 11])  # the log's seqs need not be consecutive
    rng = random.Random(3)
    for _ in range(200):
        heard = log + rng.sample(log, 4)  # some heard twice
        rng.shuffle(heard)
        screen = Screen("ev")
        for body in heard:
            screen.heard_log(1, body, 5000)
        assert seqs_of(screen) == [1, 2, 5, 6, 9, 10, 11]
        assert not screen.tables[1].waiting


def test_a_retained_game_fills_a_gap_and_releases_what_waited():
    log = chain([1, 2, 3, 4, 5, 6])
    screen = Screen("ev")
    for body in (log[0], log[4], log[5]):  # 2, 3, 4 lost with a broker that died
        screen.heard_log(1, body, 5000)
    assert seqs_of(screen) == [1]
    state = {"game": "g1", "seq": 4, "players": [{"name": "Ann", "score": 10}, {"name": "Ben", "score": 3}],
             "log": log[:4]}
    screen.heard_game(1, "g1", state, 6000)
    assert seqs_of(screen) == [1, 2, 3, 4, 5, 6]
    assert screen.tables[1].games["g1"].state["players"][0]["score"] == 10
    # An older state never replaces a newer one.
    screen.heard_game(1, "g1", {**state, "seq": 2, "players": [], "log": log[:2]}, 6000)
    assert screen.tables[1].games["g1"].state["players"][0]["score"] == 10
    assert seqs_of(screen) == [1, 2, 3, 4, 5, 6]


def test_a_late_screen_takes_a_table_from_its_games_and_then_the_live_chain():
    old, new = chain([1, 2, 3], "g1"), [event(4, 3, "g2"), event(5, 4, "g2")]
    screen = Screen("ev")
    screen.heard_log(1, new[1], 7000)  # live, before the retained games arrived
    screen.heard_game(1, "g1", {"game": "g1", "seq": 3, "log": old}, 7000)
    screen.heard_game(1, "g2", {"game": "g2", "seq": 4, "log": new[:1]}, 7000)
    assert seqs_of(screen, game="g1") == [1, 2, 3] and seqs_of(screen, game="g2") == [4, 5]
    assert screen.tables[1].current().id == "g2"


def test_what_is_not_an_event_is_ignored():
    screen = Screen("ev")
    for junk in (None, [], {"seq": "1"}, {"seq": 1, "prev": 1, "game": "g"}, {"seq": 2, "prev": -1, "game": "g"}):
        screen.heard_log(1, junk, 0)
    screen.heard_game(1, "g1", {"game": "other", "seq": 1}, 0)
    assert all(not t.games for t in screen.tables.values())


def _game(screen: Screen, table: int, gid: str, rnd: int, a: tuple[str, int], b: tuple[str, int], over: bool) -> None:
    screen.heard_game(table, gid, {"game": gid, "seq": 1, "round": rnd, "over": over, "gcg": f"#game {gid}\n",
                                   "players": [{"name": a[0], "score": a[1]}, {"name": b[0], "score": b[1]}],
                                   "log": []}, 0)


def test_standings_count_finished_games_wins_and_spread_per_round():
    screen = Screen("ev")
    _game(screen, 1, "a", 1, ("Ann", 400), ("Ben", 350), True)
    _game(screen, 2, "b", 1, ("Cy", 300), ("Dee", 300), True)
    _game(screen, 1, "c", 2, ("Ann", 380), ("Cy", 420), True)
    _game(screen, 2, "d", 2, ("Ben", 200), ("Dee", 100), False)  # in progress: shown, not counted
    rows = {r["name"]: r for r in standings(screen.games())}
    assert (rows["Ann"]["wins"], rows["Ann"]["spread"]) == (1.0, 10)
    assert (rows["Cy"]["wins"], rows["Cy"]["spread"]) == (1.5, 40)
    assert (rows["Dee"]["wins"], rows["Dee"]["spread"]) == (0.5, 0)
    assert (rows["Ben"]["wins"], rows["Ben"]["spread"], rows["Ben"]["played"]) == (0.0, -50, 1)
    assert rows["Ben"]["rounds"]["2"]["result"] == "…"
    assert [r["name"] for r in standings(screen.games())][:2] == ["Cy", "Ann"]
    rows_csv = list(csv.DictReader(io.StringIO(results_csv(screen.games()))))
    assert len(rows_csv) == 8
    ann2 = next(r for r in rows_csv if r["player"] == "Ann" and r["round"] == "2")
    assert (ann2["result"], ann2["spread"], ann2["opponent"]) == ("loss", "-40", "Cy")
