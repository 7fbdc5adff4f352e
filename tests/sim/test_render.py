"""The synthetic renderer: its truth must be exactly what the image shows."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.core.board import Premium, layout_for_grid
from companion.core.errors import CompanionError
from companion.vision.glyphs import all_font_count
from companion.sim.render import RenderedScene, hand_sequence, render
from companion.sim.scene import (
    PRESETS,
    STYLES,
    TILE_LOOKS,
    TOKEN_COLOURS,
    Camera,
    Hand,
    Photo,
    SceneSpec,
    Square,
    board_style,
    content_from_board,
    green_style,
    preset,
    random_content,
)

SMALL = (752, 752)


def sample(image: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear samples (N, 3) float of a BGR image at pixel coordinates (N, 2)."""
    pts = np.asarray(pts, np.float32).reshape(-1, 1, 2)
    out = cv2.remap(image, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR)
    return out.reshape(-1, 3).astype(float)


def window_median(image: np.ndarray, pt: np.ndarray, r: int) -> np.ndarray:
    x, y = int(round(pt[0])), int(round(pt[1]))
    return np.median(image[y - r : y + r + 1, x - r : x + r + 1].reshape(-1, 3), axis=0)


def bgr(rgb) -> np.ndarray:
    return np.array(rgb[::-1], float)


def clean(camera: Camera | None = None, **kw) -> SceneSpec:
    return SceneSpec(camera=camera or Camera(size=SMALL), tile_offset=0.0, tile_jitter_deg=0.0, **kw)


# ---------------------------------------------------------------------------------------------
# Truth


def test_truth_follows_the_contract_and_the_content() -> None:
    spec = preset("phone", np.random.default_rng(3), features=True, hand=True)
    r = render(spec, 3)
    t = r.truth
    n = spec.grid
    assert (t.rows, t.cols) == (n, n) and len(t.cells) == n * n
    assert [(c.row, c.col) for c in t.cells] == [divmod(i, n) for i in range(n * n)]
    assert np.allclose(np.array(t.corners), r.location.corners, atol=1e-6)
    assert all(c.confidence == 1.0 for c in t.cells)
    assert r.image.dtype == np.uint8 and r.image.shape == (spec.camera.size[1], spec.camera.size[0], 3)
    assert r.hand_mask.shape == r.image.shape[:2] and r.hand_mask.dtype == bool
    for sq, s in spec.content.items():
        cell = t.cell(*r.to_contract(sq))
        assert cell.kind == s.kind
        assert cell.token == (s.token is not None)
        if s.kind == "tile":
            turn = 0 if s.letter == "?" else (s.rotation + 90 * r.quarter_turns) % 360
            assert cell.letter == s.letter and cell.rotation == turn
        if s.kind != "empty":
            assert cell.set == s.set and cell.rgb is not None
    assert sum(c.kind != "empty" or c.token for c in t.cells) == len(spec.content)


def test_same_spec_and_seed_give_the_same_bytes() -> None:
    spec = preset("phone", np.random.default_rng(5), features=True, hand=True)
    a, b = render(spec, 11), render(spec, 11)
    assert a.image.tobytes() == b.image.tobytes()
    assert a.truth == b.truth and a.covered == b.covered
    assert np.array_equal(a.hand_mask, b.hand_mask)
    c = render(spec, 12)
    assert c.image.tobytes() != a.image.tobytes()


def test_a_frame_number_changes_only_the_noise() -> None:
    spec = preset("mounted", np.random.default_rng(2), n_tiles=20)
    spec = replace(spec, camera=replace(spec.camera, size=SMALL), photo=replace(spec.photo, noise=3.0, jpeg=None))
    a, b = render(spec, 1, frame=0), render(spec, 1, frame=1)
    assert a.truth == b.truth
    diff = np.abs(a.image.astype(int) - b.image.astype(int))
    assert diff.max() > 0
    assert diff.mean() < 6


def test_content_is_printed_board_coordinates_and_truth_is_image_coordinates() -> None:
    blanks = {(0, 0): Square.tile("?", rotation=90), (14, 3): Square.back(), (5, 9): Square.tile("?", set="blue")}
    spec = clean(content={**blanks, (9, 2): Square.tile("L", rotation=90)})
    for roll, k in ((0, 0), (90, 1), (180, 2), (270, 3), (100, 1), (-100, 3)):
        r = render(replace(spec, camera=Camera(size=SMALL, roll_deg=roll)), 0)
        assert r.quarter_turns == k
        assert r.truth.cell(*r.to_contract((9, 2))).rotation == (90 + 90 * k) % 360
        # Nothing printed on a blank shows its turn: its truth is upright, however it lies.
        assert r.truth.cell(*r.to_contract((0, 0))).rotation == 0
        # Each piece lies in its truth square: that square's centre shows its colour.
        for sq in blanks:
            rr, cc = r.to_contract(sq)
            cell = r.truth.cell(rr, cc)
            centre = r.location.to_image(np.array([[cc + 0.5, rr + 0.5]]))[0]
            assert np.abs(window_median(r.image, centre, 3) - bgr(cell.rgb)).max() < 15, (roll, sq)
    # Row 0 of the truth is the edge nearest the top of the image, col 0 the left.
    r = render(replace(spec, camera=Camera(size=SMALL, roll_deg=100, tilt_deg=20)), 0)
    c = r.location.corners
    assert (c[0][1] + c[1][1]) / 2 < (c[2][1] + c[3][1]) / 2
    assert (c[0][0] + c[3][0]) / 2 < (c[1][0] + c[2][0]) / 2


def test_a_board_turned_by_about_45_degrees_takes_the_contracts_top_edge() -> None:
    # Turned by about 45 degrees and seen at a slant, the edge whose corners lie highest on
    # average (the contract's top edge, as the reader names it) need not be the one the
    # board's middle points up to: the truth names the contract's.
    from companion.vision.grid import locate_grid

    spec = preset("phone", np.random.default_rng(20020))
    r = render(spec, 20020)
    c = r.location.corners
    edges = [(c[i][1] + c[(i + 1) % 4][1]) / 2 for i in range(4)]
    assert edges[0] == min(edges)
    found = locate_grid(r.image)
    assert np.abs(found.corners - c).max() < 0.25 * np.linalg.norm(c[1] - c[0]) / 15  # (a quarter square)


# ---------------------------------------------------------------------------------------------
# Geometry: the grid is where the location says


def _grid_check(r: RenderedScene, style, tol_sq: float = 30) -> None:
    n = r.truth.rows
    layout = layout_for_grid(n)
    colour = {Premium.NONE: style.square, Premium.DL: style.dl, Premium.TL: style.tl,
              Premium.DW: style.dw, Premium.TW: style.tw}
    centres = np.array([[c + 0.5, rr + 0.5] for rr in range(n) for c in range(n)], float)
    got = sample(r.image, r.location.to_image(centres))
    want = np.array([bgr(colour[layout.premium((rr, c))]) for rr in range(n) for c in range(n)])
    centre_ok = np.abs(got - want).max(axis=1) < tol_sq
    centre_ok[layout.centre[0] * n + layout.centre[1]] = True  # the star
    assert centre_ok.mean() == 1.0, np.nonzero(~centre_ok)
    # Along the grid lines (away from the notches of premium squares), the line colour: more
    # than half of it, as a line a pixel wide is blended with the squares beside it.
    def square_colour(rr: int, cc: int) -> np.ndarray:
        if 0 <= rr < n and 0 <= cc < n:
            return bgr(colour[layout.premium((rr, cc))])
        return bgr(style.margin_colour)

    line, tol = [], []
    for i in range(n + 1):
        for j in range(n):
            for f in (0.1, 0.9):
                for pt, beside in (((i, j + f), ((j, i - 1), (j, i))), ((j + f, i), ((i - 1, j), (i, j)))):
                    line.append(pt)
                    tol.append(0.5 * max(np.abs(square_colour(*sq) - bgr(style.line)).max() for sq in beside))
    pts = r.location.to_image(np.array(line, float))
    dist = np.array([min(np.abs(sample(r.image, pts[k : k + 1] + d) - bgr(style.line)).max() for d in
                         ((0, 0), (0.7, 0), (-0.7, 0), (0, 0.7), (0, -0.7))) for k in range(len(pts))])
    assert np.mean(dist < np.array(tol)) > 0.98, np.mean(dist < np.array(tol))
    # A quarter square off the lines, never the line colour.
    off = r.location.to_image(np.array(line, float) + np.array([0.25, 0.25]))
    near = np.abs(sample(r.image, off) - bgr(style.line)).max(axis=1) < 0.5 * np.abs(bgr(style.square) - bgr(style.line)).max()
    assert np.mean(near) < 0.02


@pytest.mark.parametrize("camera", [
    Camera(size=SMALL),
    Camera(size=(1504, 1128), tilt_deg=30, lean_deg=20, roll_deg=37, fill=0.8, focal=0.8),
])
def test_grid_lines_and_squares_are_where_the_location_says(camera: Camera) -> None:
    style = green_style()
    r = render(clean(camera, style=style), 0)
    _grid_check(r, style)


def test_extended_board_21() -> None:
    style = green_style()
    r = render(clean(Camera(size=(1128, 1128)), style=style, grid=21), 0)  # lines 1.5 px wide
    assert r.truth.rows == 21 and len(r.truth.cells) == 441
    _grid_check(r, style)
    spec = preset("phone", np.random.default_rng(1), grid=21, features=True)
    r = render(replace(spec, camera=replace(spec.camera, size=SMALL)), 1)
    assert len(r.truth.cells) == 441 and sum(c.kind != "empty" for c in r.truth.cells) > 0


@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_style_renders_with_varied_colours(style: str) -> None:
    spec = preset("mounted", np.random.default_rng(4), style=style, n_tiles=10)
    r = render(replace(spec, camera=replace(spec.camera, size=SMALL)), 0)
    assert r.image.std() > 20
    assert spec.style.name == style and spec.style != board_style(style)  # colours varied


def test_lens_distortion_moves_the_corners_as_the_image() -> None:
    base = clean(Camera(size=SMALL, fill=0.8))
    a = render(base, 0)
    b = render(replace(base, camera=replace(base.camera, distortion=-0.08)), 0)
    ca, cb = np.array(a.truth.corners), np.array(b.truth.corners)
    mid = (np.array(SMALL) - 1) / 2
    # Barrel distortion pulls the corners towards the centre.
    assert np.all(np.linalg.norm(cb - mid, axis=1) < np.linalg.norm(ca - mid, axis=1) - 3)
    # The exact mapping agrees with the corners, and with the location where there is no lens.
    n = 15
    grid_corners = np.array([[0, 0], [n, 0], [n, n], [0, n]], float)
    assert np.allclose(b.to_image(grid_corners), cb, atol=1e-3)
    inner = np.array([[3.5, 7.0], [11.0, 2.0], [7.5, 7.5]])
    assert np.allclose(a.to_image(inner), a.location.to_image(inner), atol=1e-6)
    layout = layout_for_grid(n)
    colour = {Premium.NONE: base.style.square, Premium.DL: base.style.dl, Premium.TL: base.style.tl,
              Premium.DW: base.style.dw, Premium.TW: base.style.tw}
    centres = np.array([[c + 0.5, rr + 0.5] for rr in range(n) for c in range(n)], float)
    got = sample(b.image, b.to_image(centres))
    want = np.array([bgr(colour[layout.premium((rr, c))]) for rr in range(n) for c in range(n)])
    assert np.mean(np.abs(got - want).max(axis=1) < 30) > 0.99
    # And the image shows the grid's corner there: the outer line colour near each corner.
    style = base.style
    for p in cb:
        inward = (mid - p) / np.linalg.norm(mid - p)
        got = sample(b.image, np.array([p - inward * 0.3]))[0]
        assert np.abs(got - bgr(style.line)).max() < 60


# ---------------------------------------------------------------------------------------------
# Tiles, backs, tokens


def _face_centre(r: RenderedScene, sq: tuple[int, int], look) -> np.ndarray:
    """The projected centre of a tile's face, up by the tile's thickness."""
    rr, cc = r.to_contract(sq)
    return r.to_image(np.array([[cc + 0.5, rr + 0.5]]), height=look.thickness)[0]


def test_tiles_backs_and_sets_show_their_colour_where_the_truth_says() -> None:
    content = {
        (2, 2): Square.tile("?", set="ivory"),
        (2, 6): Square.tile("?", set="blue"),
        (7, 7): Square.back(set="ivory"),
        (12, 3): Square.back(set="blue"),
        (10, 10): Square.tile("?", set="pink"),
        (5, 12): Square.tile("?", set="wood"),
    }
    r = render(clean(content=content), 0)
    for sq in content:
        cell = r.truth.cell(*r.to_contract(sq))
        px = window_median(r.image, _face_centre(r, sq, TILE_LOOKS[content[sq].set]), 6)
        assert np.abs(px - bgr(cell.rgb)).max() < 14, (sq, px, cell.rgb)
    ivory, back = r.truth.cell(2, 2).rgb, r.truth.cell(7, 7).rgb
    assert np.abs(np.array(ivory) - np.array(back)).sum() > 60  # a back is not a blank
    assert np.abs(np.array(ivory) - np.array(TILE_LOOKS["ivory"].body)).max() < 12
    assert r.truth.cell(2, 6).set == "blue" and r.truth.cell(2, 2).set == "ivory"


def test_letters_and_values_are_printed_and_turned() -> None:
    # One tile, seen straight down; the face (rectified) turns with the rotation.
    crops = {}
    for rot in (0, 90, 180, 270):
        spec = clean(content={(7, 7): Square.tile("L", rotation=rot)})
        r = render(spec, 0)
        S = np.array([[1 / 40, 0, 7 + 0.5 / 40 + 0.05], [0, 1 / 40, 7 + 0.5 / 40 + 0.05], [0, 0, 1]])
        crop = cv2.warpPerspective(r.image, r.location.homography @ S, (36, 36), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR)
        crops[rot] = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(float)
    assert crops[0].min() < 100  # ink
    blank = render(clean(content={(7, 7): Square.tile("?")}), 0).image
    letter = render(clean(content={(7, 7): Square.tile("L")}), 0).image
    assert np.abs(blank.astype(int) - letter.astype(int)).max() > 100  # a blank has no ink

    def similar(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.corrcoef(a.ravel(), b.ravel())[0, 1])

    for rot in (90, 180, 270):
        turned = np.rot90(crops[0], -(rot // 90))  # clockwise
        assert similar(crops[rot], turned) > 0.8
        assert similar(crops[rot], crops[0]) < similar(crops[rot], turned) - 0.2


def test_tokens_lie_on_empty_squares_tiles_and_backs() -> None:
    content = {(3, 3): Square.token_only("red"), (7, 7): Square.tile("A", token="gold"), (11, 11): Square.back(token="black")}
    with_t = render(clean(content=content), 0)
    without = render(clean(content={k: replace(v, token=None) for k, v in content.items() if v.kind != "empty"}), 0)
    for sq, s in content.items():
        assert with_t.truth.cell(*sq).token
        rr, cc = sq
        # Somewhere in the square, the token's colour where there was none.
        pts = with_t.location.to_image(np.array([[cc + x, rr + y] for x in np.linspace(0.1, 0.9, 17) for y in np.linspace(0.1, 0.9, 17)]))
        got = sample(with_t.image, pts)
        before = sample(without.image, pts)
        body = bgr(TOKEN_COLOURS[s.token][0])
        assert np.any(np.abs(got - body).max(axis=1) < 30), sq
        assert not np.any(np.abs(before - body).max(axis=1) < 12) or s.token == "black", sq
    assert not without.truth.cell(3, 3).token


def test_a_scene_may_draw_a_token_in_its_own_colours() -> None:
    # A training scene's token of a tile face's own colour (companion/sim/trainscene.py).
    content = {(7, 7): Square.tile("A", token="gold")}
    own = ((30, 160, 200), (28, 150, 190))
    t = render(clean(content=content, token_colours={"gold": own}), 0)
    pts = t.location.to_image(np.array([[7 + x, 7 + y] for x in np.linspace(0.05, 0.95, 25) for y in np.linspace(0.05, 0.95, 25)]))
    got = sample(t.image, pts)
    assert np.any(np.abs(got - bgr(own[0])).max(axis=1) < 30)
    assert not np.any(np.abs(got - bgr(TOKEN_COLOURS["gold"][0])).max(axis=1) < 30)
    with pytest.raises(CompanionError, match="token colour 'teal'"):
        clean(content=content, token_colours={"teal": own})


# ---------------------------------------------------------------------------------------------
# Hands


def test_covered_squares_are_under_the_hand() -> None:
    content = random_content(np.random.default_rng(0), n_tiles=40)
    spec = clean(content=content, hand=Hand(tip=(7.0, 6.0), from_deg=20, width=4.5, height=2.5))
    r = render(spec, 0)
    assert r.hand_mask.any() and 0 < len(r.covered) < 225
    mask = r.hand_mask.astype(np.uint8)
    n = 15
    for rr in range(n):
        for cc in range(n):
            poly = r.location.to_image(np.array([[cc, rr], [cc + 1, rr], [cc + 1, rr + 1], [cc, rr + 1]], float))
            m = np.zeros_like(mask)
            cv2.fillConvexPoly(m, np.round(poly).astype(np.int32), 1)
            frac = (m & mask).sum() / max(1, m.sum())
            if frac > 0.2:
                assert (rr, cc) in r.covered, (rr, cc, frac)
            if frac == 0 and (rr, cc) not in {r.to_contract(k) for k in content}:
                assert (rr, cc) not in r.covered, (rr, cc)
    # The hand changes the image only where the hand or its shadow is.
    bare = render(replace(spec, hand=None), 0)
    diff = np.abs(r.image.astype(int) - bare.image.astype(int)).max(axis=2)
    assert diff[r.hand_mask].mean() > 30
    assert bare.covered == frozenset() and not bare.hand_mask.any()


@pytest.mark.parametrize("skin,holding", [((250, 222, 205), None), ((60, 40, 30), "Q")])
def test_hands_of_any_skin_holding_a_tile(skin, holding) -> None:
    spec = clean(hand=Hand(tip=(5.0, 9.0), from_deg=250, skin=skin, holding=holding))
    r = render(spec, 0)
    px = r.image[r.hand_mask]
    # Most hand pixels are skin or sleeve coloured (shaded), not the board's green.
    skin_like = np.abs(px.astype(float) - bgr(skin)).max(axis=1) < 90
    sleeve_like = np.abs(px.astype(float) - bgr(spec.hand.sleeve)).max(axis=1) < 90
    assert np.mean(skin_like | sleeve_like) > 0.7
    if holding:
        ivory = np.abs(px.astype(float) - bgr(TILE_LOOKS["ivory"].body)).max(axis=1) < 40
        assert ivory.sum() > 50


def test_hand_sequence_passes_over_a_still_board() -> None:
    spec = clean(content=random_content(np.random.default_rng(1), n_tiles=25))
    spec = replace(spec, photo=Photo(noise=2.0))
    frames = hand_sequence(spec, 0, Hand(tip=(7.5, 7.5), from_deg=0), steps_in=3, hold=1, steps_out=2, after=2)
    assert len(frames) == 8
    sizes = [int(f.hand_mask.sum()) for f in frames]
    assert sizes[3] > 0 and sizes[3] >= sizes[0]
    assert sizes[-1] == 0 and sizes[-2] == 0 and not frames[-1].covered
    assert len(frames[3].covered) > 0
    assert all(f.truth == frames[0].truth for f in frames)
    assert frames[-1].image.tobytes() != frames[-2].image.tobytes()  # the noise differs
    assert np.abs(frames[-1].image.astype(int) - frames[-2].image.astype(int)).mean() < 5


# ---------------------------------------------------------------------------------------------
# Presets, features, content


def test_phone_preset_with_every_feature() -> None:
    seen = {"back": False, "rotation": False, "sets": set(), "token": False, "covered": False, "turn": set()}
    for seed in range(3):
        spec = preset("phone", np.random.default_rng(seed), features=True, hand=True, n_tiles=60)
        spec = replace(spec, camera=replace(spec.camera, size=SMALL))
        r = render(spec, seed)
        cells = r.truth.cells
        seen["back"] |= any(c.kind == "back" for c in cells)
        seen["rotation"] |= any(c.kind == "tile" and c.rotation != r.quarter_turns * 90 for c in cells)
        seen["sets"] |= {c.set for c in cells if c.set}
        seen["token"] |= any(c.token for c in cells)
        seen["covered"] |= bool(r.covered)
        seen["turn"].add(r.quarter_turns)
        assert spec.photo.jpeg is not None and spec.camera.tilt_deg >= 8
    assert seen["back"] and seen["rotation"] and len(seen["sets"]) >= 2 and seen["token"] and seen["covered"]


def test_random_content_is_laid_like_a_game() -> None:
    rng = np.random.default_rng(7)
    content = random_content(rng, "de", 50, p_back=0.1, p_rotated=0.3, sets=("ivory", "blue"), p_token=0.1)
    assert len([s for s in content.values() if s.kind != "empty"]) == 50
    assert (7, 7) in content
    # Connected: every tile reaches the centre through tiles.
    todo, seen = [(7, 7)], {(7, 7)}
    while todo:
        r, c = todo.pop()
        for p in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if p in content and content[p].kind != "empty" and p not in seen:
                seen.add(p)
                todo.append(p)
    assert len(seen) == 50
    kinds = [s.kind for s in content.values()]
    assert "back" in kinds and any(s.rotation for s in content.values())
    assert {s.set for s in content.values()} == {"ivory", "blue"}
    assert any(s.token for s in content.values())
    from companion.core.tiles import get_tileset

    de = get_tileset("de").alphabet | {"?"}
    assert all(s.letter in de for s in content.values() if s.kind == "tile")
    assert random_content(np.random.default_rng(7), "de", 50, p_back=0.1, p_rotated=0.3, sets=("ivory", "blue"), p_token=0.1) == content


@pytest.mark.parametrize("name", PRESETS)
def test_presets(name: str) -> None:
    spec = preset(name, np.random.default_rng(0), tileset="de")
    assert spec.tileset == "de"
    if name == "clean":
        assert spec.photo == Photo() and spec.camera.tilt_deg == 0
    if name == "mounted":
        assert spec.camera.tilt_deg <= 4


@pytest.mark.parametrize("photo", [
    Photo(gradient=0.4), Photo(shadows=2), Photo(glare=2), Photo(white_balance=(1.2, 1.0, 0.8)),
    Photo(blur=1.5), Photo(motion=5), Photo(noise=4), Photo(jpeg=60), Photo(clutter=4),
    Photo(table="wood"), Photo(table="cloth"),
])
def test_every_photo_effect_changes_the_picture(photo: Photo) -> None:
    base = clean(Camera(size=(400, 300), fill=0.7), content={(7, 7): Square.tile("A")})
    a = render(base, 0).image.astype(int)
    b = render(replace(base, photo=photo), 0).image.astype(int)
    diff = np.abs(a - b).max(axis=2)
    assert diff.max() > 20 or diff.mean() > 1.5
    if photo.clutter or photo.table != "plain":
        # Clutter and the table's texture lie beside the board, never on it.
        board = np.zeros(diff.shape, np.uint8)
        r = render(base, 0)
        cv2.fillConvexPoly(board, np.round(r.location.corners).astype(np.int32), 1)
        assert diff[board > 0].max() == 0


# ---------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize("make", [
    lambda: SceneSpec(grid=17),
    lambda: SceneSpec(content={(15, 0): Square.tile("A")}),
    lambda: SceneSpec(content={(0, 0): Square.tile("Ä")}),  # not an English letter
    lambda: SceneSpec(content={(0, 0): Square.tile("A", set="green")}),
    lambda: SceneSpec(font=all_font_count()),  # past the held-out and training-only families too
    lambda: Square("tile"),
    lambda: Square("back", letter="A"),
    lambda: Square.tile("A", rotation=45),
    lambda: Square.tile("A", token="purple"),
    lambda: Camera(tilt_deg=80),
    lambda: Camera(size=(10, 10)),
    lambda: Photo(jpeg=101),
    lambda: board_style("plaid"),
    lambda: preset("drone", np.random.default_rng(0)),
    lambda: render("not a spec", 0),  # type: ignore[arg-type]
    lambda: random_content(np.random.default_rng(0), n_tiles=300),
])
def test_bad_specs_are_one_line_errors(make) -> None:
    with pytest.raises(CompanionError) as e:
        make()
    assert "\n" not in str(e.value)


def test_a_game_board_renders_as_it_lies() -> None:
    from companion.core.board import Board, Tile

    board = Board().with_tiles([((7, 7), Tile("Q")), ((7, 8), Tile("I", blank=True)), ((8, 7), Tile("A", rotation=90, set="blue"))])
    content = content_from_board(board)
    assert content[(7, 7)] == Square.tile("Q") and content[(7, 8)] == Square.tile("?")
    r = render(clean(content=content), 0)
    assert r.truth.text().splitlines()[7][7:9] == "Q?"
    assert r.truth.cell(8, 7).rotation == 90 and r.truth.cell(8, 7).set == "blue"


def test_a_tile_stays_put_when_others_are_added() -> None:
    spec = SceneSpec(camera=Camera(size=SMALL), content={(7, 7): Square.tile("A")})
    a = render(spec, 4)
    b = render(replace(spec, content={(7, 7): Square.tile("A"), (2, 2): Square.tile("B")}), 4)
    box = (slice(330, 420), slice(330, 420))  # around the centre square, far from (2, 2)
    assert np.array_equal(a.image[box], b.image[box])


def test_german_letters_render() -> None:
    spec = clean(content={(7, 6): Square.tile("Ä"), (7, 7): Square.tile("Ö"), (7, 8): Square.tile("Ü")}, tileset="de")
    r = render(spec, 0)
    assert r.truth.cell(7, 7).letter == "Ö"


def test_a_strangers_table_is_drawn_the_same_for_a_seed_in_a_held_out_font() -> None:
    from companion.sim.scene import stranger

    a = render(stranger(np.random.default_rng(7), phone=True), 7)
    b = render(stranger(np.random.default_rng(7), phone=True), 7)
    assert np.array_equal(a.image, b.image)
    assert a.spec.font >= 13 and a.spec.photo.table in ("checked", "striped", "patterned", "wood")
