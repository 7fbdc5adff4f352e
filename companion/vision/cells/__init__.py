"""The hand-written square reader: every square of a rectified board read by rules, as empty, a
tile face up (letter, turn), a tile face down, with the body colour and set of a tile, a token,
and an honest confidence.

One entry point, :func:`read_cells` (:func:`read_board_cells` with what it found on the way),
in :mod:`.read`, which runs the stages below in turn. It takes the rectified board from
:func:`companion.vision.grid.rectify` with :data:`CELL_PX` and :data:`MARGIN`
(:mod:`.geometry`); the board-wide statistics are taken at half that resolution, after bringing
the grid's bright end to a standard exposure. The learned reader (:mod:`companion.vision.model`)
is to replace these rules; until it does, they are one reading the table may use. The stages,
each a module or two (colours compared through :mod:`companion.vision.colour`):

1. **Letters** (:mod:`.glyphs`, :mod:`.premium_print`). Ink shapes of a letter's size, dark on light or light on dark,
   found over the whole board at once, each scored by the letter network for looking like a
   letter in some turn; one it doubts (a bar, like a piece of print) is a letter only where its
   face shows that letter's value in its corner, or on a plain square in the ink of the board's
   sure letters (:func:`.inks.read_glyph_faces`). A mark its premium class's other squares show
   in the same place is that class's print, unless the square hides the print a face would
   hide. Their places give where the faces lie.
2. **Colours, empty looks and light** (:mod:`.stats`, :mod:`.set_colours`, :mod:`.looks`,
   gathered by :mod:`.gather` into :class:`.evidence.Evidence`). The bodies around the letters give the tile
   sets' colours (unless the colour is the board's own print), matched to the profile's sets
   when it names them. Without a profile, squares of one premium class look alike: each
   class's look is what its squares without a letter show; with a profile made from the empty
   board (:func:`learn_empty`), each square's own look is known, carried into this photo's
   colours by an affine map. The light at each square is divided out before comparing: a
   lamp's spot or a shadow moves lightness, not hue.
3. **Kinds** (:mod:`.kinds`, :mod:`.shapes`, :mod:`.premium_print`). Each square's fit to its empty look, to the
   nearest tile body and to a known back, against an outlier floor, gives a belief over empty /
   face up / face down; a square no kind fits is looked at as under a lamp's glare
   (:mod:`companion.vision.glare`), and one taken for a blank on a premium square that shows its
   class's print is empty; glare or a shade over a square's own empty look that explains its
   colour, on an empty neighbour too, no longer makes it a face. Where colour leaves a face
   without ink and an empty square close, a tile's own outline and rim weigh in.
4. **Faces** (:mod:`.faces`, :mod:`.inks`, :mod:`.set_passes`). Each face is found around its
   letter (or, without one, around its square moved as the faces nearby are) as the box of
   body colour with a gap around it; its ink is split into the letter and the value digits
   (:mod:`companion.vision.face`). The letter is read by the network over four turns
   (:mod:`companion.vision.letters`, with the user's own letters from a profile; or by
   Tesseract), the turn told by the digits' corner and the board's usual turn, the letter
   checked against the value. No ink: a blank face, rotation 0 (``BLANK_TURN``). Each face's
   set is checked against its ink and a lamp's glare.
5. **Tokens** (:mod:`.tokens`, :mod:`.tokens_on_faces`, :mod:`.token_discs`). A disc of a colour foreign to what should
   lie under it, round and of a token's size, ringed on every side by something unlike it; on
   a face-up tile, a clear disc in the tile's own top-left corner counts whatever its colour.
6. **Doubt** (:mod:`.doubt`). A square part of which nothing explains (not print, ink or
   token), or whose grid lines are gone, and the squares around it, lose belief: a hand must
   never be read with confidence.

Profile arrays these rules read (all optional): ``empty_bgr`` (rows, cols, 3) float32, from
:func:`learn_empty`; ``set_backs`` (n_sets, 3) uint8, the RGB of the backs of ``profile.sets``
in their order (a face-down tile is told from a blank by it); and the user's letters
``letter_glyphs`` (N, 24, 24) uint8 / ``letter_codes`` (N,) int32 (see
:mod:`companion.vision.alphabet`), read by the letter classifier.
"""

from companion.vision.cells.geometry import CELL_PX, MARGIN
from companion.vision.cells.read import Reading, learn_empty, read_board_cells, read_cells

__all__ = ["CELL_PX", "MARGIN", "Reading", "learn_empty", "read_board_cells", "read_cells"]
