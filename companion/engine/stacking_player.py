"""A computer player for the stacking game (rules/003), and self-play for demos and records.

Its plays come from two places: the move generator's plays on the top tiles (every classic
placement is a stacking placement too: tiles on empty squares, one line, connected), and plays
that put a tile on top of a tile with one more tile on an empty square at an end of that
stack's line: the shapes a stacking game adds. Every candidate is judged by the rules
(:func:`companion.rules.stacking.apply`), so a play it makes is legal by construction and scored
as the rules score it. Which it takes, whether it buys first, and whether it redraws come from
a seeded random source, so a seed gives the same game every time.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Container, Sequence
from dataclasses import dataclass

from companion.core.board import Direction
from companion.core.move import PlacedTile, Placement
from companion.core.tiles import BLANK
from companion.core.words import run_through
from companion.engine.movegen import Generator
from companion.rules import stacking
from companion.rules.stacking import Action, Outcome, StackingState, VerdictKind

CLASSIC_CANDIDATES = 4  # the generator's best plays the rules score
STACK_TRIES = 300  # stacked shapes tried per turn, at most


def _rainbow_squares(state: StackingState, placement: Placement) -> frozenset:
    """Lay the rack's rainbow tiles wherever the play uses their letter (the most doubling)."""
    rainbows = Counter(state.players[state.to_move].rainbows)
    out = set()
    for t in placement.tiles:
        if not t.blank and rainbows[t.letter] > 0:
            rainbows[t.letter] -= 1
            out.add(t.coord)
    return frozenset(out)


def _legal(
    state: StackingState, placement: Placement, lexicon: Container[str]
) -> tuple[stacking.Play, int] | None:
    play = stacking.Play(placement, _rainbow_squares(state, placement))
    out = stacking.apply(state, play, lexicon)
    if out.verdict.kind is VerdictKind.PLAYED:
        return play, out.verdict.points
    return None


def classic_plays(
    state: StackingState, lexicon: Container[str], generator: Generator
) -> list[tuple[stacking.Play, int]]:
    rack = state.players[state.to_move].rack
    options = state.options
    if options.area is None:
        moves = generator.best(state.board.top, list(rack), k=CLASSIC_CANDIDATES)
    else:  # a play area: the generator's best plays inside it (its best are mostly outside)
        inside = (m for m in generator.moves(state.board.top, list(rack))
                  if all(options.in_area(t.coord) for t in m.placement.tiles))
        moves = [m for m, _ in zip(inside, range(CLASSIC_CANDIDATES))]
    out = []
    for move in moves:
        legal = _legal(state, move.placement, lexicon)
        if legal is not None:
            out.append(legal)
    return out


def stacked_plays(
    state: StackingState, lexicon: Container[str], rng: random.Random, tries: int = STACK_TRIES
) -> list[tuple[stacking.Play, int]]:
    """Plays of one tile on a stack and one on an empty square at an end of its line."""
    top = state.board.top
    rack = list(state.players[state.to_move].rack)
    letters = sorted(set(rack))
    squares = [coord for coord, _ in top.items()]
    rng.shuffle(squares)
    out = []
    for square in squares:
        for direction in Direction:
            run = run_through(top, square, direction)
            dr, dc = direction.step
            ends = [(run[0][0] - dr, run[0][1] - dc), (run[-1][0] + dr, run[-1][1] + dc)]
            for end in ends:
                if not state.options.in_area(end) or end in top:
                    continue
                for on in letters:
                    # A wild on a stack is left to the rules' own tests; the same letter on a
                    # letter is legal but a camera cannot see it, so the table's player never does it.
                    if on == BLANK or on == top[square].letter:  # type: ignore[union-attr]
                        continue
                    left = Counter(rack)
                    left[on] -= 1
                    for beside in sorted(k for k, n in left.items() if n > 0 and k != BLANK):
                        if tries <= 0:
                            return out
                        tries -= 1
                        placement = Placement.of([PlacedTile(*square, on), PlacedTile(*end, beside)])
                        legal = _legal(state, placement, lexicon)
                        if legal is not None:
                            out.append(legal)
    return out


@dataclass
class StackingPlayer:
    """Buys now and then, prefers a stacked play when there is one, redraws when stuck."""

    generator: Generator
    seed: int | str = 0
    buy_chance: float = 0.35
    stack_chance: float = 0.6

    def actions(self, state: StackingState, lexicon: Container[str]) -> list[Action]:
        """The actions of one turn of the player to move: purchases, then a play, a redraw or a pass."""
        rng = random.Random(f"{self.seed}:{state.turn}:{state.rolls}")
        me = state.players[state.to_move]
        out: list[Action] = []
        if state.market and me.score >= state.next_price(state.to_move) and rng.random() < self.buy_chance:
            out.append(stacking.Buy(rng.choice(sorted(state.market))))
        return out

    def turn(self, state: StackingState, lexicon: Container[str]) -> Action:
        rng = random.Random(f"{self.seed}:turn:{state.turn}:{state.rolls}")
        stacked = stacked_plays(state, lexicon, rng)
        if stacked and rng.random() < self.stack_chance:
            return max(stacked, key=lambda pp: pp[1])[0]
        plays = classic_plays(state, lexicon, self.generator) + stacked
        if plays:
            return max(plays, key=lambda pp: pp[1])[0]
        me = state.players[state.to_move]
        if me.score >= stacking.REDRAW_COST and state.pool:
            return stacking.Redraw()
        return stacking.Pass()


def self_play(
    names: Sequence[str],
    options: stacking.StackingOptions,
    lexicon: Container[str],
    generator: Generator,
    *,
    seed: int = 0,
    max_turns: int = 200,
) -> tuple[StackingState, list[tuple[Action, Outcome]]]:
    """A whole game between computer players: the start and every action with its outcome."""
    start = stacking.new_game(names, options, seed=seed)
    player = StackingPlayer(generator, seed)
    state = start
    steps: list[tuple[Action, Outcome]] = []
    while not state.over and state.turn < max_turns:
        for action in player.actions(state, lexicon) + [player.turn(state, lexicon)]:
            out = stacking.apply(state, action, lexicon)
            steps.append((action, out))
            state = out.state
    return start, steps
