"""A value printed close against its letter's foot (some makers do: Hasbro's subscript 3
beside a P's stem, its 1 beside an I) is read apart from the letter: taken in as a piece of
the letter (a piece beside its box, where broken strokes and diacritics lie), it makes
another letter (P and its 3 an R, B and its 3 a P, F and its 4 a G); so it does joined to
the letter by the blur between them, one piece with it. The face is read both ways and read
apart where the value read there is the letter's and the letter reads surer. A value close
beside a narrow letter's foot, nearer the face's middle than a corner, is the value too.
Drawn faces (companion.sim.facesynth) and real photos of another edition."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from companion.core.tiles import get_tileset
from companion.vision.cells.inks import _faces_apart
from companion.vision.face import FaceInk, split_face
from companion.sim.facesynth import draw_face, random_style
from companion.vision.glyphs import load_atlas
from companion.vision.letters import LetterGuess, letter_reader

PHOTOS = Path(__file__).resolve().parents[2] / ".." / "shared" / "photos"
DETECTOR = PHOTOS / "scrabble-detector-project" / "ImageData" / "RealPictures"


def _face_against(letter: str, font: int, shift: float, inset: float = 0.14) -> tuple[np.ndarray, float]:
    """A plain face, 48 pixels, its letter moved ``shift`` of the face towards the value in
    the bottom-right corner, which is printed further in than usual (``inset`` of the face
    from its right edge): the two close together."""
    atlas = load_atlas()
    rng = np.random.default_rng(3)
    style = replace(
        random_style(rng, atlas), font=font, body=215.0, ink=25.0, stroke=0, letter_height=0.5, squeeze=1.0,
        letter_shift=(shift, shift), value_height=0.18, value_inset=(inset, 0.14), turn_deg=0.0,
        crop_shift=(0.0, 0.0), crop_scale=48 / 44, background=215.0, rim=0.0, out_px=48, blur=0.4,
        noise=0.0, gradient=0.0, jpeg=None, clear=False, token=None,
    )
    value = str(dict(get_tileset("en").values)[letter])
    return draw_face(rng, atlas, letter, value, style).copy(), 44 / 48


def _read(ink: FaceInk) -> LetterGuess:
    """The face read as the board reader reads it: both ways when it may be read apart."""
    ts = get_tileset("en")
    letters, values = sorted(ts.alphabet), dict(ts.values)
    reader = letter_reader()
    inks = {(0, 0): ink}
    _faces_apart(inks, reader, letters, values)
    return reader.score([inks[0, 0]], letters, values).decide(None, values)[0]


@pytest.mark.parametrize("letter, font, shift", [
    # A serif P whose 3 lies just off its foot: a piece of its own, but beside the letter's
    # box where a broken stroke would lie, so taken into the letter: P and 3 read as an R.
    ("P", 12, 0.03),
    # A B whose thin 3 touches its lower bowl: one piece at the letter's level of ink, read as
    # a P. At a higher level the paler join falls away and the 3 stands apart, jutting out of
    # the B's box; the ink on its side of the palest line between them is the value.
    ("B", 7, 0.06),
])
def test_a_value_taken_into_the_letter_is_read_apart(letter, font, shift):
    crop, frac = _face_against(letter, font, shift)
    ink = split_face(crop, face_frac=frac)
    guess = _read(ink)
    assert (guess.letter, guess.rotation, guess.value) == (letter, 0, "3")
    assert ink.corner is None and ink.apart is not None  # (read whole, no value is found)


def test_the_value_close_beside_a_narrow_letters_foot_is_found():
    # Hasbro prints an I's 1 close beside its foot, nearer the face's middle than a corner:
    # not taken for the value, an I upside down (the same picture) read at either turn.
    crop, frac = _face_against("I", 0, 0.0, inset=0.3)
    ink = split_face(np.rot90(crop, k=2).copy(), face_frac=frac)
    assert ink.corner == (-1, -1)
    guess = _read(ink)
    assert (guess.letter, guess.rotation, guess.value) == ("I", 180, "1")
    assert guess.p_rotation > 0.9


def test_a_letter_clear_of_its_value_is_read_once():
    # Where the value stands clear of the letter, nothing is read apart.
    crop, frac = _face_against("P", 12, 0.0)
    ink = split_face(crop, face_frac=frac)
    assert ink.apart is None and ink.corner == (1, 1)


def _read_photo(path: Path):
    from companion.vision.reader import read_file

    if not path.is_file():
        pytest.skip(f"{path} is absent: real-photo tests need ../shared/photos beside the checkout")
    return read_file(path, tileset="en")


@pytest.mark.parametrize(
    "name, squares",
    [
        # Hasbro's tiles on the scrabble-detector-project photos: the P's 3 tucked under its
        # bowl (read as R, confidence up to 0.78), the I's 1 beside its foot (L), the F's 4 (G
        # turned), the 1 of a Q's 10 against its tail (O).
        ("TestTest_jpg.rf.ad91f68d", {(11, 7): "P", (12, 6): "P", (3, 0): "I"}),
        ("TestTest_jpg.rf.1ec2ec6d", {(11, 7): "P", (12, 6): "P", (11, 3): "F"}),
        ("IMG_2680_jpeg.rf.ff93416e", {(9, 5): "Q"}),
    ],
)
def test_values_against_letters_on_another_editions_photos(name, squares):
    found = sorted(DETECTOR.glob(f"*/images/{name}*.jpg"))  # (named by the start of their name)
    reading = _read_photo(found[0] if found else DETECTOR / name)
    for (r, c), letter in squares.items():
        cell = reading.cell(r, c)
        assert (cell.kind, cell.letter, cell.rotation) == ("tile", letter, 0), (r, c, cell)


# The renderer's phone scenes (blurred, seen obliquely, read with no profile): an E whose foot
# the blur breaks off its stem beside the value's corner, and whose faint 1 reads as another
# digit. Read apart, the foot with the 1 read as a 4 made an F (at 0.99); read whole it is an
# E surely, with a value of its own found in the corner.
PHONE_ES = {20035: [(10, 10)], 20017: [(3, 6), (5, 9)]}


@pytest.mark.parametrize("seed", PHONE_ES)
def test_a_sure_letter_with_its_own_value_is_not_cut(seed):
    from companion.vision.reader import read_board
    from companion.sim.render import render
    from companion.sim.scene import preset

    spec = preset("phone", np.random.default_rng(seed))
    scene = render(spec, seed)
    reading = read_board(scene.image, tileset=spec.tileset, grid=spec.grid)
    for rc in PHONE_ES[seed]:
        truth, cell = scene.truth.cell(*rc), reading.cell(*rc)
        assert truth.letter == "E"
        assert (cell.kind, cell.letter, cell.rotation) == ("tile", "E", truth.rotation), (rc, cell)
