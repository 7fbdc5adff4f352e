"""A tile's own outline (companion.vision.outline): a face of a tile's size with rounded
corners, standing on a square of nearly its colour, against empty squares bounded by the
board's straight grid lines. Drawn boards, and rendered scenes where colour could not tell a
pale blank from an empty square."""

import math

import cv2
import numpy as np

from companion.vision.outline import edge_maps, outline_features, outline_llr
from tests.vision.test_kinds import _read
from companion.sim.scene import preset

P = 48


def _board(rng: np.random.Generator, line: int, glare: bool) -> np.ndarray:
    """5 x 5 squares of grey 190 (half a square of margin), grid lines 3 px wide of ``line``,
    a pale face (192, nearly the square's colour) on the middle square: 45 px wide, rounded
    corners, a thin darker rim, 2 px off the square's middle and turned 3 degrees."""
    n = 6 * P
    img = np.full((n, n), 190.0, np.float32)
    for k in range(6):
        v = P // 2 + k * P
        img[max(0, v - 1) : v + 2, :] = line
        img[:, max(0, v - 1) : v + 2] = line
    cx, cy, side, r, turn = 3 * P + 2.0, 3 * P - 1.0, 0.94 * P, 0.12 * 0.94 * P, math.radians(3.0)
    big = 8
    mask = np.zeros((n * big, n * big), np.uint8)
    h = side / 2 - r
    pts = []
    for sx, sy, a0 in ((1, -1, -90), (1, 1, 0), (-1, 1, 90), (-1, -1, 180)):
        for a in np.radians(np.linspace(a0, a0 + 90, 8)):
            pts.append((sx * h + r * math.cos(a), sy * h + r * math.sin(a)))
    pts = np.array(pts)
    rot = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    pts = pts @ rot.T + (cx, cy)
    cv2.fillPoly(mask, [np.round(pts * big).astype(np.int32)], 255)
    alpha = cv2.resize(mask, (n, n), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    inner = cv2.erode((alpha > 0.5).astype(np.uint8), np.ones((3, 3), np.uint8)).astype(np.float32)
    face = np.where(inner > 0, 192.0, 150.0)  # the rim: the face's edge seen from above
    img = img * (1 - alpha) + face * alpha
    if glare:  # a smooth lamp's spot over the whole board: no outline of its own
        yy, xx = np.mgrid[0:n, 0:n]
        img += 40.0 * np.exp(-((xx - 1.5 * P) ** 2 + (yy - 2.0 * P) ** 2) / (2 * (1.2 * P) ** 2))
    img += rng.normal(0, 1.5, img.shape)
    return np.clip(cv2.GaussianBlur(img, (0, 0), 0.7), 0, 255).astype(np.uint8)


def _features(img: np.ndarray) -> dict[tuple[int, int], np.ndarray]:
    gx, gy = edge_maps(img)
    rc = [(r, c) for r in range(1, 5) for c in range(1, 5)]
    cx = np.array([P // 2 + c * P + P / 2 for _, c in rc], np.float32)
    cy = np.array([P // 2 + r * P + P / 2 for r, _ in rc], np.float32)
    level = np.full(len(rc), 190.0, np.float32)
    f = outline_features(gx, gy, level, cx, cy, P, 0.94 * P)
    return dict(zip(rc, f))


def test_a_pale_face_shows_rounded_corners_the_empty_squares_do_not():
    # Light grid lines (a board's gaps, as on the real boards), with and without glare: the
    # face's corners bend, the grid lines run straight through an empty square's corners.
    # (Dark lines, blurred, round every square's corners as much as a face's: there the
    # reader weighs the outline by how far apart its own faces and empty squares lie.)
    rng = np.random.default_rng(0)
    for line in (250, 235, 215):
        for glare in (False, True):
            f = _features(_board(rng, line, glare))
            face = f.pop((2, 2))
            empties = np.stack(list(f.values()))
            assert (face > empties.max(0)).all(), (line, glare, face, empties.max(0))


def test_the_outline_weighs_by_how_far_apart_faces_and_empties_lie():
    rng = np.random.default_rng(1)
    empties = rng.normal(1.0, 0.2, (20, 2))
    tiles = rng.normal(2.5, 0.2, (20, 2))
    at = outline_llr(np.array([[2.5, 2.5], [1.0, 1.0], [1.75, 1.75]]), empties, tiles)
    assert at[0] > 2.0 and at[1] < -2.0 and abs(at[2]) < 0.5
    # Where this photo's faces and empty squares show nearly the same corners (thick, blurred
    # grid lines round every square's corners), a square's corners say little.
    close = outline_llr(np.array([[0.8, 0.8]]), empties, rng.normal(1.15, 0.2, (20, 2)))
    assert -1.5 < close[0] < 0


def test_pale_blanks_and_empty_squares_of_their_colour_are_told_by_the_outline():
    # Rendered scenes where an ivory blank lies on a square of nearly its colour (read empty
    # before), and where glare washes an empty square towards an ivory face (read a blank).
    cases = {3039: ([(8, 10)], []), 3104: ([(5, 11), (7, 8)], [(7, 1)]), 3046: ([], [(8, 11)])}
    for seed, (blanks, empties) in cases.items():
        spec = preset("mounted", np.random.default_rng(seed), features=True)
        scene, cells = _read(spec, seed)
        for rc in blanks:
            assert scene.truth.cell(*rc).kind == "tile" and scene.truth.cell(*rc).letter == "?"
            assert (cells[rc].kind, cells[rc].letter) == ("tile", "?"), (seed, rc, cells[rc])
        for rc in empties:
            assert scene.truth.cell(*rc).kind == "empty"
            assert cells[rc].kind == "empty", (seed, rc, cells[rc])
