"""A plain square's kind (empty, face-down tile, face-up blank) where the network is sure of it.

The hand-written reader (:mod:`companion.vision.cells`) tells a plain square's kind by colour:
its fit to the square's empty look, to the faces' colours found by their letters, and to a
back's colour, which only a profile knows. Without a profile a face-down tile is no kind the
colours weigh: a back in a colour near the board's reads empty, and glare or a shade leaves
an empty square's colour near a face's, a blank. The network (:mod:`companion.vision.model`) sees the square's body instead: a tile's
rim, its shadow on the board, its edges against the grid lines, whatever its colour, and it
was trained on backs of every colour.

So where the network is at least :data:`NET_SURE` sure of another plain kind than the rules',
and the rules are unsure of theirs (under :data:`RULES_UNSURE`), the network's kind stands,
for these changes only:

- a blank or a back of no named set the rules read is empty (no tile body there; a back whose
  set a profile's colour names keeps the profile's word: the network takes a slate back on a
  red premium square for empty, surely);
- an empty square the rules read is a face-down tile (a tile's body without a letter, which a
  face-up blank would show in a lettered set's colour; the rules' colours found none).

Never a back for a blank or a blank for a back: the network tells them apart by colours it
learned, not by this table's backs, and on real tournament photos it takes blanks for backs
(docs/vision-backs.md). Never a letter for an empty square or the reverse: a letter is the
rules' own evidence, and a board printed with words (another edition's premium labels) makes
the network see faces there. The new answer's confidence is the network's belief, for the
calibrator (:mod:`companion.vision.confidence`) to weigh as it weighs the rules'.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from companion.vision.reading import BLANK_FACE, KINDS, CellReading

# The network's calibrated belief in another plain kind at which its word stands: nine in ten.
# (On development seeds 52000-52039 without a profile it was right on 28 of the 29 squares it
# overrules; below it, right or wrong about equally where the rules read a blank and the
# network a back.)
NET_SURE = 0.9
# ... and only where the rules themselves would ask (their belief under the table's SURE).
RULES_UNSURE = 0.5

_EMPTY, _TILE, _BACK = (KINDS.index(k) for k in ("empty", "tile", "back"))


def _plain(c: CellReading) -> bool:
    """A square read as held by a tile without a letter: a face-up blank or a back."""
    return c.kind == "back" or (c.kind == "tile" and c.letter == BLANK_FACE)


def plain_kinds(rules: Sequence[CellReading], beliefs: Any, squares: np.ndarray | None = None
                ) -> tuple[list[CellReading], list[int]]:
    """The rules' readings with each plain square's kind the network's where it is sure (see the
    module's doc); and the indices changed. ``beliefs``: the network's
    (:class:`companion.vision.model.Beliefs`, row-major as ``rules``); ``squares``: the cut
    squares (a new back's colour is its middle's), or None."""
    from companion.vision.model import _body_rgb

    kind = np.asarray(beliefs.kind)
    best = kind.argmax(axis=1)
    sure = kind.max(axis=1) >= NET_SURE
    out = list(rules)
    changed: list[int] = []
    for i, c in enumerate(rules):
        p = float(kind[i, best[i]])
        if not sure[i] or c.confidence >= RULES_UNSURE or c.set is not None:
            continue
        if best[i] == _EMPTY and _plain(c):
            out[i] = CellReading(c.row, c.col, "empty", token=c.token, confidence=p)
        elif best[i] == _BACK and c.kind == "empty":
            rgb = _body_rgb(squares[i]) if squares is not None else None
            out[i] = CellReading(c.row, c.col, "back", rgb=rgb, token=c.token, confidence=p)
        else:
            continue
        changed.append(i)
    return out, changed


# The network's belief in a tile (face up or down) at which, where the rules' colour says
# "empty" only loosely, the square is asked about: one in twenty. An empty square the network
# sees as plainly empty has under a thousandth (half of them under a ten-thousandth on the
# development scenes); a back of nearly its square's colour that it takes for empty keeps a
# tenth or so (docs/vision-backs.md).
NET_BODY = 0.05


def unsure_empty(cells: Sequence[CellReading], loose: np.ndarray, beliefs: Any,
                 outlined: np.ndarray | None = None) -> np.ndarray:
    """(N,) squares read empty where the colour doubts it a little and a tile's body is seen
    a little: the rules' colour fits the empty look only loosely (``loose``, row-major:
    :func:`companion.vision.cells.kinds.loose_empty`), and the network believes in a tile there
    at least :data:`NET_BODY` or the square's outline stands out from its print's empty
    squares' (``outlined``: :func:`companion.vision.cells.shapes._outlined`). A face-down tile
    of nearly its square's colour shows just that: its colour a little off the square's (its
    own, or the profile's back's beside it), its body a little seen. Each alone is common on
    empty squares (a lamp's gradient, a neighbour's shadow); together they are the backs the
    reader read empty surely (docs/vision-backs.md)."""
    empty = np.array([c.kind == "empty" for c in cells])
    tile = 1.0 - np.asarray(beliefs.kind)[:, _EMPTY]
    body = tile >= NET_BODY
    if outlined is not None:
        body |= np.asarray(outlined, bool).ravel()
    return empty & np.asarray(loose, bool).ravel() & body
