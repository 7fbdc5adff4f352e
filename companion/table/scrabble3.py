"""Scrabble III at the table: :class:`Scrabble3Session` (the rules of
:mod:`companion.rules.scrabble3` with the classic game's clocks, the camera's inference of
:mod:`companion.table.scrabble3_inference`, the game log) and its page view
(:func:`scrabble3_document`: the 21x21 board, every play's bonuses apart, PPT, the
final-racks round).

The log holds the game's start, its actions (JSON, :func:`action_json`), the page's
corrections of a misread square and the director's rulings on a play (:class:`Ruled`), as the
classic game's log does; the state is their fold, so an undo drops the last of them and folds
again. Racks are private at a real
table: their sizes follow from the draws, and the racks left when regular play ends are told
on the page (the ``racks`` action: ``AEI,CEJKO``) before the final-racks round. A game the
companion deals (``deal``) tracks every tile.

A press is a player's clock button, as in the classic game: the camera's stable board is then
judged. In the final-racks round a press with new tiles is the attempt with the other's rack
(the tiles then come off: the board stays as it was); a press without is a decline.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from collections.abc import Callable, Container, Sequence
from typing import Any

from companion.clock.engine import ClockGroup
from companion.core.board import Coord, Tile
from companion.core.gcg import printable_name
from companion.core.move import PlacedTile, Placement, format_square, notation_of
from companion.rules import scrabble3 as s3
from companion.table.classic import DECISIONS, ClassicSession, Ruling, challenger, correction, press_ignored
from companion.table.entries import Corrected
from companion.table.scrabble3_inference import infer_scrabble3
from companion.table.session import MAX_NAME, UNREADABLE, ActionError, LoggedGame, time_control
from companion.table.snapshot import SCHEMA, VERDICTS_SHOWN, layout_json, squares_json, words_json
from companion.table.store import GameStore, StoredEvent

LOG_KIND = "scrabble3"


@dataclass(frozen=True)
class Ruled:
    """A play the director ruled on (rule 1's dictionary is a college dictionary; the house
    list stands in for it and the director overrules it): its words good (``valid``) or not."""

    action: s3.Play
    valid: bool
    words: tuple[str, ...]
    by: int


Step = s3.Action | Corrected | Ruled  # what the game's state is the fold of


def action_json(action: s3.Action) -> dict[str, Any]:
    if isinstance(action, s3.Play):
        return {"kind": "play", "tiles": [[t.row, t.col, t.letter, t.blank] for t in action.placement.tiles],
                "pick_off": [list(s) for s in action.pick_off], "swaps": [list(s) for s in action.swaps],
                "flipped": [[s[0], s[1], f] for s, f in action.flipped]}
    if isinstance(action, s3.SwapBlank):
        return {"kind": "swap", "square": list(action.square)}
    if isinstance(action, s3.Exchange):
        return {"kind": "exchange", "tiles": action.tiles}
    if isinstance(action, s3.RevealRacks):
        return {"kind": "racks", "racks": list(action.racks)}
    return {"kind": {s3.Pass: "pass", s3.Decline: "decline"}[type(action)]}


def action_from_json(data: dict[str, Any]) -> s3.Action:
    kind = data["kind"]
    if kind == "play":
        return s3.Play(
            Placement.of(PlacedTile(r, c, letter, blank) for r, c, letter, blank in data["tiles"]),
            pick_off=tuple(tuple(s) for s in data["pick_off"]),  # type: ignore[misc]
            swaps=tuple(tuple(s) for s in data["swaps"]),  # type: ignore[misc]
            flipped=tuple(((r, c), f) for r, c, f in data["flipped"]),
        )
    if kind == "swap":
        return s3.SwapBlank(tuple(data["square"]))  # type: ignore[arg-type]
    if kind == "exchange":
        return s3.Exchange(data["tiles"])
    if kind == "racks":
        return s3.RevealRacks(tuple(data["racks"]))
    return {"pass": s3.Pass, "decline": s3.Decline}[kind]()


class Scrabble3Session(LoggedGame):
    """Scrabble III at one table: the rules, the clocks, the camera's turns, the log."""

    game = "scrabble3"
    grid = s3.LAYOUT.rows

    def __init__(self, store: GameStore | None, names: Sequence[str] = ("Player 1", "Player 2"), *,
                 control: Any = "tournament", seed: int | None = None, deal: bool = False,
                 stretch: str = s3.StretchTable.TABLE.value, final_racks: bool = True, scoop: int = 100,
                 now_ms: int = 0,
                 lexicon_for: Callable[[str], Container[str]] | None = None, _replaying: bool = False) -> None:
        if lexicon_for is None:
            from companion.lexicon import load_lexicon

            lexicon_for = load_lexicon
        self.lexicon_for = lexicon_for
        self.store = store
        self._replaying = _replaying
        self.ref: int | None = None
        self.last_ref = -1
        self.revision = 0
        self.feed: list[dict[str, Any]] = []
        self._feed_seq = 0
        self.seen: dict[Coord, dict[str, Any]] = {}
        self.heights: dict[Coord, int] = {}
        self.preview = None
        self.questions: list[str] = []
        self.pending_press: dict[str, int] | None = None
        self._start(now_ms, names=names, control=control, seed=seed, deal=deal, stretch=stretch,
                    final_racks=final_racks, scoop=scoop)

    # -- what the table knows --

    @property
    def tileset_name(self) -> str:
        return s3.TILESET

    @property
    def seats(self) -> int:
        return len(self.state.players)

    @property
    def lexicon(self) -> Container[str]:
        try:
            return self.lexicon_for(s3.TILESET)
        except Exception as exc:  # a list that cannot load: the page says why
            raise ActionError(str(exc), 409) from None

    # The clocks follow the rules as the classic game's do: one piece of code.
    clock_view = ClassicSession.clock_view
    _sync_clock = ClassicSession._sync_clock
    _say = ClassicSession._say

    # -- starting --

    def _start(self, now_ms: int, *, names: Any, control: Any, seed: Any, deal: Any, stretch: Any,
               final_racks: Any, scoop: Any = 100) -> None:
        if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
            raise ActionError("names: a list of 2 to 4 display names")
        names = tuple(" ".join(n.split()) for n in names)
        if any(not n or len(n) > MAX_NAME for n in names):
            raise ActionError(f"a display name has 1 to {MAX_NAME} characters")
        if stretch not in [m.value for m in s3.StretchTable]:
            raise ActionError(f"stretch: one of {', '.join(m.value for m in s3.StretchTable)}")
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
            raise ActionError("seed: a whole number")
        if not isinstance(scoop, int) or isinstance(scoop, bool):
            raise ActionError("scoop: the number of tiles drawn from the 298 for the game")
        label, control_value = time_control(control)
        options = s3.Scrabble3Options(stretch=s3.StretchTable(stretch), swap_final_racks=bool(final_racks), scoop=scoop)
        try:
            state = s3.new_game(names, options, seed=seed, track_tiles=bool(deal))
        except Exception as exc:
            raise ActionError(str(exc)) from None
        self.lexicon  # noqa: B018 - a list that cannot load fails here, before anything changes
        self.settings = {"names": list(names), "control": control, "seed": seed, "deal": bool(deal),
                         "stretch": stretch, "final_racks": bool(final_racks), "scoop": scoop}
        self.start_state = state
        self.state = state
        self.actions: list[Step] = []
        self.corrected: dict[Coord, int] = {}  # squares set right on the page -> their step
        self.history_rows: list[dict[str, Any]] = []
        self.clocks = ClockGroup.of(control_value, len(names)) if control_value is not None else None
        self.control_label = label
        self._clock_now = now_ms
        self.game_id = f"s3-{seed:x}-{now_ms:x}"
        self.revision += 1
        self._store_event(LOG_KIND, {"settings": self.settings}, now_ms)
        self._say("new-game", None, f"New Scrabble III game: {' v '.join(names)} ({label})")

    def new_game(self, now_ms: int, **settings: Any) -> None:
        merged = {**self.settings, **{k: v for k, v in settings.items() if v is not None}}
        merged["deal"] = merged.get("deal", False)
        self._start(now_ms, **{k: merged[k] for k in ("names", "control", "seed", "deal", "stretch", "final_racks",
                                                      "scoop")})

    # -- acting --

    def act(self, now_ms: int, action: s3.Action, by: str = "table") -> tuple[s3.Verdict, ...]:
        """One action by the player to move; a refusal changes nothing (ActionError)."""
        out = s3.apply(self.state, action, self.lexicon)
        if len(out.verdicts) == 1 and out.verdict.kind is s3.VerdictKind.REFUSED:
            raise ActionError(out.verdict.message)
        self._store_event("s3-action", {"action": action_json(action), "by": by}, now_ms)
        self.actions.append(action)
        self._took(self.state, action, out)
        self._sync_clock(now_ms)
        return out.verdicts

    def _fold(self, state: s3.Scrabble3State, step: Step) -> s3.Outcome | s3.Scrabble3State:
        """One step onto ``state``: an action's outcome, or the board a correction leaves."""
        if isinstance(step, Corrected):
            faces = {sq: f for sq, f in state.faces if sq != step.square}
            if step.tile is not None and step.tile.blank:
                faces[step.square] = s3.BLANK  # a blank set right: which tile lies under it is not known
            board = state.board.without([step.square])
            if step.tile is not None:
                board = board.with_tiles([(step.square, step.tile)])
            return replace(state, board=board, faces=tuple(sorted(faces.items())))
        if isinstance(step, Ruled):
            return s3.apply(state, step.action, Ruling(self.lexicon, step.words, step.valid))
        return s3.apply(state, step, self.lexicon)

    def _took(self, before: s3.Scrabble3State, action: s3.Action, out: s3.Outcome) -> None:
        self.state = out.state
        for v in out.verdicts:
            more: dict[str, Any] = {}
            if v.score is not None:
                more = {"bonuses": v.score.breakdown(), "stretched_by": v.score.stretched_by}
                if isinstance(action, s3.Play):
                    more.update(_notation(before, action, v.score))
            self._say(v.kind.value, v.player, v.message, points=v.points, **more)
            if v.kind in (s3.VerdictKind.PLAYED, s3.VerdictKind.INVALID, s3.VerdictKind.FINAL_RACKS,
                          s3.VerdictKind.FINAL_RACKS_INVALID, s3.VerdictKind.PASSED, s3.VerdictKind.EXCHANGED,
                          s3.VerdictKind.BLANK_SWAPPED, s3.VerdictKind.DECLINED):
                if isinstance(action, s3.SwapBlank):
                    more["square"] = format_square(action.square)
                self.history_rows.append({"player": v.player, "kind": v.kind.value, "message": v.message,
                                          "points": v.points, **more})

    def enter_racks(self, now_ms: int, tiles: Any) -> None:
        """The racks left when regular play ended, in seat order: the page's racks form (a list,
        one string a player) or the organiser's ``racks`` action (comma apart)."""
        if self.state.phase is not s3.Phase.RACKS:
            raise ActionError("the racks are told when regular play is over", 409)
        if isinstance(tiles, list) and all(isinstance(t, str) for t in tiles):
            racks = tuple(t.strip() for t in tiles)
        elif isinstance(tiles, str):
            racks = tuple(x.strip() for x in tiles.split(","))
        else:
            raise ActionError("racks: one string of tiles a player, like [\"AEI\", \"CEJKO\"] or AEI,CEJKO")
        self.act(now_ms, s3.RevealRacks(racks), by="admin")

    def undo(self, now_ms: int) -> None:
        """The last step undone: an action, a correction, or the director's ruling on a play
        (the play then stands as the house list judged it)."""
        if not self.actions:
            raise ActionError("nothing to undo", 409)
        self._store_event("s3-undo", {}, now_ms)
        last = self.actions[-1]
        self._fold_again(self.actions[:-1] + ([last.action] if isinstance(last, Ruled) else []))
        what = {Corrected: "correction", Ruled: "ruling"}.get(type(last), "action")
        self._say("undone", None, f"The last {what} is undone")
        self._sync_clock(now_ms)

    def _fold_again(self, steps: list[Step]) -> None:
        self.state, self.actions, self.history_rows, self.corrected = self.start_state, [], [], {}
        feed, seq = self.feed, self._feed_seq
        for step in steps:
            self._step(step)
        self.feed, self._feed_seq = feed, seq  # what was said stays said

    def _step(self, step: Step) -> None:
        out = self._fold(self.state, step)
        self.actions.append(step)
        if isinstance(out, s3.Scrabble3State):
            self.state = out
            assert isinstance(step, Corrected)
            self.corrected[step.square] = len(self.actions) - 1
            what = step.tile.gcg if step.tile is not None else "empty"
            self._say("correction", None, f"Correction: {format_square(step.square)} is {what}")
            return
        self._took(self.state, step.action if isinstance(step, Ruled) else step, out)  # type: ignore[arg-type]

    def _last_play(self) -> s3.Play | None:
        """The last step's play (ruled on or not), None when the last step is no play."""
        last = self.actions[-1] if self.actions else None
        play = last.action if isinstance(last, Ruled) else last
        return play if isinstance(play, s3.Play) else None

    def correct(self, now_ms: int, square: str, letter: str | None, blank: bool = False) -> None:
        """A misread square set right on the page, as in the classic game: a letter (a blank
        standing for it), or empty. The board changes; no score does (undo the move and press
        again for that)."""
        fix = correction(self.state.board, self.state.tileset, self.seen, square, letter, blank)
        self._store_event("s3-correct", {"square": list(fix.square),
                                         "tile": None if fix.tile is None else [fix.tile.letter, fix.tile.blank]},
                          now_ms)
        self._step(fix)
        self._sync_clock(now_ms)

    def rule_challenge(self, now_ms: int, decision: str, by: int | None = None) -> None:
        """The director's ruling on the last play, as in the classic game (``valid``: its words
        stand, ``phony``: they are not words; ``dictionary``: the house list decides, as it did
        when the play was judged). Scrabble III checks every word when played (rule 2, good
        words only), against the house list standing in for rule 1's college dictionary: a
        ruling overrules the list for the play's words, and the play is judged again (a phony
        comes off and scores nothing; a good one scores). A challenge costs nothing."""
        if decision not in DECISIONS:
            raise ActionError("decision: dictionary, valid or phony")
        play = self._last_play()
        row = next((r for r in reversed(self.history_rows) if "position" in r), None)
        if play is None or row is None:
            raise ActionError("there is no play to challenge: the last action is not a play", 409)
        player = row["player"]
        by = challenger(by, player, len(self.state.players))
        stood = _stands(self.history_rows)
        words = ", ".join(w["word"] for w in row["words"])
        if decision == "dictionary":
            raise ActionError(f"the house list judged {words} when it was played: "
                              f"{'it stands' if stood else 'it came off'}", 409)
        ruled = Ruled(play, decision == "valid", tuple(w["word"] for w in row["words"]), by)
        kept = self.state, list(self.actions), list(self.history_rows), dict(self.corrected)
        self._fold_again(self.actions[:-1] + [ruled])
        if _stands(self.history_rows) == stood:
            self.state, self.actions, self.history_rows, self.corrected = kept
            why = "its words stand" if stood else "the rules refuse it whatever its words"
            raise ActionError(f"the ruling changes nothing: {why}", 409)
        self._store_event("s3-ruling", {"decision": decision, "by": by, "words": list(ruled.words)}, now_ms)
        self._say("ruling", by, f"Ruled {'good' if ruled.valid else 'phony'}: {words}")
        self._sync_clock(now_ms)

    # -- the clocks --

    def tick(self, now_ms: int) -> None:
        ClassicSession.tick(self, now_ms)  # type: ignore[arg-type]

    def pause(self, now_ms: int) -> None:
        ClassicSession.pause(self, now_ms)  # type: ignore[arg-type]
        self._store_event("clock", {"op": "pause", "player": None}, now_ms)

    def resume(self, now_ms: int) -> None:
        ClassicSession.resume(self, now_ms)  # type: ignore[arg-type]
        self._store_event("clock", {"op": "resume", "player": None}, now_ms)

    def press(self, player: int, at_ms: int) -> str:
        """A player's clock button: ``start``, ``judge`` (now look at the board) or ``ignored: why``."""
        state, clocks = self.state, self.clocks
        ignored = press_ignored(state, self.pending_press, player)
        if ignored:
            return ignored
        if clocks is not None and not any(c.on_move is not None for c in clocks.clocks):
            self.resume(at_ms)
            return "start"
        if player != state.to_move:
            return "ignored: not on move"
        if clocks is not None:
            if clocks.paused:
                return "ignored: the clock is paused"
            clocks.press(player, at_ms)
            self._store_event("clock", {"op": "press", "player": player}, at_ms)
        self.pending_press = {"player": player, "at": at_ms}
        return "judge"

    def judge(self, now_ms: int, reading: Any) -> dict[str, Any]:
        """The verdict on the pending press from the camera's stable board."""
        press = self.pending_press
        if press is None:
            return {"kind": "nothing to judge"}
        self.pending_press = None
        player = press["player"]
        if reading is None:
            return self._question(now_ms, player, [UNREADABLE])
        state = self.state
        inferred = infer_scrabble3(state.board, reading.cells, state.tileset, self.lexicon)
        if inferred.questions:
            return self._question(now_ms, player, list(inferred.questions))
        actions: list[s3.Action] = []
        if inferred.placement is not None:
            play = inferred.action()
            assert isinstance(play, s3.Play)
            rack = state.players[player].rack if state.phase is s3.Phase.PLAY else (
                state.end_racks[1 - player] if state.end_racks else None)
            if rack is not None:
                play = replace(play, flipped=_flipped(state, play, rack, inferred.face_down))
            actions.append(play)
        else:
            actions += [s3.SwapBlank(sq) for sq in inferred.swaps]
            actions.append(s3.Decline() if state.phase is s3.Phase.FINAL_RACKS else s3.Pass())
        verdicts: list[str] = []
        for action in actions:
            try:
                verdicts += [v.kind.value for v in self.act(now_ms, action)]
            except ActionError as exc:
                return self._question(now_ms, player, [str(exc)])
        self.questions = list(inferred.asked)
        for q in inferred.asked:  # the move stands; the blank's letter is asked (undo to change it)
            self._say("question", player, q)
        return {"kind": "move" if inferred.placement is not None else "no tiles", "verdicts": verdicts,
                "questions": list(inferred.asked), "face_down": [format_square(sq) for sq in inferred.face_down]}

    def _question(self, at: int, player: int, questions: list[str]) -> dict[str, Any]:
        self.questions = list(questions)
        for q in questions:
            self._say("question", player, q)
        self._store_event("question", {"player": player, "questions": questions}, at)
        self._sync_clock(at)  # the turn is not over: the clock goes back to the player
        return {"kind": "question", "questions": questions}

    # -- the record --

    def gcg(self) -> str:
        """The game as a Scrabble III GCG record (docs/scrabble3.md): every turn, with the note
        lines for pick-offs, blank swaps and the final-racks round; ``companion gcg rescore
        --game scrabble3`` scores it again."""
        nick = [f"p{i + 1}" for i in range(len(self.state.players))]
        lines = ["#character-encoding UTF-8"]
        lines += [f"#player{i + 1} {nick[i]} {printable_name(p.name)}" for i, p in enumerate(self.state.players)]
        lines.append("#scrabble3" + (f" stretch={self.settings['stretch']}" if self.settings["stretch"] != "table" else ""))
        totals = [0] * len(nick)
        swaps: list[str] = []
        for row in self.history_rows:
            i, kind = row["player"], row["kind"]
            if kind == "blank-swapped":
                swaps.append(row["square"])
                continue
            notes = [f"#note scrabble3: swap-blank {sq}" for sq in swaps]
            swaps = []
            if "position" in row:
                notes += [f"#note scrabble3: swap-blank {sq}" for sq in row["swaps"]]
                notes += [f"#note scrabble3: pick-off {' '.join(row['pick_off'])}"] if row["pick_off"] else []
                notes += [f"#note scrabble3: flipped {f} {sq}" for sq, f in row["flipped"]]
                would = row["bonuses"]["total"]
                if kind == "final-racks":
                    notes.append("#note scrabble3: final-racks")
                if kind == "final-racks-invalid":
                    notes.append("#note scrabble3: final-racks invalid")
                points = 0 if kind == "final-racks-invalid" else row["points"] if kind != "invalid" else would
                totals[i] += points
                lines.append(f">{nick[i]}: {row['position']} {row['word']} +{points} {totals[i]}")
                lines += notes
                if kind in ("invalid", "final-racks-invalid"):
                    totals[i] -= would
                    lines.append(f">{nick[i]}: -- -{would} {totals[i]}")
            elif kind in ("passed", "declined", "exchanged"):
                lines.append(f">{nick[i]}: - +0 {totals[i]}")
                lines += notes
        return "\n".join(lines) + "\n"

    def review_rows(self) -> list[dict[str, Any]]:
        """The move list as the review after the game reads it (:mod:`companion.table.review`),
        row for row: the turns :meth:`gcg` writes as Play and Pass lines, in its order. A play
        that came off says so itself (the record's withdrawal line is no row here); the
        final-racks round is counted, not weighed (its bonus is no choice of the generator's)."""
        rows: list[dict[str, Any]] = []
        for row in self.history_rows:
            kind = row["kind"]
            out = {"player": row["player"], "points": row["points"]}
            if kind in ("played", "invalid"):
                out.update(kind="play", position=row["position"], word=row["word"], came_off=kind == "invalid")
            elif kind in ("final-racks", "final-racks-invalid"):
                out.update(kind="play", position=row["position"], word=row["word"],
                           unreviewed="the final-racks round: not compared")
            elif kind in ("passed", "declined"):
                out.update(kind="pass")
            elif kind == "exchanged":
                out.update(kind="exchange")
            else:  # a blank swapped on its own: no line of the record
                out.update(kind=kind)
            rows.append(out)
        return rows

    # -- restoring --

    @classmethod
    def restore(cls, store: GameStore, lexicon_for: Callable[[str], Container[str]] | None = None) -> Scrabble3Session | None:
        game = store.current_game()
        if game is None:
            return None
        events = store.events(game)
        if events[0].kind != LOG_KIND:
            return None
        settings = events[0].payload["settings"]
        session = cls(store, settings["names"], control=settings["control"], seed=settings["seed"],
                      deal=settings["deal"], stretch=settings["stretch"], final_racks=settings["final_racks"],
                      scoop=settings.get("scoop", 100), now_ms=events[0].at_ms, lexicon_for=lexicon_for, _replaying=True)
        session.game_id = game
        session._replay_events(events[1:])
        return session

    def _replay_event(self, e: StoredEvent) -> None:
        if e.kind == "s3-action":
            self.act(e.at_ms, action_from_json(e.payload["action"]), by=e.payload.get("by", "table"))
        elif e.kind == "s3-undo":
            self.undo(e.at_ms)
        elif e.kind == "s3-correct":
            r, c = e.payload["square"]
            tile = e.payload["tile"]
            self._step(Corrected((int(r), int(c)), None if tile is None else Tile(str(tile[0]), bool(tile[1]))))
        elif e.kind == "s3-ruling":
            # As it was ruled, whatever the word list says now (a table may import another).
            play = self._last_play()
            assert play is not None
            ruled = Ruled(play, e.payload["decision"] == "valid", tuple(e.payload["words"]), int(e.payload["by"]))
            self._fold_again(self.actions[:-1] + [ruled])
            self._sync_clock(e.at_ms)
        elif e.kind == "clock":
            op = e.payload["op"]
            if op == "press" and self.clocks is not None:
                self.clocks.press(e.payload["player"], e.at_ms)
            elif op in ("pause", "resume"):
                getattr(ClassicSession, op)(self, e.at_ms)


def _stands(rows: Sequence[dict[str, Any]]) -> bool:
    """Whether the last play in ``rows`` stood (scored), or came off."""
    row = next(r for r in reversed(rows) if "position" in r)
    return row["kind"] in (s3.VerdictKind.PLAYED.value, s3.VerdictKind.FINAL_RACKS.value)


def _flipped(state: s3.Scrabble3State, play: s3.Play, rack: Sequence[str],
             face_down: Sequence[Coord]) -> tuple[tuple[Coord, str], ...]:
    """Which of a dealt game's new blanks are JQXZ flipped (rule 12), and which letters. The
    camera sees a flipped tile as a blank either way: face down where the table knows the set's
    backs, as a face without ink (a blank face up) where it does not. A face-down one is surely
    a JQXZ; a face-up one is when the tiles the mover can lay (the rack, the tiles picked off,
    the tiles under the blanks swapped) hold no blank tile left for it."""
    board = state.board
    pool = list(rack) + [state.face(sq) if board[sq].blank else board[sq].letter  # type: ignore[union-attr]
                         for sq in play.pick_off] + [state.face(sq) for sq in play.swaps]
    spare = [t for t in pool if t in s3.JQXZ]
    for t in play.placement.tiles:
        if not t.blank and t.letter in spare:
            spare.remove(t.letter)
    blanks = [t.coord for t in play.placement.tiles if t.blank]
    down = [sq for sq in blanks if sq in face_down]
    up = [sq for sq in blanks if sq not in face_down]
    up_flipped = up[:max(0, len(up) - pool.count(s3.BLANK))]
    return tuple(zip(down + up_flipped, spare))


def _notation(before: s3.Scrabble3State, action: s3.Play, score: s3.Scrabble3Score) -> dict[str, Any]:
    """Where a play lies as GCG writes it, on the board before it (blanks swapped, tiles picked)."""
    board = before.board
    for sq in action.swaps:
        board = board.with_tiles([(sq, Tile(board[sq].letter))])  # type: ignore[union-attr]
    board = board.without(action.pick_off)
    position, word = notation_of(board, action.placement, score.words[0].word.direction)
    picked = set(action.pick_off)
    words = words_json(score.words, s3.capped_value(before.tileset),
                       lambda sq: None if sq in picked else board.layout.premium(sq))
    return {"position": position, "word": word, "words": words, "bonus": score.bonus,
            "squares": [list(t.coord) for t in action.placement.tiles], "pick_off": [format_square(s) for s in action.pick_off],
            "flipped": [(format_square(s), f) for s, f in action.flipped],
            "swaps": [format_square(s) for s in action.swaps]}


def _round_said(state: s3.Scrabble3State) -> str | None:
    """The final-racks round as the page's status line says it (rule 13)."""
    if state.phase is not s3.Phase.FINAL_RACKS or len(state.end_racks) != 2:
        return None
    me = state.to_move
    other = state.players[1 - me].name
    rack = "".join(state.end_racks[1 - me])
    return (f"swap final racks: {state.players[me].name} plays with {other}'s rack {rack} "
            f"(a good play +{s3.FINAL_RACKS_BONUS}, an invalid one costs its points), or presses to decline")


def scrabble3_document(session: Scrabble3Session, now_ms: int) -> dict[str, Any]:
    """The page's document: the 21x21 board, players with scores, clocks and PPT, each play's
    bonuses apart (big play, stretch, JQXZ, the cap), the final-racks round."""
    state = session.state
    tileset = state.tileset
    clock = session.clock_view(now_ms)
    winners = list(state.winners())
    players = []
    for i, p in enumerate(state.players):
        players.append({
            "index": i, "name": p.name, "score": p.score, "rack_size": p.rack_size,
            "rack": "".join(p.rack) if state.over and p.rack is not None else None,
            "end_adjustment": p.end_adjustment if state.over else 0,
            "on_move": not state.over and state.to_move == i, "winner": i in winners,
            "clock": clock["players"][i],
            "ppt": round(state.ppt(i), 1), "ppt_turns": state.ppt_turns(i),
            "final_racks": p.final_racks,
        })
    last = next((r for r in reversed(session.history_rows) if "position" in r), None)
    return {
        "schema": SCHEMA,
        "game": {
            "id": session.game_id, "name": "scrabble3", "title": "Scrabble III", "tileset": tileset.name,
            "challenge": "void", "turn": state.turn, "to_move": None if state.over else state.to_move,
            "bag": state.bag_size, "over": state.over, "awaiting_racks": state.phase is s3.Phase.RACKS,
            "winners": winners, "pending": None, "stacking": False, "reason": _round_said(state),
        },
        "board": {
            **layout_json(state.board.layout),
            "squares": squares_json(state.board, dict(tileset.values), session.seen, session.heights),
            "highlight": last["squares"] if last else [],
            "corrected": [list(c) for c in sorted(session.corrected)], "preview": None,
        },
        "players": players,
        "clock": {k: v for k, v in clock.items() if k != "players"},
        "last_move": last,
        "verdicts": list(reversed(session.feed[-VERDICTS_SHOWN:])),
        "history": session.history_rows,
        "scrabble3": {
            "phase": state.phase.value,
            "stretch_table": state.options.stretch.value,
            "final_racks": state.options.swap_final_racks,
            "questions": session.questions,
            "faces": [{"square": format_square(s), "tile": f} for s, f in state.faces if f != "?"],
        },
        "actions": [{"name": "racks", "label": "The racks left (comma apart)", "done": "Told."}]
        if state.phase is s3.Phase.RACKS else [],
    }

