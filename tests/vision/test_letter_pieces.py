"""A face's letter and value when the threshold breaks them apart or runs them together: a
serif W's hairlines under half ink, a thin "1" broken in two, "10" blurred into one piece, a
turned tile's value cut off by a crop placed as if upright, a token's disc on a blank. Drawn
faces (companion.sim.facesynth) and rendered scenes (companion.sim.render) with their
exact truth."""

import numpy as np
import pytest

from companion.vision.face import split_face
from companion.vision.letters import DIGITS, OTHER, glyph_features, load_model, softmax
from companion.sim.scene import preset

from .rendered import read_rendered
from .test_letters import _clean_face, _decide

_BODY, _HALF_INK = 215, 139  # the drawn faces' body, and a level of 0.4 ink on it


def test_a_w_whose_hairlines_fall_under_half_ink_is_a_w():
    # A serif W prints two of its four strokes as hairlines: under half ink, the threshold
    # splits it into two halves, each a V, joined only at the paler level. It read as a V.
    crop, frac = _clean_face("W", "4")
    whole = split_face(crop, face_frac=frac)
    x, y, w, h = whole.box
    apex = crop[y : y + 9, x + 10 : x + 14]  # where the middle strokes meet at the top
    apex[apex < 170] = _HALF_INK
    ink = split_face(crop, face_frac=frac)
    assert ink.box == whole.box
    guess = _decide(ink)
    assert (guess.letter, guess.rotation) == ("W", 0)


def test_a_thin_one_broken_in_two_is_the_value():
    # A "1" a pixel thin, broken by the threshold into a dash and a speck lined up: no line
    # of the face's rim (those run a third of the face and more), but the value, which turns
    # an O (the same at every turn) upside down.
    crop, frac = _clean_face("O", "1")
    x, y, w, h = split_face(crop, face_frac=frac).box
    corner = crop[y + h - 4 :, x + w :]
    corner[9, :] = _BODY  # across the 1, two pixels above its foot
    ink = split_face(np.rot90(crop, k=2).copy(), face_frac=frac)
    assert ink.corner == (-1, -1)
    guess = _decide(ink)
    assert (guess.letter, guess.rotation) == ("O", 180)


def test_ten_blurred_into_one_piece_reads_as_two_digits():
    # "10" printed small and blurred: the gap between the digits fills at the digits' level
    # of ink and the value is one piece. Cut across the line of text where least ink joins
    # it, it reads 1 then 0 in the tile's reading order, whichever way the tile lies.
    from companion.vision.letters import _two_digits

    crop, frac = _clean_face("Z", "10")
    x, y, w, h = split_face(crop, face_frac=frac).box
    value = crop[y + h - 6 :, x + w - 2 :]
    value[8:13, 8] = _HALF_INK  # between the 1 and the 0
    model = load_model()
    for k in range(4):
        ink = split_face(np.rot90(crop, k=-k).copy(), face_frac=frac)
        assert len(ink.digits) == 1
        read = set()
        for first, second in _two_digits(ink.digits[0][0], k):
            f = glyph_features(np.stack([first, second]), turns=True)[:, k]
            p = softmax(model.logits(f)[:, model.index(list(DIGITS) + [OTHER])])
            read.add("".join((DIGITS + OTHER)[int(i)] for i in p.argmax(1)))
        assert "10" in read, (k, read)
    # One digit is taller than wide along the line of text: never cut.
    crop, frac = _clean_face("E", "1")
    ink = split_face(crop, face_frac=frac)
    assert _two_digits(ink.digits[0][0], 0) == []


def _read(seed: int):
    return read_rendered(preset("mounted", np.random.default_rng(seed), features=True), seed)


@pytest.mark.parametrize(
    "seed",
    [
        3097,  # an O upside down, its thin "1" broken in two
        3108,  # a J upside down, its "8" cut off by a crop placed as if upright
        3126,  # an F turned 270 degrees, its "4" cut off likewise
        3154,  # a Q upside down, "10" in one piece, a token in the other corner
        3134,  # a blank with a token's disc, which read as an O
        3197,  # a serif W, hairlines under half ink
    ],
)
def test_every_face_read_as_a_tile_has_its_letter_and_turn(seed):
    # Development scenes (never the benchmark's): every face-up tile that is read as a tile
    # reads its letter (a blank as a blank) at its turn.
    scene, cells = _read(seed)
    wrong = []
    for rc, cell in cells.items():
        truth = scene.truth.cell(*rc)
        if truth.kind == "tile" and cell.kind == "tile":
            if cell.letter != truth.letter or (truth.letter != "?" and cell.rotation != truth.rotation):
                wrong.append((rc, truth.letter, truth.rotation, cell.letter, cell.rotation))
    assert wrong == [], wrong
