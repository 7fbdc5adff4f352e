"""Tokens the colour test alone misses (docs/vision-tokens.md): a dark token on a light square is
no shadow, and a token of its face's own colour shows only its rim, which leaves the square in
doubt (companion.vision.cells.token_discs)."""

import cv2
import numpy as np

from companion.vision.cells.token_discs import _RING_DOUBT, _TOKEN_FOREIGN, _unlike, corner_rings

R = 4.8  # a token's radius in pixels at the reader's 48 pixels a square


def _lab(bgr) -> np.ndarray:
    return cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2LAB).astype(np.float32)[0, 0]


def test_a_dark_token_on_a_light_square_is_foreign_and_a_shadow_is_not():
    ground = _lab((235, 238, 240))
    token = _lab((100, 100, 100))  # a black token as a camera that lifts blacks shows it
    shadow = _lab((170, 172, 174))  # the ground in a tile's shadow: darker, same hue
    assert float(_unlike(token, ground)) > _TOKEN_FOREIGN
    assert float(_unlike(shadow, ground)) < _TOKEN_FOREIGN


BODY = (40, 40, 44)  # a black tile's face (BGR)


def _corner(draw) -> np.ndarray:
    """A face's top-left corner, 36 pixels across, the face from (4, 4) on; a token's middle
    lies at (10, 10)."""
    img = np.full((36, 36, 3), (120, 150, 160), np.uint8)  # the board past the face
    cv2.rectangle(img, (4, 4), (35, 35), BODY, -1)
    draw(img)
    return cv2.cvtColor(cv2.GaussianBlur(img, (3, 3), 0.6), cv2.COLOR_BGR2LAB).astype(np.float32)


def _rim(draw) -> float:
    labs = _corner(draw)[None]
    _x, _y, score = corner_rings(labs, np.array([[10.0, 10.0]]), R, [0], 6, _lab(BODY)[None])
    return float(score[0])


def test_a_token_of_the_faces_own_colour_shows_its_rim():
    def token(img):
        cv2.circle(img, (10, 10), 5, (95, 90, 90), -1)  # the rim, lighter than the face
        cv2.circle(img, (10, 10), 3, (38, 38, 42), -1)  # the body, the face's colour

    assert _rim(token) > _RING_DOUBT


def test_a_bare_corner_a_stroke_and_a_shadow_show_none():
    assert _rim(lambda img: None) < _RING_DOUBT
    assert _rim(lambda img: cv2.line(img, (4, 14), (35, 14), (240, 240, 240), 2)) < _RING_DOUBT
    assert _rim(lambda img: cv2.rectangle(img, (4, 4), (9, 35), (25, 25, 28), -1)) < _RING_DOUBT


def test_a_grained_corner_is_no_rim():
    # Wood grain and glints are unlike the middle on every ray too, but each in another colour.
    rng = np.random.default_rng(7)

    def grain(img):
        noise = rng.normal(0, 18, (32, 32, 1)).repeat(3, axis=2)
        img[4:, 4:] = np.clip(img[4:, 4:].astype(float) + noise, 0, 255).astype(np.uint8)

    assert _rim(grain) < _RING_DOUBT

