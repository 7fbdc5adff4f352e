import importlib.util
import time
from pathlib import Path

import numpy as np
import pytest

from companion.core.tiles import get_tileset, tileset_names
from companion.core.errors import CompanionError
from companion.vision.alphabet import alphabet_order, learn_alphabet
from companion.vision.cells import CELL_PX, MARGIN
from companion.vision.face import GLYPH_PX, split_face
from companion.sim.facesynth import draw_face, random_style
from companion.vision.glyphs import load_atlas
from companion.vision.letters import (
    CORNER_OF_TURN,
    DIGITS,
    LetterModel,
    _upright,
    glyph_features,
    letter_reader,
    load_model,
    turned,
)

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "companion" / "vision" / "data" / "letters.npz"


def _faces(seed: int, n: int, letters: list[str], turn: int = 0):
    """Synthetic faces (crop, letter) as the classifier's training draws them, on another seed."""
    atlas = load_atlas()
    rng = np.random.default_rng(seed)
    ts = get_tileset("de")
    out = []
    for i in range(n):
        letter = letters[i % len(letters)]
        style = random_style(rng, atlas)
        face = draw_face(rng, atlas, letter, str(ts.values.get(letter, 1)), style)
        out.append((np.ascontiguousarray(np.rot90(face, k=-turn)), style, letter))
    return out


def test_turned_features_are_the_features_of_turned_pictures():
    rng = np.random.default_rng(0)
    pics = rng.random((6, GLYPH_PX, GLYPH_PX)).astype(np.float32)
    pics[:, :2] = pics[:, -2:] = pics[:, :, :2] = pics[:, :, -2:] = 0
    fast = glyph_features(pics, turns=True)
    for k in range(4):
        slow = glyph_features(np.ascontiguousarray(turned(pics)[:, k]))
        assert np.allclose(fast[:, k], slow, atol=1e-5)


def test_corners_and_turns_agree():
    # Upright the value is bottom-right; a tile turned k quarter turns clockwise shows it in
    # CORNER_OF_TURN[k], and turning that offset back gives bottom-right again.
    for k, corner in CORNER_OF_TURN.items():
        assert _upright(*corner, k) == (1, 1)
    assert CORNER_OF_TURN[1] == (-1, 1)  # a quarter turn clockwise carries it bottom-left


def test_shipped_model_is_small_loads_fast_and_knows_every_letter():
    assert MODEL.stat().st_size < 2_000_000
    t0 = time.perf_counter()
    with np.load(MODEL, allow_pickle=False) as npz:
        model = LetterModel.from_arrays({k: npz[k] for k in npz.files})
    assert time.perf_counter() - t0 < 0.5
    needed = set(DIGITS)
    for name in tileset_names():
        needed |= get_tileset(name).alphabet
    assert needed <= set(model.classes)
    assert "atlas" in model.meta["source"]


def test_reads_synthetic_faces_of_every_german_letter():
    ts = get_tileset("de")
    letters = sorted(ts.alphabet)
    reader = letter_reader()
    faces = _faces(seed=99, n=6 * len(letters), letters=letters)
    inks = [split_face(crop, face_frac=1.0 / style.crop_scale) for crop, style, _ in faces]
    keep = [(ink, letter) for ink, (_, _, letter) in zip(inks, faces) if ink.glyph is not None]
    assert len(keep) >= 0.95 * len(faces)
    guesses = reader.score([k for k, _ in keep], letters, dict(ts.values)).decide(np.array([0.85, 0.05, 0.05, 0.05]))
    right = sum(g.letter == letter for g, (_, letter) in zip(guesses, keep))
    # Measured 0.92 on this seed (0.87 to 0.92 on others): the augmentation goes as far as
    # faces 20 pixels wide, blurred, half hidden by a token. Real and rendered tiles read better.
    assert right / len(keep) >= 0.85


@pytest.mark.parametrize("turn", [1, 2, 3])
def test_reads_the_turn_from_the_value_corner(turn):
    ts = get_tileset("de")
    letters = [ch for ch in "ABEFGJKLPRTY"]  # no letter that looks like another when turned
    reader = letter_reader()
    faces = _faces(seed=5 + turn, n=48, letters=letters, turn=turn)
    inks = [split_face(crop, face_frac=1.0 / style.crop_scale) for crop, style, _ in faces]
    keep = [ink for ink in inks if ink.glyph is not None]
    guesses = reader.score(keep, sorted(ts.alphabet), dict(ts.values)).decide()
    right = sum(g.rotation == 90 * turn for g in guesses)
    assert right / len(keep) >= 0.85  # measured 0.92, 0.94, 0.90 for the three turns


def test_training_is_deterministic(tmp_path):
    spec = importlib.util.spec_from_file_location("train_letters", ROOT / "scripts" / "train_letters.py")
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    for out in (a, b):
        assert train.main(["--out", str(out), "--per-font", "1", "--epochs", "1", "--hidden", "8"]) == 0
    assert a.read_bytes() == b.read_bytes()


def _alphabet_scene(order: list[str], swap: tuple[int, int] | None = None, gap: int | None = None):
    from companion.sim.render import render
    from companion.sim.scene import SceneSpec, Square

    laid = list(order)
    if swap:
        i, j = swap
        laid[i], laid[j] = laid[j], laid[i]
    content = {}
    for i, letter in enumerate(laid):
        if i == gap:
            continue
        content[divmod(i, 15)] = Square.tile(letter)
    return render(SceneSpec(content=content, tileset="de"), seed=3)


def _top(scene):
    from companion.vision.grid import rectify

    return rectify(scene.image, scene.location, CELL_PX, MARGIN)


def test_alphabet_calibration_keeps_every_letter_and_checks_the_layout():
    ts = get_tileset("de")
    order = alphabet_order(ts)
    assert order[:4] == ["A", "Ä", "B", "C"] and order[-2:] == ["Z", "?"]
    assert order == ts.alphabetical() + ["?"]
    arrays = learn_alphabet(_top(_alphabet_scene(order)), CELL_PX, MARGIN, ts)
    codes = {chr(c) for c in arrays["letter_codes"]}
    assert codes == ts.alphabet
    assert arrays["letter_glyphs"].dtype == np.uint8 and arrays["letter_glyphs"].shape[1:] == (GLYPH_PX, GLYPH_PX)
    # The user's letters read back their own pictures.
    reader = letter_reader(arrays)
    assert reader.own_features is not None and len(reader.own_labels) == len(arrays["letter_codes"])
    # A letter left out, the others in their places, teaches nothing wrong: the rest is
    # learned (refusing it refused tiles of the board's own colour, which look empty too).
    gap = learn_alphabet(_top(_alphabet_scene(order, gap=5)), CELL_PX, MARGIN, ts)
    assert {chr(c) for c in gap["letter_codes"]} == ts.alphabet - {order[5]}


def test_alphabet_calibration_gives_the_sets_face_colour():
    from companion.core.board import STANDARD
    from companion.vision.alphabet import learn_faces
    from companion.sim.scene import TILE_LOOKS

    ts = get_tileset("de")
    arrays, rgb = learn_faces(_top(_alphabet_scene(alphabet_order(ts))), ts, STANDARD)
    assert set(arrays) == {"letter_glyphs", "letter_codes"}
    body = TILE_LOOKS["ivory"].body
    assert max(abs(a - b) for a, b in zip(rgb, body)) <= 12


def test_alphabet_calibration_names_a_letter_out_of_order():
    ts = get_tileset("de")
    order = alphabet_order(ts)
    with pytest.raises(CompanionError, match=r"alphabet layout: square \(0, [02]\)"):
        learn_alphabet(_top(_alphabet_scene(order, swap=(0, 2))), CELL_PX, MARGIN, ts)


def test_model_file_is_what_the_loader_reads():
    model = load_model()
    assert model.w1.shape[0] == model.mean.shape[0] == glyph_features(np.zeros((1, GLYPH_PX, GLYPH_PX))).shape[1]


# ---------------------------------------------------------------------------------------------
# Where the value is, when other ink lies in the face's corners


def _clean_face(letter: str, value: str, seed: int = 3):
    """A plain face filling a 48-pixel crop with a 2-pixel margin: (crop, face_frac)."""
    from dataclasses import replace

    atlas = load_atlas()
    rng = np.random.default_rng(seed)
    style = replace(
        random_style(rng, atlas), font=0, body=215.0, ink=25.0, stroke=0, letter_height=0.48, squeeze=1.0,
        letter_shift=(-0.03, -0.03), value_height=0.18, value_inset=(0.1, 0.1), turn_deg=0.0,
        crop_shift=(0.0, 0.0), crop_scale=48 / 44, background=215.0, rim=0.0, out_px=48, blur=0.4,
        noise=0.0, gradient=0.0, jpeg=None, clear=True, token=None,
    )
    return draw_face(rng, atlas, letter, value, style).copy(), 44 / 48


def _decide(ink, letter_set: str = "en"):
    ts = get_tileset(letter_set)
    return letter_reader().score([ink], sorted(ts.alphabet), dict(ts.values)).decide()[0]


def test_a_line_of_dashes_at_the_face_edge_is_not_the_value():
    # The face's rim broken by the threshold into dashes lined up along the edge, more ink
    # than the value digit: it once gave the value's corner (an R read as an E turned).
    crop, frac = _clean_face("R", "1")
    assert split_face(crop, face_frac=frac).corner == (1, 1)
    for y in range(24, 44, 5):
        crop[y : y + 4, 3] = 20  # the left edge, bottom half: the corner of a quarter turn
    ink = split_face(crop, face_frac=frac)
    assert ink.corner == (1, 1)
    guess = _decide(ink)
    assert (guess.letter, guess.rotation) == ("R", 0)


def test_a_token_rim_opposite_the_value_leaves_the_turn_to_the_letter():
    # A token's faint rim in the top-left corner (the companion's players put it there),
    # two arcs with more ink than the value: the corner is in question, the letter decides.
    import cv2

    crop, frac = _clean_face("G", "2")
    ring = np.zeros_like(crop)
    cv2.circle(ring, (10, 10), 6, 255, 1)
    ring[9:12, :] = 0  # broken in two
    crop[ring > 0] = 40
    ink = split_face(crop, face_frac=frac)
    assert {ink.corner, ink.rival_corner} == {(1, 1), (-1, -1)}
    guess = _decide(ink)
    assert (guess.letter, guess.rotation) == ("G", 0)


def test_a_value_touching_the_rims_line_is_found():
    # The value printed against the face's dark rim (a tile seen at a slant): joined to the
    # line it went out of the face with it, and a symmetric letter lost its turn.
    crop, frac = _clean_face("N", "1")
    ink0 = split_face(crop, face_frac=frac)
    x, y = ink0.box[0] + ink0.box[2], ink0.box[1] + ink0.box[3]
    rows = np.nonzero((crop[y - 4 :, x:] < 120).any(1))[0]
    bottom = y - 4 + int(rows.max())  # the value's lowest row
    crop[bottom + 1 : bottom + 3, 2:46] = 30
    ink = split_face(np.rot90(crop, k=-2).copy(), face_frac=frac)  # the tile upside down
    assert ink.corner == CORNER_OF_TURN[2]
    assert _decide(ink).rotation == 180


def test_a_speck_beside_a_letter_is_no_diacritic():
    crop, frac = _clean_face("S", "1")
    box = split_face(crop, face_frac=frac).box
    crop[box[1] + 6 : box[1] + 9, box[0] + box[2] + 6] = 60  # a pixel wide, right of the S
    assert split_face(crop, face_frac=frac).box == box


def test_a_picture_the_same_upside_down_leaves_the_turn_to_the_value():
    # An N turned upside down is an N: whatever the network prefers, the value's corner says.
    crop, frac = _clean_face("N", "1")
    for k in range(4):
        ink = split_face(np.rot90(crop, k=-k).copy(), face_frac=frac)
        guess = _decide(ink)
        assert (guess.letter, guess.rotation) == ("N", 90 * k)
