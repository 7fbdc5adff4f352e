"""The move generator on real positions, and 200 self-play games of skill 5 against skill 1.

Positions: before every turn of every game in ``../shared/games`` (macondo and quackle in
English, scrabscrap in German), replayed by the rescorer; files it cannot replay, or whose tile
set has no word list, are skipped and listed. Racks per position: the recorded one where the
record gives it (blanks or not, it counts in its own class), and three drawn from the tiles
not on the board (seeded): none, one and two blanks. The time measured is what a fresh position
costs: the board's analysis (cross-checks, anchors) plus generating and scoring every legal
move (into the C walker's array). ``to_tuples`` adds turning them into Python tuples.

The graph is built in a fresh data directory first (build time, then load time from the cache).

``scrabble3``: Scrabble III hints (:mod:`companion.engine.scrabble3`) on the positions of
seeded self-play games of its computer player (a scoop of 100 of the 298 tiles each, the racks
as dealt): the time of every legal move found and scored (the walker per choice of flipped
JQXZ, per pick-off line, the Scrabble III scores) and the best five made readable, as
``companion hint --game scrabble3`` spends it; by the rack's wild tiles (J, Q, X, Z, blank).
``BENCH_ENGINE_ONLY=scrabble3 python -m bench engine`` runs that section alone and keeps the
rest of bench/engine.json as it was.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from unittest import mock

from companion.core.gcg import decode_gcg, parse_gcg
from companion.core.board import Board
from companion.core.tiles import BLANK, get_tileset
from companion.engine import dawg as dawg_module
from companion.engine import native
from companion.engine.hint import parse_rack, turns
from companion.engine.movegen import generator_for
from companion.engine.player import self_play
from companion.core.errors import CompanionError
from companion.lexicon import load_lexicon
from companion.rules.rescore import choose_tileset, rescore

GAMES_DIR = Path(__file__).resolve().parents[2] / "shared" / "games"
SEED = 7
SELF_PLAY_GAMES = 200
PYTHON_SAMPLE = 40  # positions also walked in pure Python, for the comparison


def _positions() -> tuple[list[tuple[str, str, Board, str]], list[dict]]:
    """(file, tileset, board, recorded rack) before every turn; and the files skipped."""
    out, skipped = [], []
    for path in sorted(GAMES_DIR.glob("*/*.gcg")):
        name = str(path.relative_to(GAMES_DIR))
        try:
            record = parse_gcg(decode_gcg(path.read_bytes(), name), name)
            choice = choose_tileset(record)
            if choice.name not in ("en", "de"):
                raise CompanionError(f"tile set {choice.name} has no word list")
            result = rescore(record, get_tileset(choice.name), name)
        except CompanionError as exc:
            skipped.append({"file": name, "why": str(exc)})
            continue
        boards = [Board()] + [r.board for r in result.events]
        for i in turns(record):
            event = record.events[i]
            out.append((name, choice.name, boards[i], event.rack))
    return out, skipped


def _synthetic(board: Board, tileset_name: str, blanks: int, rng: random.Random) -> str:
    tileset = get_tileset(tileset_name)
    unseen = tileset.bag()
    for _, t in board.items():
        unseen[BLANK if t.blank else t.letter] -= 1
    letters = [t for t in (+unseen).elements() if t != BLANK]
    if len(letters) < 7 - blanks:
        return ""
    return "".join(rng.sample(letters, 7 - blanks)) + BLANK * blanks


def _stats(times: list[float]) -> dict:
    if not times:
        return {"n": 0}
    ms = sorted(t * 1000 for t in times)
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 3),
        "p95_ms": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 3),
        "max_ms": round(ms[-1], 3),
    }


SCRABBLE3_GAMES = 12


def scrabble3_section() -> dict:
    from companion.engine.scrabble3 import generator_for as scrabble3_generator
    from companion.engine.scrabble3 import self_play as scrabble3_self_play

    load_before = os.getloadavg()
    lexicon = load_lexicon("super3")
    t = time.perf_counter()
    gen = scrabble3_generator(lexicon)
    load_s = time.perf_counter() - t
    positions: list = []
    scores = []
    t = time.perf_counter()
    for seed in range(SCRABBLE3_GAMES):
        state, _ = scrabble3_self_play(gen, lexicon, seed=seed, positions=positions)
        scores.append([p.score for p in state.players])
    play_s = time.perf_counter() - t
    classes: dict[str, list[float]] = {"all": [], "no_wild": [], "one_wild": [], "two_or_more_wild": []}
    counts: dict[str, list[int]] = {k: [] for k in classes}
    for board, rack, faces in positions:
        fresh = Board(board.layout, dict(board.items()))
        t = time.perf_counter()
        found = gen.scored(fresh, rack, faces)
        found.sort(key=lambda m: (-m[0], m[1][1:], m[2].squares if m[2] else ()))
        for _, raw, pick, used in found[:5]:
            gen.to_move(fresh, raw, pick, list(used))
        elapsed = time.perf_counter() - t
        wild = sum(1 for x in rack if x in "JQXZ?")
        cls = "no_wild" if wild == 0 else "one_wild" if wild == 1 else "two_or_more_wild"
        for k in ("all", cls):
            classes[k].append(elapsed)
            counts[k].append(len(found))
    stats = {k: _stats(v) for k, v in classes.items()}
    return {
        "summary": (
            f"Scrabble III hints median/p95 ms: all {stats['all'].get('median_ms')}/{stats['all'].get('p95_ms')}, "
            f"no wild {stats['no_wild'].get('median_ms')}/{stats['no_wild'].get('p95_ms')}, "
            f"one {stats['one_wild'].get('median_ms')}/{stats['one_wild'].get('p95_ms')}, "
            f"two+ {stats['two_or_more_wild'].get('median_ms')}/{stats['two_or_more_wild'].get('p95_ms')} "
            f"over {len(positions)} positions of {SCRABBLE3_GAMES} self-play games"
        ),
        "walker": "C" if native.library() is not None else "python",
        "positions": len(positions),
        "hints_all_moves_and_best_five": stats,
        "moves_per_position_median": {k: statistics.median(v) if v else 0 for k, v in counts.items()},
        "generator_load_s": round(load_s, 2),
        "self_play": {"games": SCRABBLE3_GAMES, "scores": scores, "seconds": round(play_s, 1),
                      "all_ended_legally": True},
        "load_average_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
    }


def run() -> dict:
    if os.environ.get("BENCH_ENGINE_ONLY", "") == "scrabble3":
        out = Path(__file__).resolve().parent / "engine.json"
        previous = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
        previous["scrabble3"] = scrabble3_section()
        previous.setdefault("summary", previous["scrabble3"]["summary"])
        return previous
    result = _classic()
    result["scrabble3"] = scrabble3_section()
    return result


def _classic() -> dict:
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as empty, mock.patch.dict(os.environ, {"COMPANION_DATA_DIR": empty}):
        graphs = {}
        gens = {}
        for ts in ("en", "de"):
            lexicon = load_lexicon(ts)
            dawg_module._MEMO.clear()
            t = time.perf_counter()
            generator_for(ts, lexicon)
            built = time.perf_counter() - t
            dawg_module._MEMO.clear()
            t = time.perf_counter()
            gen = generator_for(ts, lexicon)
            loaded = time.perf_counter() - t
            gens[ts] = (gen, lexicon)
            d = gen.dawg
            graphs[ts] = {
                "words": d.words,
                "nodes": d.nodes,
                "edges": d.edges,
                "file_bytes": len(dawg_module.to_bytes(d)),
                "memory_mb": round(d.memory_bytes() / 1e6, 1),
                "build_s": round(built, 2),
                "load_from_cache_ms": round(loaded * 1000, 1),
            }
        positions, skipped = _positions()
        rng = random.Random(SEED)
        classes: dict[str, list[float]] = {"no_blank": [], "one_blank": [], "two_blanks": []}
        recorded: list[float] = []
        tuples: list[float] = []
        moves_count: dict[str, list[int]] = {k: [] for k in classes}
        python_times: list[float] = []
        native_same: list[float] = []
        for n, (name, ts, board, rack_text) in enumerate(positions):
            gen = gens[ts][0]
            racks = []
            if rack_text:
                try:
                    racks.append(("recorded", parse_rack(rack_text, gen.tileset)))
                except CompanionError:
                    pass
            for blanks, cls in ((0, "no_blank"), (1, "one_blank"), (2, "two_blanks")):
                r = _synthetic(board, ts, blanks, rng)
                if r:
                    racks.append((cls, r))
            for cls, rack in racks:
                fresh = Board(board.layout, dict(board.items()))  # a new board: analysed afresh
                t = time.perf_counter()
                arr = gen.move_array(fresh, rack)
                if arr is None:
                    arr = gen.python_moves(fresh, rack)
                elapsed = time.perf_counter() - t
                if cls == "recorded":
                    recorded.append(elapsed)
                else:
                    classes[cls].append(elapsed)
                    moves_count[cls].append(len(arr))
                if cls == "no_blank":
                    t = time.perf_counter()
                    gen.raw_moves(fresh, rack)
                    tuples.append(time.perf_counter() - t)
                    if n % max(1, len(positions) // PYTHON_SAMPLE) == 0:
                        fresh2 = Board(board.layout, dict(board.items()))
                        t = time.perf_counter()
                        gen.python_moves(fresh2, rack)
                        python_times.append(time.perf_counter() - t)
                        native_same.append(elapsed)
        gen, lexicon = gens["en"]
        t = time.perf_counter()
        strong, weak, wins = [], [], 0
        for i in range(SELF_PLAY_GAMES):
            skills = (5, 1) if i % 2 == 0 else (1, 5)
            result = self_play(gen, lexicon, skills, seed=i)
            s5, s1 = result.scores if i % 2 == 0 else result.scores[::-1]
            strong.append(s5)
            weak.append(s1)
            wins += s5 > s1
        play_s = time.perf_counter() - t
    load_after = os.getloadavg()
    summary = {k: _stats(v) for k, v in classes.items()}
    return {
        "summary": (
            f"all moves median/p95 ms: no blank {summary['no_blank'].get('median_ms')}/"
            f"{summary['no_blank'].get('p95_ms')}, one {summary['one_blank'].get('median_ms')}/"
            f"{summary['one_blank'].get('p95_ms')}, two {summary['two_blanks'].get('median_ms')}/"
            f"{summary['two_blanks'].get('p95_ms')}; self-play skill 5 {statistics.mean(strong):.1f} "
            f"v skill 1 {statistics.mean(weak):.1f} over {SELF_PLAY_GAMES} games"
        ),
        "walker": "C" if native.library() is not None else "python",
        "positions": len(positions),
        "files_skipped": skipped,
        "generate_all_moves": summary,
        "recorded_racks": _stats(recorded),
        "no_blank_again_as_python_tuples_board_analysed": _stats(tuples),
        "pure_python_walker_no_blank": {"sample": _stats(python_times), "same_positions_native": _stats(native_same)},
        "moves_per_position_median": {k: statistics.median(v) if v else 0 for k, v in moves_count.items()},
        "graphs": graphs,
        "self_play": {
            "games": SELF_PLAY_GAMES,
            "skills": "5 v 1, first player alternating",
            "skill5_mean": round(statistics.mean(strong), 1),
            "skill1_mean": round(statistics.mean(weak), 1),
            "skill5_wins": wins,
            "all_ended_legally": True,
            "seconds": round(play_s, 1),
        },
        "load_average_before_after": [round(x, 2) for x in load_before[:1] + load_after[:1]],
    }
