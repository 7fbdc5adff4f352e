"""A token is told by its shape: a solid disc of its size, ringed on every side by something
unlike it (companion.vision.cells.token_discs.token_disc)."""

import cv2
import numpy as np

from companion.vision.cells.token_discs import _DISC_CONTRAST, _off_blend, token_disc

R = 4.8  # a token's radius in pixels at the reader's 48 pixels a square


def _lab(draw) -> np.ndarray:
    img = np.full((48, 48, 3), (200, 225, 235), np.uint8)  # an ivory ground
    draw(img)
    img = cv2.GaussianBlur(img, (3, 3), 0.7)
    return cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)


def _best(lab: np.ndarray) -> float:
    return float(token_disc(lab, R)[1][8:-8, 8:-8].max())


def test_a_disc_of_a_tokens_size_stands_out():
    lab = _lab(lambda im: cv2.circle(im, (24, 24), int(R), (40, 30, 200), -1))
    assert _best(lab) > _DISC_CONTRAST


def test_a_stroke_a_bar_and_a_big_patch_do_not():
    stroke = _lab(lambda im: cv2.line(im, (4, 24), (44, 24), (40, 30, 200), 9))
    patch = _lab(lambda im: cv2.rectangle(im, (10, 10), (38, 38), (40, 30, 200), -1))
    assert _best(stroke) < _DISC_CONTRAST
    assert _best(patch) < _DISC_CONTRAST


def test_a_disc_joined_to_a_stroke_is_the_strokes_end():
    def draw(im):
        cv2.circle(im, (24, 24), int(R), (30, 30, 30), -1)
        cv2.line(im, (24, 24), (44, 24), (30, 30, 30), 4)

    assert _best(_lab(draw)) < _DISC_CONTRAST


def test_blends_of_a_squares_two_colours_are_not_foreign():
    light, dark = np.array([230.0, 128.0, 140.0]), np.array([60.0, 128.0, 130.0])
    mid = 0.5 * (light + dark)
    gold = np.array([190.0, 135.0, 200.0])
    assert float(_off_blend(mid, light, dark)) < 1.0
    assert float(_off_blend(gold, light, dark)) > 20.0


def _corner_crop(at: tuple[int, int], colour: tuple[int, int, int]) -> np.ndarray:
    img = np.full((36, 36, 3), (200, 225, 235), np.uint8)
    cv2.circle(img, at, int(R), colour, -1)
    return cv2.cvtColor(cv2.GaussianBlur(img, (3, 3), 0.7), cv2.COLOR_BGR2LAB).astype(np.float32)


def test_corner_discs_finds_a_corner_disc_and_a_stack_reads_as_each_crop_alone():
    from companion.vision.cells.token_discs import corner_discs

    # Crops searched at different places (the last ones so near the edge that some of a
    # middle's sides fall off the crop) and turns: read together or one by one, the same.
    cases = [((18, 18), 0, (40, 30, 200)), ((18, 18), 90, (30, 30, 30)), ((17, 19), 180, (40, 30, 200)),
             ((5, 5), 0, (40, 30, 200)), ((31, 30), 270, (90, 160, 60)), ((18, 18), 0, (200, 225, 235))]
    labs = np.stack([_corner_crop(at, colour) for at, _, colour in cases])
    ats = np.array([at for at, _, _ in cases], float)
    turns = [t for _, t, _ in cases]
    together = corner_discs(labs, ats, R, turns, 6)
    for i in range(len(cases)):
        alone = corner_discs(labs[i : i + 1], ats[i : i + 1], R, turns[i : i + 1], 6)
        for a, b in zip(together, alone):
            assert np.array_equal(a[i], b[0])
    x, y, score, _, _ = together
    assert (x[0], y[0]) == (18.0, 18.0) and score[0] > _DISC_CONTRAST  # a disc where a token lies
    assert score[5] < _DISC_CONTRAST  # a plain corner holds none
