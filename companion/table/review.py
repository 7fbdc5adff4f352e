"""After the game: each move's best alternative by the game's own move generator (its ``hint``
hook in the registry) and the points the move left on the table.

The rack a move was chosen from is known only where the game's record has it (the racks are
tracked: a game without a camera, or a computer's seat); at a real table the racks are private,
and then the alternative is the best play of the tiles the move put down (the same tiles laid
better), said so; a pass or an exchange without its rack has no alternative. A play that came
off scored nothing, so all its alternative's points were left on the table.

Pure: the job is made from the record and the move list as they are at the game's end and runs
wherever its caller likes (the hub runs it beside the game thread: it takes seconds)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from companion.core.errors import CompanionError, one_line
from companion.core.gcg import GameRecord, tiles_played

# hint(record, turn, rack) -> the hook's report (companion.table.hints.HintReport)
Hint = Callable[[GameRecord, int, str], Any]

# The move list's rows that are turns of the record (a play, a pass, an exchange: GCG's
# Play, Pass and Exchange lines, counted from 1 as `companion hint` counts them).
TURNS = ("play", "pass", "turn-lost", "exchange")


def review_moves(record: GameRecord, rows: Sequence[dict[str, Any]], hint: Hint,
                 stopped: Callable[[], bool] = lambda: False) -> dict[str, Any]:
    """One entry per row of the move list (None for a row that is no turn): the rack looked at
    and whether it was the player's whole rack, the best play found, what the move scored, the
    points left; and each player's points left in all. ``stopped`` is asked before each move
    (the companion stopping): then ``{"state": "stopped"}``."""
    moves: list[dict[str, Any] | None] = []
    left: dict[int, int] = {}
    known = 0
    turn = 0
    for i, row in enumerate(rows):
        if stopped():
            return {"state": "stopped"}
        if row.get("kind") not in TURNS:
            moves.append(None)
            continue
        turn += 1
        if row.get("unreviewed"):
            # A turn of the record the game's generator does not weigh (Scrabble III's final-racks
            # round, played with another's rack for a bonus): counted, not compared.
            moves.append({"turn": turn, "rack": "", "whole_rack": False, "scored": int(row.get("points", 0)),
                          "came_off": False, "best": None, "left": None, "unreviewed": row["unreviewed"]})
            continue
        # A play that came off: the next row withdraws it (classic), or the row says so itself.
        came_off = row["kind"] == "play" and (row.get("came_off") or (
            i + 1 < len(rows) and rows[i + 1].get("kind") == "withdrawn"))
        scored = 0 if came_off or row["kind"] != "play" else int(row.get("points", 0))
        rack, whole = row.get("rack") or "", True
        if not rack and row["kind"] == "play":
            rack, whole = tiles_played(row.get("word", "")), False
        entry: dict[str, Any] = {"turn": turn, "rack": rack, "whole_rack": whole and bool(rack),
                                 "scored": scored, "came_off": came_off, "best": None, "left": None}
        if rack:
            try:
                report = hint(record, turn, rack)
            except CompanionError as exc:
                entry["note"] = one_line(str(exc))
            else:
                best = report.moves[0] if report.moves else None
                if best is not None:
                    entry["best"] = {"position": best["position"], "word": best["word"],
                                     "shown": best.get("shown", best["word"]), "score": best["score"]}
                # A play the generator does not know (a word off its list) may outscore its best.
                entry["left"] = max(0, (best["score"] if best else 0) - scored)
                left[row["player"]] = left.get(row["player"], 0) + entry["left"]
                known += whole
        moves.append(entry)
    return {"state": "done", "moves": moves, "left": {str(k): v for k, v in sorted(left.items())},
            "whole_racks": known}
