"""Computer players with a skill from 1 ("dumb") to 5 ("smart"), as the classic rules offer them.

Every level sees the same moves (the generator finds them all); a level is a model of what a
person of that strength would *notice* among them and how well they choose:

============  =====  ======  =====  =====  =====
              1      2       3      4      5
============  =====  ======  =====  =====  =====
longest word  5      6       7      9      any
parallel      30 %   50 %    70 %   90 %   100 %
vocabulary    0.55   0.70    0.85   0.95   1.0
choice        top 8  top 5   top 3  top 2  best
leave         no     no      half   full   full
============  =====  ======  =====  =====  =====

- *longest word*: people rarely see long words; a level ignores main words longer than this.
- *parallel*: a play that also forms cross words (parallel plays, hooks) is seen with this
  probability, drawn afresh each turn.
- *vocabulary*: whether the player knows a word. The word lists keep no frequency (the MARISA
  trie holds only the words, not SCOWL's size class), so rarity is a proxy: one unit, plus one
  per letter worth 4 points or more (J Q X Z K ...: rare in text), plus half a unit per letter
  beyond six. A word is known with probability ``vocabulary ** units``, decided by a hash of
  the player's seed and the word: the same player knows the same words all game.
- *choice*: among the moves seen, ordered by equity, a level picks uniformly among the top N.
- *leave*: equity is score + weight x the static value of the tiles kept (:mod:`leave`); with
  the bag empty there is nothing to draw, so equity is the score alone.

So skill 5 plays the best-scoring move with a sane leave. Without a play, a player exchanges
when the bag allows it (keeping the best leave of up to four tiles), else passes. Given the seed,
every choice is deterministic.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from dataclasses import dataclass
from typing import Container, Sequence

from companion.core.board import Board
from companion.core.tiles import BLANK
from companion.engine.leave import leave_value
from companion.engine.movegen import BLANK_CODE, BOARD_CODE, Generator, Move, RawMove
from companion.core.errors import CompanionError
from companion.rules import classic


@dataclass(frozen=True)
class Skill:
    level: int
    max_length: int | None
    parallel: float
    vocabulary: float
    top: int
    leave_weight: float


SKILLS: dict[int, Skill] = {
    1: Skill(1, 5, 0.30, 0.55, 8, 0.0),
    2: Skill(2, 6, 0.50, 0.70, 5, 0.0),
    3: Skill(3, 7, 0.70, 0.85, 3, 0.5),
    4: Skill(4, 9, 0.90, 0.95, 2, 1.0),
    5: Skill(5, None, 1.0, 1.0, 1, 1.0),
}


@dataclass(frozen=True)
class Decision:
    """What the player does: a move, or an exchange of ``exchange`` tiles, or a pass."""

    move: Move | None = None
    exchange: str = ""
    equity: float = 0.0

    @property
    def is_pass(self) -> bool:
        return self.move is None and not self.exchange


class ComputerPlayer:
    def __init__(self, generator: Generator, skill: int = 5, seed: int | str = 0) -> None:
        if skill not in SKILLS:
            raise CompanionError(f"skill {skill} is not one of 1 (dumb) to 5 (smart)")
        self.generator = generator
        self.skill = SKILLS[skill]
        self.seed = seed
        self._known: dict[str, bool] = {}

    def knows(self, word: str) -> bool:
        vocab = self.skill.vocabulary
        if vocab >= 1.0:
            return True
        known = self._known.get(word)
        if known is None:
            tileset = self.generator.tileset
            units = 1 + sum(1 for ch in word if tileset.value(ch) >= 4) + max(0, len(word) - 6) / 2
            h = hashlib.blake2b(f"{self.seed}:{word}".encode(), digest_size=8).digest()
            known = int.from_bytes(h, "big") / 2**64 < vocab**units
            self._known[word] = known
        return known

    def decide(
        self, board: Board, rack: Sequence[str], bag_size: int, *, turn: int = 0,
        exchange_min_bag: int | None = None,
    ) -> Decision:
        rack = list(rack)
        rng = random.Random(f"{self.seed}:{turn}:{''.join(sorted(rack))}")
        gen = self.generator
        raw = gen.raw_moves(board, rack)
        skill = self.skill
        tileset = gen.tileset
        alphabet = gen.alphabet
        frames = gen.analyse(board).frames
        weight = skill.leave_weight if bag_size > 0 else 0.0
        leaves: dict[tuple, float] = {}
        scored: list[tuple[float, RawMove]] = []
        for m in raw:
            score, d, line, start, codes = m
            if skill.max_length is not None and len(codes) > skill.max_length:
                continue
            if skill.parallel < 1.0:
                xs = frames[d].xs[line]
                if any(c < BOARD_CODE and xs[start + i] >= 0 for i, c in enumerate(codes)):
                    if rng.random() >= skill.parallel:
                        continue
            if skill.vocabulary < 1.0:
                if not self.knows("".join(alphabet[c % BLANK_CODE] for c in codes)):
                    continue
            equity = float(score)
            if weight:
                used = tuple(sorted(c for c in codes if c < BOARD_CODE))
                value = leaves.get(used)
                if value is None:
                    left = list(rack)
                    for c in used:
                        left.remove(BLANK if c >= BLANK_CODE else alphabet[c])
                    value = leaves[used] = leave_value(left, tileset)
                equity += weight * value
            scored.append((equity, m))
        if scored:
            scored.sort(key=lambda em: (-em[0], -em[1][0], em[1][1:]))
            pick = scored[rng.randrange(min(skill.top, len(scored)))]
            return Decision(move=gen.to_move(pick[1]), equity=pick[0])
        need = exchange_min_bag if exchange_min_bag is not None else 1
        if rack and bag_size >= max(need, 1):
            keep = self._best_keep(rack, bag_size if exchange_min_bag is None else len(rack))
            give = list(rack)
            for t in keep:
                give.remove(t)
            if give:
                return Decision(exchange="".join(give), equity=leave_value(keep, tileset))
        return Decision()

    def _best_keep(self, rack: list[str], can_give: int) -> tuple[str, ...]:
        return best_keep(rack, can_give, self.generator.tileset)

    def action(self, state: classic.ClassicState) -> classic.Action:
        """The classic game's action for the player to move (their rack must be tracked)."""
        me = state.players[state.to_move]
        if me.rack is None:
            raise CompanionError("a computer player needs to see its rack")
        decision = self.decide(
            state.board, me.rack, state.bag_size, turn=state.turn,
            exchange_min_bag=state.options.exchange_min_bag,
        )
        if decision.move is not None:
            return classic.Play(decision.move.placement)
        if decision.exchange:
            return classic.Exchange(decision.exchange)
        return classic.Pass()


def best_keep(rack: Sequence[str], can_give: int, tileset) -> tuple[str, ...]:
    """The tiles to keep when exchanging: the best leave of at most four tiles, giving back no
    more tiles than the bag can take."""
    best: tuple[float, tuple[str, ...]] | None = None
    for n in range(0, min(4, len(rack) - 1) + 1):
        if len(rack) - n > can_give:
            continue
        for keep in set(itertools.combinations(sorted(rack), n)):
            v = leave_value(keep, tileset)
            if best is None or (v, keep) > best:
                best = (v, keep)
    return best[1] if best else tuple(rack)


@dataclass(frozen=True)
class GameResult:
    scores: tuple[int, ...]
    turns: int
    final: classic.ClassicState
    kinds: tuple[str, ...]  # each verdict's kind, in order


def self_play(
    generator: Generator,
    lexicon: Container[str],
    skills: Sequence[int] = (5, 1),
    *,
    seed: int = 0,
    first: int = 0,
    max_turns: int = 400,
) -> GameResult:
    """One classic game between computer players, every action adjudicated by the rules."""
    names = [f"skill{s}-{i + 1}" for i, s in enumerate(skills)]
    options = classic.ClassicOptions(tileset=generator.tileset.name)
    state = classic.new_game(names, options, seed=seed, first=first)
    players = [ComputerPlayer(generator, s, seed=f"{seed}:{i}") for i, s in enumerate(skills)]
    kinds: list[str] = []
    for _ in range(max_turns):
        if state.over:
            break
        action = players[state.to_move].action(state)
        out = classic.apply(state, action, lexicon)
        for v in out.verdicts:
            if v.kind is classic.VerdictKind.REFUSED:
                raise AssertionError(f"the rules refused {action}: {v.message}")
            kinds.append(v.kind.value)
        state = out.state
    if not state.over:
        raise AssertionError(f"no end after {max_turns} turns")
    return GameResult(tuple(p.score for p in state.players), state.turn, state, tuple(kinds))
