"""Classic Scrabble for two to four players (rules/002_1128351f9cb4594a.txt), exactly.

The game is a value (:class:`ClassicState`) and a pure function (:func:`apply`) from a state
and an action to the next state and a :class:`Verdict`. Nothing here reads a clock, a file or a
random source: shuffles come from the seed the game was started with, so that replaying the
same actions gives the same game, tile for tile.

Decisions where the rules text is silent or old-fashioned, as a player at the table expects:

- **Racks.** When the companion runs the bag (computer players, a family game drawn on the
  phone), racks and bag are tracked tile by tile. At a real tournament board the racks are
  private: then only their sizes are tracked (they follow from the draws) and the remaining
  racks are told to the companion at the end (:class:`RevealRacks`).
- **Challenges.** ``void``: every word is checked when played; a word not in the dictionary is
  refused with the text's message and the player tries again, unless the optional rule *lose
  turn on challenge* is on, in which case the turn is lost. ``single``: a play stands unless
  challenged; a phony comes off and the turn is lost; a wrong challenge costs nothing.
  ``double``: as single, but a wrong challenge costs the challenger their next turn.
  ``five-points``: as single, but a wrong challenge gives the player 5 points per word
  challenged. Only the player's opponents may challenge, and only before the next player acts.
- **Exchanging.** The text lets a player discard as long as the pool holds at least as many
  tiles as are discarded; tournaments ask for at least seven tiles in the bag. Both are
  options (``exchange_min_bag``: None for the text's rule). Discarded tiles go back into the
  bag only after the new ones are drawn, as the text says.
- **Exchange four of a kind** (optional): with four or more of one letter on the rack (blanks
  are not letters), the player may exchange the whole rack and keep the turn; it is not a
  scoreless turn, since the turn is not over.
- **Trade blanks** (optional): on their turn, before playing, a player may put a tile from the
  rack on a blank that stands for the same letter and take the blank. The turn goes on.
- **End of game.** The game ends when a player with an empty bag plays out (once that play can
  no longer be challenged), when the bag is empty and every player has passed in succession
  (the text), or after six consecutive scoreless turns (the tournament convention). A
  scoreless turn is a pass, an exchange, a play that comes off, a turn lost to a double
  challenge, or a play scoring zero. Every player loses the value of their own rack; a player
  who went out gains the value of all the others' racks.
- **Ties.** "The player with the most points, before counting the unplayed tiles, wins"; a tie
  on both counts is a shared win.
- **First turn.** Every player draws a tile; the lowest starts, blanks lowest, then the tile
  set's alphabetical order (a letter with a diacritic right after its base, A < Ä < B). Players who
  tie for lowest draw again among themselves.
- **Word lengths.** The old program limited its dictionary to 2-12 letters; at a real board any
  word from 2 letters to the board's width counts, so the lexicon alone decides.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Container, Sequence

from companion.core.board import Board, Coord, STANDARD, Tile
from companion.core.move import Placement, format_square
from companion.core.tiles import BLANK, TileSet, get_tileset
from companion.core.errors import CompanionError
from companion.rules.common import (
    PlayScore,
    geometry_error,
    not_in_dictionary,
    remove_from_rack,
    set_player,
    score_words,
    unknown_words,
)

RACK_SIZE = 7
ALL_TILES_BONUS = 50
SCORELESS_TURNS_TO_END = 6
CHALLENGE_POINTS_PER_WORD = 5


class ChallengeMode(str, Enum):
    VOID = "void"
    SINGLE = "single"
    DOUBLE = "double"
    FIVE_POINTS = "five-points"


@dataclass(frozen=True)
class ClassicOptions:
    tileset: str = "en"
    challenge: ChallengeMode = ChallengeMode.VOID
    lose_turn_on_challenge: bool = False
    trade_blanks: bool = False
    exchange_four_of_a_kind: bool = False
    exchange_min_bag: int | None = None  # None: the pool must hold as many tiles as are discarded
    allow_hints: bool = False
    show_racks: bool = False
    scoreless_turns_to_end: int = SCORELESS_TURNS_TO_END

    @classmethod
    def tournament(cls, tileset: str = "en", challenge: ChallengeMode = ChallengeMode.DOUBLE) -> "ClassicOptions":
        return cls(tileset=tileset, challenge=challenge, exchange_min_bag=RACK_SIZE)


# ---------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True)
class Play:
    placement: Placement


@dataclass(frozen=True)
class Pass:
    pass


@dataclass(frozen=True)
class Exchange:
    tiles: str  # as GCG writes a rack: letters, ``?`` for a blank
    four_of_a_kind: bool = False  # claim the optional rule: exchange the whole rack, keep the turn


@dataclass(frozen=True)
class Challenge:
    by: int  # index of the challenging player


@dataclass(frozen=True)
class Accept:
    """The challenge window on the last play closes (the next player's clock press, or at the end
    of the game the opponents' agreement)."""


@dataclass(frozen=True)
class TradeBlank:
    square: Coord


@dataclass(frozen=True)
class RevealRacks:
    """The tiles left on every player's rack when the game ends with racks not tracked."""

    racks: tuple[str, ...]


@dataclass(frozen=True)
class Resign:
    """A player concedes: the game ends at once, the others' scores as they stand, the
    resigning player last whatever the scores."""

    by: int


Action = Play | Pass | Exchange | Challenge | Accept | TradeBlank | RevealRacks | Resign


# ---------------------------------------------------------------------------------------------
# State


@dataclass(frozen=True)
class PlayerState:
    name: str
    score: int = 0
    rack: tuple[str, ...] | None = None  # sorted tiles when tracked, None when private
    rack_size: int = 0
    lose_next_turn: bool = False
    end_adjustment: int = 0  # rack points added or taken off at the end


@dataclass(frozen=True)
class PendingPlay:
    """The last play while it can still be challenged."""

    player: int
    placement: Placement
    score: PlayScore
    drawn: tuple[str, ...]  # tiles it drew from the bag, returned if it comes off
    scoreless_before: int
    bag_size_before: int


@dataclass(frozen=True)
class ClassicState:
    options: ClassicOptions
    players: tuple[PlayerState, ...]
    board: Board
    bag: tuple[str, ...] | None  # in draw order when tracked
    bag_size: int
    to_move: int
    seed: int
    shuffles: int = 0  # how many times the bag has been shuffled; with the seed, fixes the next
    scoreless_turns: int = 0
    passes_in_a_row: int = 0
    pending: PendingPlay | None = None
    over: bool = False
    awaiting_racks: bool = False
    went_out: int | None = None
    turn: int = 0  # turns completed
    resigned: int | None = None  # the player who resigned the game

    @property
    def tileset(self) -> TileSet:
        return get_tileset(self.options.tileset)

    @property
    def tracked(self) -> bool:
        return self.bag is not None

    def winners(self) -> tuple[int, ...]:
        """The winners once the game is over: most points, then most points before the racks."""
        if not self.over:
            return ()
        left = [(i, p) for i, p in enumerate(self.players) if i != self.resigned]
        best = max((p.score, p.score - p.end_adjustment) for _, p in left)
        return tuple(i for i, p in left if (p.score, p.score - p.end_adjustment) == best)

    def tie_broken(self) -> bool:
        """Whether the winner was decided by the tie-break (the points before the racks)."""
        if not self.over:
            return False
        left = [p for i, p in enumerate(self.players) if i != self.resigned]
        top = max(p.score for p in left)
        tied = sum(p.score == top for p in left)
        return tied > 1 and len(self.winners()) < tied


class VerdictKind(str, Enum):
    PLAYED = "played"
    REFUSED = "refused"  # not a legal action: nothing changed, the same player goes on
    TURN_LOST = "turn-lost"  # an invalid play cost the turn (lose turn on challenge)
    PASSED = "passed"
    EXCHANGED = "exchanged"
    WITHDRAWN = "withdrawn"  # a challenged phony came off
    CHALLENGE_FAILED = "challenge-failed"
    ACCEPTED = "accepted"
    BLANK_TRADED = "blank-traded"
    GAME_OVER = "game-over"


@dataclass(frozen=True)
class Verdict:
    kind: VerdictKind
    player: int
    message: str
    score: PlayScore | None = None
    points: int = 0  # change to the player's score
    words: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    state: ClassicState
    verdicts: tuple[Verdict, ...] = field(default_factory=tuple)

    @property
    def verdict(self) -> Verdict:
        return self.verdicts[0]


# ---------------------------------------------------------------------------------------------
# Scoring


def score_play(board: Board, placement: Placement, tileset: TileSet) -> PlayScore:
    """The score of a legal placement on ``board``: every word formed, plus 50 for all seven tiles."""
    words = score_words(board, placement, tileset)
    bonus = ALL_TILES_BONUS if len(placement) == RACK_SIZE else 0
    return PlayScore(words, bonus, sum(w.score for w in words) + bonus)


# ---------------------------------------------------------------------------------------------
# Starting


def letter_order(tileset: TileSet) -> list[str]:
    """Blank first (blanks are lowest), then the set's alphabetical order."""
    return [BLANK] + tileset.alphabetical()


def first_player(tileset: TileSet, draws: Sequence[str]) -> tuple[int, ...]:
    """Who drew the lowest tile; more than one index means those players draw again."""
    order = {t: i for i, t in enumerate(letter_order(tileset))}
    for t in draws:
        if t not in order:
            raise CompanionError(f"{t!r} is not a tile of set {tileset.name!r}")
    low = min(order[t] for t in draws)
    return tuple(i for i, t in enumerate(draws) if order[t] == low)


def draw_for_first_turn(tileset: TileSet, players: int, rng: random.Random) -> tuple[int, list[list[str]]]:
    """Every player draws a tile from a full bag, ties draw again; the starter and all rounds drawn."""
    contenders = list(range(players))
    rounds: list[list[str]] = []
    while True:
        bag = list(tileset.bag().elements())
        draws = rng.sample(bag, len(contenders))
        rounds.append(draws)
        low = first_player(tileset, draws)
        if len(low) == 1:
            return contenders[low[0]], rounds
        contenders = [contenders[i] for i in low]


def new_game(
    names: Sequence[str],
    options: ClassicOptions = ClassicOptions(),
    *,
    seed: int = 0,
    first: int = 0,
    track_tiles: bool = True,
) -> ClassicState:
    """A game ready for its first move. With ``track_tiles`` the bag is shuffled from ``seed`` and
    every rack is drawn; otherwise racks are private and only their sizes are kept."""
    if not 2 <= len(names) <= 4:
        raise CompanionError(f"classic Scrabble is for 2 to 4 players, not {len(names)}")
    if len(set(names)) != len(names):
        raise CompanionError("two players have the same name")
    if not 0 <= first < len(names):
        raise CompanionError(f"player {first + 1} does not exist")
    tileset = get_tileset(options.tileset)
    players = []
    if track_tiles:
        bag = list(tileset.bag().elements())
        random.Random(f"{seed}:0").shuffle(bag)
        for name in names:
            rack, bag = bag[:RACK_SIZE], bag[RACK_SIZE:]
            players.append(PlayerState(name, rack=tuple(sorted(rack)), rack_size=len(rack)))
        return ClassicState(options, tuple(players), Board(STANDARD), tuple(bag), len(bag), first, seed, shuffles=1)
    size = tileset.size
    for name in names:
        n = min(RACK_SIZE, size)
        size -= n
        players.append(PlayerState(name, rack_size=n))
    return ClassicState(options, tuple(players), Board(STANDARD), None, size, first, seed)


# ---------------------------------------------------------------------------------------------
# Applying actions


def apply(state: ClassicState, action: Action, lexicon: Container[str]) -> Outcome:
    """The state after ``action`` by the player to move (or, for a challenge, by ``action.by``)."""
    if state.over:
        return _refuse(state, "The game is over")
    if state.awaiting_racks and not isinstance(action, RevealRacks):
        return _refuse(state, "The game is over: tell the companion the tiles left on each rack")
    if isinstance(action, RevealRacks):
        return _reveal_racks(state, action)
    if isinstance(action, Resign):
        return _resign(state, action)
    if isinstance(action, Challenge):
        return _challenge(state, action, lexicon)
    if isinstance(action, TradeBlank):
        return _trade_blank(state, action)
    # Anything else the player to move does closes the challenge window on the last play.
    verdicts: list[Verdict] = []
    if state.pending is not None:
        state, accepted = _accept_pending(state)
        verdicts.extend(accepted)
        if state.over or state.awaiting_racks or isinstance(action, Accept):
            return Outcome(state, tuple(verdicts))
    elif isinstance(action, Accept):
        return _refuse(state, "There is no play to accept")
    if isinstance(action, Play):
        out = _play(state, action, lexicon)
    elif isinstance(action, Pass):
        out = _pass(state)
    elif isinstance(action, Exchange):
        out = _exchange(state, action)
    else:  # pragma: no cover - the type union is closed
        raise TypeError(action)
    return Outcome(out.state, tuple(verdicts) + out.verdicts)


def _refuse(state: ClassicState, message: str, words: tuple[str, ...] = ()) -> Outcome:
    return Outcome(state, (Verdict(VerdictKind.REFUSED, state.to_move, message, words=words),))


def _next_turn(state: ClassicState, scored: bool) -> ClassicState:
    """End the current player's turn: count scoreless turns, move on past lost turns."""
    state = replace(
        state,
        turn=state.turn + 1,
        scoreless_turns=0 if scored else state.scoreless_turns + 1,
    )
    n = len(state.players)
    nxt = (state.to_move + 1) % n
    # A player who lost their next turn to a double challenge sits it out: a scoreless turn.
    while state.players[nxt].lose_next_turn:
        state = set_player(state, nxt, lose_next_turn=False)
        state = replace(state, turn=state.turn + 1, scoreless_turns=state.scoreless_turns + 1)
        nxt = (nxt + 1) % n
    return replace(state, to_move=nxt)


def _draw(state: ClassicState, player: int, n: int) -> tuple[ClassicState, tuple[str, ...]]:
    """Fill ``player``'s rack with up to ``n`` tiles from the bag."""
    n = min(n, state.bag_size)
    p = state.players[player]
    if state.bag is None:
        state = replace(state, bag_size=state.bag_size - n)
        return set_player(state, player, rack_size=p.rack_size + n), ()
    drawn, rest = state.bag[:n], state.bag[n:]
    assert p.rack is not None
    state = replace(state, bag=rest, bag_size=len(rest))
    return set_player(state, player, rack=tuple(sorted(p.rack + drawn)), rack_size=p.rack_size + n), drawn


def _shuffled(state: ClassicState, tiles: Sequence[str]) -> tuple[ClassicState, tuple[str, ...]]:
    bag = list(tiles)
    random.Random(f"{state.seed}:{state.shuffles}").shuffle(bag)
    return replace(state, shuffles=state.shuffles + 1), tuple(bag)


def placement_tiles(placement: Placement) -> list[str]:
    """The rack tiles a placement uses: its letters, ``?`` for each blank."""
    return [BLANK if t.blank else t.letter for t in placement.tiles]


def _play(state: ClassicState, action: Play, lexicon: Container[str]) -> Outcome:
    me = state.to_move
    player = state.players[me]
    placement = action.placement
    tileset = state.tileset
    for t in placement.tiles:
        if t.letter not in tileset.alphabet:
            return _refuse(state, f"{t.letter} is not a letter of the {tileset.name} tile set")
    error = geometry_error(state.board, placement)
    if error is not None:
        return _refuse(state, error.message)
    if len(placement) > player.rack_size:
        return _refuse(state, f"{player.name} has only {player.rack_size} tiles")
    used = placement_tiles(placement)
    if player.rack is not None:
        rest = remove_from_rack(player.rack, used)
        if rest is None:
            return _refuse(state, f"Those tiles are not on {player.name}'s rack")
    else:
        rest = None
    score = score_play(state.board, placement, tileset)
    words = tuple(w.word.text for w in score.words)
    if state.options.challenge is ChallengeMode.VOID:
        bad = unknown_words((w.word for w in score.words), lexicon.__contains__)
        if bad:
            message = not_in_dictionary(bad[0])
            if not state.options.lose_turn_on_challenge:
                return _refuse(state, message, tuple(bad))
            state = replace(state, passes_in_a_row=0)
            state = _next_turn(state, scored=False)
            lost = Verdict(VerdictKind.TURN_LOST, me, message, words=tuple(bad))
            return Outcome(*_check_scoreless_end(state, (lost,)))
    scoreless_before = state.scoreless_turns
    bag_size_before = state.bag_size
    state = replace(state, board=state.board.with_tiles((t.coord, t.tile) for t in placement.tiles))
    state = set_player(
        state, me, score=player.score + score.total, rack=rest, rack_size=player.rack_size - len(placement)
    )
    state, drawn = _draw(state, me, len(placement))
    verdict = Verdict(
        VerdictKind.PLAYED, me, f"{'/'.join(words)} {score.total}", score=score, points=score.total, words=words
    )
    pending = PendingPlay(me, placement, score, drawn, scoreless_before, bag_size_before)
    state = replace(state, passes_in_a_row=0)
    state = _next_turn(state, scored=score.total > 0)
    if state.options.challenge is ChallengeMode.VOID:
        return Outcome(*_after_final_play(state, pending, (verdict,)))
    return Outcome(replace(state, pending=pending), (verdict,))


def _after_final_play(
    state: ClassicState, play: PendingPlay, verdicts: tuple[Verdict, ...]
) -> tuple[ClassicState, tuple[Verdict, ...]]:
    """A play can no longer come off: did it end the game?"""
    if state.players[play.player].rack_size == 0 and state.bag_size == 0:
        state = replace(state, went_out=play.player)
        return _end(state, verdicts)
    return _check_scoreless_end(state, verdicts)


def _check_scoreless_end(
    state: ClassicState, verdicts: tuple[Verdict, ...]
) -> tuple[ClassicState, tuple[Verdict, ...]]:
    if state.scoreless_turns >= state.options.scoreless_turns_to_end:
        return _end(state, verdicts)
    if state.bag_size == 0 and state.passes_in_a_row >= len(state.players):
        return _end(state, verdicts)
    return state, verdicts


def _accept_pending(state: ClassicState) -> tuple[ClassicState, tuple[Verdict, ...]]:
    pending = state.pending
    assert pending is not None
    state = replace(state, pending=None)
    verdict = Verdict(VerdictKind.ACCEPTED, pending.player, "The play stands", score=pending.score)
    return _after_final_play(state, pending, (verdict,))


def _pass(state: ClassicState) -> Outcome:
    me = state.to_move
    state = replace(state, passes_in_a_row=state.passes_in_a_row + 1)
    state = _next_turn(state, scored=False)
    verdict = Verdict(VerdictKind.PASSED, me, f"{state.players[me].name} passes")
    return Outcome(*_check_scoreless_end(state, (verdict,)))


def _exchange(state: ClassicState, action: Exchange) -> Outcome:
    me = state.to_move
    player = state.players[me]
    tileset = state.tileset
    tiles = [t.upper() if t != BLANK else t for t in action.tiles]
    for t in tiles:
        if t != BLANK and t not in tileset.alphabet:
            return _refuse(state, f"{t} is not a tile of the {tileset.name} set")
    if not tiles:
        return _refuse(state, "No tiles to exchange: pass instead")
    if len(tiles) > player.rack_size:
        return _refuse(state, f"{player.name} has only {player.rack_size} tiles")
    if player.rack is not None and remove_from_rack(player.rack, tiles) is None:
        return _refuse(state, f"Those tiles are not on {player.name}'s rack")
    need = state.options.exchange_min_bag if state.options.exchange_min_bag is not None else len(tiles)
    if state.bag_size < need:
        return _refuse(state, f"Only {state.bag_size} tiles left in the bag: no exchange")
    keep_turn = False
    if action.four_of_a_kind:
        if not state.options.exchange_four_of_a_kind:
            return _refuse(state, "The exchange four of a kind rule is not in play")
        if len(tiles) != player.rack_size:
            return _refuse(state, "Four of a kind: the whole rack is exchanged")
        counts = Counter(t for t in tiles if t != BLANK)
        if not counts or max(counts.values()) < 4:
            return _refuse(state, "Four of a kind needs four or more of the same letter")
        keep_turn = True
    # The new tiles are drawn before the old ones go back, so no one draws their own discards.
    if player.rack is not None:
        rest = remove_from_rack(player.rack, tiles)
        assert rest is not None
        state = set_player(state, me, rack=rest, rack_size=len(rest))
    else:
        state = set_player(state, me, rack_size=player.rack_size - len(tiles))
    state, _ = _draw(state, me, len(tiles))
    if state.bag is not None:
        state, bag = _shuffled(state, state.bag + tuple(tiles))
        state = replace(state, bag=bag, bag_size=len(bag))
    else:
        state = replace(state, bag_size=state.bag_size + len(tiles))
    name = player.name
    if keep_turn:
        verdict = Verdict(VerdictKind.EXCHANGED, me, f"{name} exchanges four of a kind and plays on")
        return Outcome(state, (verdict,))
    state = replace(state, passes_in_a_row=0)
    state = _next_turn(state, scored=False)
    verdict = Verdict(VerdictKind.EXCHANGED, me, f"{name} exchanges {len(tiles)}")
    return Outcome(*_check_scoreless_end(state, (verdict,)))


def _challenge(state: ClassicState, action: Challenge, lexicon: Container[str]) -> Outcome:
    mode = state.options.challenge
    if mode is ChallengeMode.VOID:
        return _refuse(state, "Every word is checked when played: there is nothing to challenge")
    pending = state.pending
    if pending is None:
        return _refuse(state, "There is no play to challenge")
    if not 0 <= action.by < len(state.players) or action.by == pending.player:
        return _refuse(state, "Only an opponent can challenge a play")
    words = tuple(w.word.text for w in pending.score.words)
    bad = unknown_words((w.word for w in pending.score.words), lexicon.__contains__)
    state = replace(state, pending=None)
    if bad:
        state = _withdraw(state, pending)
        verdict = Verdict(
            VerdictKind.WITHDRAWN,
            pending.player,
            not_in_dictionary(bad[0]),
            score=pending.score,
            points=-pending.score.total,
            words=tuple(bad),
        )
        return Outcome(*_check_scoreless_end(state, (verdict,)))
    challenger = state.players[action.by]
    if mode is ChallengeMode.FIVE_POINTS:
        bonus = CHALLENGE_POINTS_PER_WORD * len(words)
        p = state.players[pending.player]
        state = set_player(state, pending.player, score=p.score + bonus)
        verdict = Verdict(
            VerdictKind.CHALLENGE_FAILED,
            pending.player,
            f"{'/'.join(words)} stands: {bonus} points to {p.name}",
            points=bonus,
            words=words,
        )
    elif mode is ChallengeMode.DOUBLE:
        if state.to_move == action.by:
            # The challenger was to move: that turn is the one lost.
            state = _next_turn(state, scored=False)
        else:
            state = set_player(state, action.by, lose_next_turn=True)
        verdict = Verdict(
            VerdictKind.CHALLENGE_FAILED,
            pending.player,
            f"{'/'.join(words)} stands: {challenger.name} loses a turn",
            words=words,
        )
    else:
        verdict = Verdict(VerdictKind.CHALLENGE_FAILED, pending.player, f"{'/'.join(words)} stands", words=words)
    verdicts = (verdict,)
    state, more = _after_final_play(state, pending, ())
    return Outcome(state, verdicts + more)


def _withdraw(state: ClassicState, pending: PendingPlay) -> ClassicState:
    """Take a phony off: tiles back on the rack, the tiles it drew back on top of the bag."""
    me = pending.player
    p = state.players[me]
    n_drawn = pending.bag_size_before - state.bag_size  # nothing else drew since the play
    state = replace(state, board=state.board.without(pending.placement.coords))
    if p.rack is not None and state.bag is not None:
        rack = remove_from_rack(p.rack, pending.drawn)
        assert rack is not None
        rack = tuple(sorted(rack + tuple(placement_tiles(pending.placement))))
        state = replace(state, bag=pending.drawn + state.bag, bag_size=state.bag_size + n_drawn)
        state = set_player(state, me, rack=rack, rack_size=len(rack))
    else:
        state = replace(state, bag_size=state.bag_size + n_drawn)
        state = set_player(state, me, rack_size=p.rack_size - n_drawn + len(pending.placement))
    state = set_player(state, me, score=state.players[me].score - pending.score.total)
    # The turn the phony used is now a scoreless one; no turn was taken since.
    return replace(state, scoreless_turns=pending.scoreless_before + 1)


def _trade_blank(state: ClassicState, action: TradeBlank) -> Outcome:
    if not state.options.trade_blanks:
        return _refuse(state, "The trade blanks rule is not in play")
    if state.pending is not None:
        state, verdicts = _accept_pending(state)
        if state.over or state.awaiting_racks:
            return Outcome(state, verdicts)
    tile = state.board[action.square]
    if tile is None or not tile.blank:
        return _refuse(state, f"There is no blank on {format_square(action.square)}")
    me = state.to_move
    p = state.players[me]
    if p.rack is not None:
        rest = remove_from_rack(p.rack, [tile.letter])
        if rest is None:
            return _refuse(state, f"{p.name} has no {tile.letter} to trade for the blank")
        state = set_player(state, me, rack=tuple(sorted(rest + (BLANK,))))
    state = replace(state, board=state.board.with_tiles([(action.square, Tile(tile.letter))]))
    return Outcome(
        state,
        (Verdict(VerdictKind.BLANK_TRADED, me, f"{p.name} takes the blank on {format_square(action.square)}"),),
    )


def _end(state: ClassicState, verdicts: tuple[Verdict, ...]) -> tuple[ClassicState, tuple[Verdict, ...]]:
    if all(p.rack is not None for p in state.players):
        return _settle(state, [p.rack or () for p in state.players], verdicts)
    holding = [i for i, p in enumerate(state.players) if p.rack_size > 0]
    if state.bag_size == 0 and len(holding) == 1:
        # Racks are private, but with the bag empty and one rack left, its tiles are exactly
        # the ones not on the board.
        unseen = state.tileset.bag() - _board_tiles(state.board)
        if unseen.total() != state.players[holding[0]].rack_size:
            return replace(state, awaiting_racks=True), verdicts
        racks = [tuple(unseen.elements()) if i == holding[0] else () for i in range(len(state.players))]
        return _settle(state, racks, verdicts)
    return replace(state, awaiting_racks=True), verdicts


def _board_tiles(board: Board) -> Counter[str]:
    return Counter(BLANK if t.blank else t.letter for _, t in board.items())


def _settle(
    state: ClassicState, racks: Sequence[Sequence[str]], verdicts: tuple[Verdict, ...]
) -> tuple[ClassicState, tuple[Verdict, ...]]:
    """Rack adjustments: each loses their own rack's value; who went out gains all of them."""
    tileset = state.tileset
    values = [tileset.rack_value(r) for r in racks]
    players = []
    for i, p in enumerate(state.players):
        adjustment = -values[i]
        if state.went_out == i:
            adjustment = sum(values)
        players.append(replace(p, score=p.score + adjustment, end_adjustment=adjustment, rack=tuple(sorted(racks[i]))))
    state = replace(state, players=tuple(players), over=True, awaiting_racks=False, pending=None)
    names = " and ".join(state.players[i].name for i in state.winners())
    scores = ", ".join(f"{p.name} {p.score}" for p in state.players)
    return state, verdicts + (Verdict(VerdictKind.GAME_OVER, state.to_move, f"Game over: {scores}. Winner: {names}"),)


def _resign(state: ClassicState, action: Resign) -> Outcome:
    if not 0 <= action.by < len(state.players):
        return _refuse(state, "Only a player of the game can resign it")
    # A play still open to challenge stands: the game ends as the board lies.
    state = replace(state, pending=None, over=True, awaiting_racks=False, resigned=action.by)
    name = state.players[action.by].name
    names = " and ".join(state.players[i].name for i in state.winners())
    scores = ", ".join(f"{p.name} {p.score}" for p in state.players)
    return Outcome(state, (Verdict(VerdictKind.GAME_OVER, action.by,
                                   f"{name} resigns. Game over: {scores}. Winner: {names}"),))


def result_text(state: ClassicState) -> str:
    """The end of the game in words: who won, by what scores, and how a tie was broken."""
    if not state.over:
        return ""
    winners = state.winners()
    names = [p.name for p in state.players]
    scores = ", ".join(f"{p.name} {p.score}" for p in state.players)
    if len(winners) > 1:
        who = " and ".join(names[i] for i in winners)
        text = f"{who} tie ({scores})"
    else:
        text = f"{names[winners[0]]} wins ({scores})"
    if state.tie_broken():
        text += ": the tie is broken by the points before the racks"
    if state.resigned is not None:
        text = f"{names[state.resigned]} resigned. " + text
    return text



def _reveal_racks(state: ClassicState, action: RevealRacks) -> Outcome:
    if not state.awaiting_racks:
        return _refuse(state, "The racks are told only when the game is over")
    if len(action.racks) != len(state.players):
        return _refuse(state, f"Tell the racks of all {len(state.players)} players")
    tileset = state.tileset
    racks = []
    for i, text in enumerate(action.racks):
        try:
            rack = tuple(tileset.parse_rack(text).elements())
        except CompanionError as exc:
            return _refuse(state, str(exc))
        if len(rack) != state.players[i].rack_size:
            return _refuse(
                state, f"{state.players[i].name} should have {state.players[i].rack_size} tiles, not {len(rack)}"
            )
        racks.append(rack)
    # Every tile is somewhere: on the board, on a rack or (never at the end of a full game) in the bag.
    on_board = _board_tiles(state.board)
    in_racks: Counter[str] = Counter()
    for r in racks:
        in_racks.update(r)
    excess = (on_board + in_racks) - tileset.bag()
    if excess:
        return _refuse(state, f"More {''.join(sorted(excess))} than the tile set has")
    new_state, verdicts = _settle(state, racks, ())
    return Outcome(new_state, verdicts)
