"""Which tile set each face is, under a photo's own light: a tinted light, a shadow over some
faces of one set, a lamp's glare over one face. Rendered scenes (companion.sim.render)
with their exact truth, read with a profile naming each set's face and back colour."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.vision.cells.set_colours import _one_set_in_two_lights
from companion.vision.colour import rgb_to_bgr
from companion.sim.scene import TILE_LOOKS, Square, preset

from .rendered import read_rendered


def _wrong_sets(scene, cells):
    faces = [c for c in scene.truth.cells if c.kind == "tile"]
    assert faces
    return [((c.row, c.col), c.set, cells[(c.row, c.col)].set) for c in faces if cells[(c.row, c.col)].set != c.set]


def _word(row: int, col: int, letters: str, set_: str) -> dict:
    return {(row, col + i): Square.tile(ch, set=set_) for i, ch in enumerate(letters)}


def test_a_tinted_light_names_the_sets_by_one_light():
    # A magenta white balance (red and blue up, green down) turns ivory faces pink-ish; the
    # board's one pink face is pinker still. Colour alone takes the ivory faces, the only
    # colour found, for the pink set; one light that carries both sets' colours explains
    # both only when the many faces are ivory.
    for seed in (11, 12):
        content = {**_word(7, 3, "JOLTIEST", "ivory"), **_word(4, 8, "UN", "ivory"),
                   (9, 4): Square.tile("N", set="pink"), (10, 10): Square.back("ivory")}
        spec = preset("mounted", np.random.default_rng(seed), content=content, style="band")
        spec = replace(spec, photo=replace(spec.photo, white_balance=(1.07, 0.90, 1.07), glare=0, shadows=0))
        scene, cells = read_rendered(spec, seed)
        assert _wrong_sets(scene, cells) == [], seed


def test_lightness_alone_does_not_part_two_sets():
    # A shadow over some ivory faces makes them darker, not another hue: two colours found
    # that differ in lightness alone are one set; ivory and wood differ in hue.
    ivory, wood = rgb_to_bgr(TILE_LOOKS["ivory"].body), rgb_to_bgr(TILE_LOOKS["wood"].body)
    lit = np.array([ivory * 0.95, ivory, ivory * 1.02], np.float32)
    shaded = lit * 0.72
    bodies = np.concatenate([lit, shaded])
    masks = [np.arange(6) < 3, np.arange(6) >= 3]
    tiles, pols, members = _one_set_in_two_lights(bodies, [lit[1], shaded[1]], [1, 1], masks, [ivory, wood])
    assert len(tiles) == 1 and members[0].all()
    woods = np.array([wood * 0.97, wood, wood * 1.03], np.float32)
    bodies = np.concatenate([lit, woods])
    tiles, _, _ = _one_set_in_two_lights(bodies, [lit[1], woods[1]], [1, 1], masks, [ivory, wood])
    assert len(tiles) == 2


def _glare_over(image: np.ndarray, location, square: tuple[int, int], strength: float) -> np.ndarray:
    """A lamp's specular spot over one square, as the renderer lays glare: a screen blend
    towards white, a Gaussian a square wide."""
    corners = np.asarray(location.corners, np.float64)
    n = location.rows
    h = cv2.getPerspectiveTransform(np.float32([[0, 0], [n, 0], [n, n], [0, n]]), np.float32(corners))
    r, c = square
    x, y = cv2.perspectiveTransform(np.float32([[[c + 0.5, r + 0.5]]]), h)[0, 0]
    pitch = float(np.linalg.norm(corners[1] - corners[0])) / n
    ys, xs = np.mgrid[0 : image.shape[0], 0 : image.shape[1]].astype(np.float32)
    g = strength * np.exp(-((xs - x) ** 2 + (ys - y) ** 2) / (2 * (0.6 * pitch) ** 2))
    out = 255.0 - (255.0 - image.astype(np.float32)) * (1.0 - g[..., None])
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _read_with_glare_on_the_d(spec, seed: int, strength: float):
    """The scene read with a lamp's spot of ``strength`` over the wood D of WOODEN: (scene,
    cells), the face placed through the truth's own orientation (a scene may be turned)."""
    import tests.vision.rendered as rendered

    real_render = rendered.render

    def render_with_glare(spec_, seed_):
        scene = real_render(spec_, seed_)
        face = next(c for c in scene.truth.cells if c.kind == "tile" and c.letter == "D" and c.set == "wood")
        return replace(scene, image=_glare_over(scene.image, scene.location, (face.row, face.col), strength))

    with pytest.MonkeyPatch.context() as patch:  # the real renderer again for the next scene
        patch.setattr(rendered, "render", render_with_glare)
        return read_rendered(spec, seed)


def test_a_wood_face_under_glare_stays_wood():
    # A lamp's spot washes a wood face out towards white, near the ivory set's colour; its
    # ink fades as much as its body. An ivory face would show its ink whole.
    seed = 21
    content = {**_word(7, 2, "WOODEN", "wood"), **_word(9, 2, "SATIRE", "ivory"), **_word(5, 3, "BRAWL", "wood")}
    spec = preset("mounted", np.random.default_rng(seed), content=content, style="classic")
    spec = replace(spec, photo=replace(spec.photo, glare=0, shadows=0))
    scene, cells = _read_with_glare_on_the_d(spec, seed, 0.55)
    face = next(c for c in scene.truth.cells if c.kind == "tile" and c.letter == "D" and c.set == "wood")
    assert cells[(face.row, face.col)].kind == "tile"
    assert _wrong_sets(scene, cells) == []
