"""Move generation: hints, computer players and "no move possible".

    dawg.py      the word list as a minimal DAWG in flat int arrays, cached on disk by content
    movegen.py   every legal placement of a rack, scored (Appel & Jacobson); Move; Generator
    movegen.c    the generator's inner loop in C (native.py compiles and loads it)
    leave.py     what the tiles kept on the rack are worth
    player.py    computer players of skill 1 (dumb) to 5 (smart)
    hint.py      the best moves of a recorded position (``companion hint``)

One generator serves all three uses: :meth:`Generator.has_move` is the dungeon's trapped test.
"""

from companion.engine.movegen import CLASSIC_BONUSES, Generator, Move, generator_for

__all__ = ["CLASSIC_BONUSES", "Generator", "Move", "generator_for"]
