"""Hands over the board: frames drawn here (a board-like lattice, tiles, an arm from an edge in
skin tones from very light to very dark and sleeves of any colour), the synthetic renderer's
hand frames, and real photos without hands (any detection there is a false alarm)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.core.board import STANDARD, Premium
from companion.vision.grid import GridLocation
from companion.vision.hands import (
    OCCLUDED,
    Hands,
    HandTracker,
    apply_occlusion,
    board_view,
    detect_hands,
    line_evidence,
)
from companion.vision.reading import BoardReading, CellReading

PHOTOS = Path(__file__).resolve().parents[2] / ".." / "shared" / "photos"

PREMIUM_BGR = {Premium.NONE: (60, 140, 40), Premium.DL: (220, 180, 120), Premium.TL: (190, 90, 40),
               Premium.DW: (130, 130, 220), Premium.TW: (50, 50, 200)}
SKINS = {"very light": (200, 214, 245), "light": (160, 185, 230), "medium": (110, 150, 200),
         "tan": (80, 120, 170), "brown": (55, 85, 130), "dark": (40, 55, 85), "very dark": (25, 32, 50)}
SLEEVES = {"none": None, "green as the board": (60, 140, 40), "white": (220, 225, 230), "blue": (180, 60, 60),
           "black": (30, 30, 30), "cream as a tile": (190, 225, 240), "red": (40, 40, 200)}


# ---------------------------------------------------------------------------------------------
# Drawn frames


def draw_board(rng: np.random.Generator, size: int = 800, cell: int = 40, n_tiles: int = 25,
               light: bool = True) -> tuple[np.ndarray, GridLocation]:
    """A board seen at a slant: premium squares coloured by class, dark grid lines, cream tiles
    with letters and a little shadow, on a grey table; with ``light`` an uneven light and a
    soft shadow band across the board, which must not be taken for a hand."""
    n, m = 15, 1
    top = np.zeros(((n + 2 * m) * cell, (n + 2 * m) * cell, 3), np.uint8)
    top[:] = (40, 100, 30)
    for r in range(n):
        for c in range(n):
            y, x = (m + r) * cell, (m + c) * cell
            top[y : y + cell, x : x + cell] = PREMIUM_BGR[STANDARD.premium((r, c))]
    for i in range(n + 1):
        p = (m + i) * cell
        cv2.line(top, (m * cell, p), ((m + n) * cell, p), (20, 30, 20), 2)
        cv2.line(top, (p, m * cell), (p, (m + n) * cell), (20, 30, 20), 2)
    letters = "ABCDEFGHIJKLMNOPRSTUWZ"
    used: set[tuple[int, int]] = set()
    for _ in range(n_tiles):
        r, c = int(rng.integers(n)), int(rng.integers(n))
        if (r, c) in used:
            continue
        used.add((r, c))
        jx, jy = rng.uniform(-0.06, 0.06, 2) * cell
        x0, y0, s = int((m + c + 0.04) * cell + jx), int((m + r + 0.04) * cell + jy), int(0.92 * cell)
        cv2.rectangle(top, (x0 + 2, y0 + 3), (x0 + s + 2, y0 + s + 3), (30, 60, 20), -1)
        cv2.rectangle(top, (x0, y0), (x0 + s, y0 + s), (190, 225, 240), -1)
        cv2.putText(top, letters[int(rng.integers(len(letters)))], (x0 + s // 4, y0 + 3 * s // 4),
                    cv2.FONT_HERSHEY_SIMPLEX, cell / 45, (30, 30, 30), 2, cv2.LINE_AA)
    inset = size * 0.1
    quad = np.array([[inset, inset], [size - inset, inset], [size - inset, size - inset], [inset, size - inset]])
    quad += rng.uniform(-0.04, 0.04, quad.shape) * size
    src = np.array([[m, m], [m + n, m], [m + n, m + n], [m, m + n]], np.float32) * cell
    img = np.full((size, size, 3), (150, 160, 170), np.uint8)
    cv2.warpPerspective(top, cv2.getPerspectiveTransform(src, quad.astype(np.float32)), (size, size), dst=img,
                        borderMode=cv2.BORDER_TRANSPARENT, flags=cv2.INTER_AREA)
    if light:
        ys, xs = np.mgrid[0:size, 0:size].astype(np.float32) / size
        gain = 0.75 + 0.4 * xs  # light from one side
        a = rng.uniform(0, np.pi)
        band = np.abs((xs - 0.5) * np.cos(a) + (ys - 0.5) * np.sin(a)) < 0.08  # a shadow across the board
        gain = gain * np.where(cv2.GaussianBlur(band.astype(np.float32), (0, 0), size * 0.01) > 0.5, 0.6, 1.0)
        img = np.clip(img * gain[..., None], 0, 255).astype(np.uint8)
    return img, GridLocation.from_corners(quad, n, n)


def draw_arm(rng: np.random.Generator, image: np.ndarray, location: GridLocation, skin: tuple[int, int, int],
             sleeve: tuple[int, int, int] | None = None, edge: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """An arm from one edge of the image to a point over the board, proportioned to a 19 mm
    square (palm about 4.5 squares wide, fingers a square wide and 3 to 4 long): forearm, palm,
    four fingers and a thumb, shaded like a cylinder, a sleeve from the edge, a soft cast shadow.
    Returns the frame and the arm's mask."""
    h, w = image.shape[:2]
    cell = np.sqrt(cv2.contourArea(location.corners.astype(np.float32))) / location.cols
    k = rng.uniform(0.75, 1.1) * cell
    edge = int(rng.integers(4)) if edge is None else edge
    t = rng.uniform(0.2, 0.8)
    start = np.array([(t * w, -3 * k), (w + 3 * k, t * h), (t * w, h + 3 * k), (-3 * k, t * h)][edge])
    target = location.to_image(np.array([[rng.uniform(2, 13), rng.uniform(2, 13)]]))[0]
    d = (target - start) / np.linalg.norm(target - start)
    nrm = np.array([-d[1], d[0]])
    mask = np.zeros((h, w), np.uint8)

    def pt(p: np.ndarray) -> tuple[int, int]:
        return round(p[0]), round(p[1])

    wrist = target - d * 3.0 * k
    cv2.line(mask, pt(start), pt(wrist), 255, int(3.4 * k))
    palm = wrist + d * 2.0 * k
    cv2.ellipse(mask, pt(palm), (int(2.2 * k), int(2.3 * k)), float(np.degrees(np.arctan2(d[1], d[0]))), 0, 360, 255, -1)
    spread = rng.uniform(0.0, 0.25)
    for off, length in zip((-1.6, -0.55, 0.55, 1.55), (3.0, 4.0, 3.7, 2.9)):
        base = palm + d * 1.6 * k + nrm * off * k
        way = d + nrm * off * spread
        cv2.line(mask, pt(base), pt(base + way / np.linalg.norm(way) * length * k), 255, max(2, int(0.95 * k)))
    side = 1 if rng.random() < 0.5 else -1
    thumb = palm + nrm * side * 1.7 * k - d * 0.5 * k
    cv2.line(mask, pt(thumb), pt(thumb + (d * 1.6 + nrm * side * 1.6) * k), 255, max(2, int(1.1 * k)))

    out = image.astype(np.float32)
    shadow = np.roll(mask, (int(rng.uniform(0.2, 0.8) * cell), int(rng.uniform(-0.6, 0.6) * cell)), (0, 1))
    out *= (1 - 0.45 * cv2.GaussianBlur(shadow.astype(np.float32) / 255, (0, 0), 0.3 * cell))[..., None]
    dist = cv2.distanceTransform((mask > 0).astype(np.uint8), cv2.DIST_L2, 5)
    shade = 0.7 + 0.45 * np.clip(dist / (1.5 * cell), 0, 1)
    ys, xs = np.mgrid[0:h, 0:w]
    colour = np.empty((h, w, 3), np.float32)
    colour[:] = skin
    if sleeve is not None:
        colour[(xs - start[0]) * d[0] + (ys - start[1]) * d[1] < rng.uniform(4, 9) * cell] = sleeve
    noise = cv2.GaussianBlur(rng.normal(0, 6, (h, w)).astype(np.float32), (0, 0), 2)
    a = cv2.GaussianBlur((mask > 0).astype(np.float32), (0, 0), 1.0)[..., None]
    out = out * (1 - a) + (colour * shade[..., None] + noise[..., None]) * a
    return np.clip(out, 0, 255).astype(np.uint8), mask > 0


def coverage(mask: np.ndarray, location: GridLocation, px: int = 16) -> np.ndarray:
    """The share of each square a mask covers."""
    to_grid = np.diag([1 / px, 1 / px, 1.0])
    top = cv2.warpPerspective(mask.astype(np.float32), location.homography @ to_grid, (location.cols * px, location.rows * px),
                              flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    return top.reshape(location.rows, px, location.cols, px).mean(axis=(1, 3))


def reading_all(confidence: float = 0.95, rows: int = 15, cols: int = 15) -> BoardReading:
    """A reader fooled by nothing: every square read as a tile with high confidence."""
    cells = tuple(CellReading(r, c, "tile", "E", 0, confidence=confidence) for r in range(rows) for c in range(cols))
    return BoardReading(rows, cols, ((0, 0), (1, 0), (1, 1), (0, 1)), cells)


def under_hand(cov: np.ndarray) -> np.ndarray:
    return cov > 0.10  # the renderer's rule: more than a tenth of the square hidden


# ---------------------------------------------------------------------------------------------
# Drawn frames: no hand


@pytest.mark.parametrize("seed", range(6))
def test_a_drawn_board_without_a_hand_raises_no_alarm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    image, location = draw_board(rng, size=int(rng.choice([600, 800, 1000])), cell=int(rng.choice([30, 40, 56])))
    hands = detect_hands(image, location)
    assert not hands.present
    assert hands.occlusion.shape == (15, 15)
    assert hands.occlusion.max() == 0.0


def test_lines_are_there_on_a_bare_board_and_gone_under_a_hand() -> None:
    rng = np.random.default_rng(11)
    image, location = draw_board(rng, light=False)
    vertical, horizontal = line_evidence(board_view(image, location), 15, 15)
    assert vertical.shape == (15, 16) and horizontal.shape == (16, 15)
    assert min(vertical.min(), horizontal.min()) > 0.2  # every border of the bare board shows its line
    covered, mask = draw_arm(rng, image, location, SKINS["medium"])
    vertical, _ = line_evidence(board_view(covered, location), 15, 15)
    cov = np.pad(coverage(mask, location), ((0, 0), (1, 1)))
    fully = np.minimum(cov[:, :-1], cov[:, 1:]) > 0.95  # segments with the hand on both sides
    assert fully.sum() >= 5
    assert np.median(vertical[fully]) < 0.05


# ---------------------------------------------------------------------------------------------
# Drawn frames: an arm over the board, every skin tone, many sleeves


@pytest.mark.parametrize("skin", list(SKINS))
def test_no_square_under_a_drawn_hand_keeps_confidence(skin: str) -> None:
    rng = np.random.default_rng(sorted(SKINS).index(skin))
    for sleeve in (None, list(SLEEVES.values())[1 + sorted(SKINS).index(skin) % 6]):
        image, location = draw_board(rng, size=800, cell=40)
        frame, mask = draw_arm(rng, image, location, SKINS[skin], sleeve)
        hands = detect_hands(frame, location)
        under = under_hand(coverage(mask, location))
        assert under.sum() >= 3
        assert hands.present
        read = apply_occlusion(reading_all(), hands)
        kept = [(c.row, c.col) for c in read.cells if under[c.row, c.col] and c.confidence >= 0.5]
        assert kept == [], f"{skin} skin, sleeve {sleeve}: squares under the hand kept confidence: {kept}"


def test_most_of_the_drawn_board_stays_clear_around_a_hand() -> None:
    """Precision: the squares marked are near the hand, not all over the board."""
    rng = np.random.default_rng(5)
    image, location = draw_board(rng)
    frame, mask = draw_arm(rng, image, location, SKINS["tan"], SLEEVES["blue"])
    hands = detect_hands(frame, location)
    near = cv2.dilate(under_hand(coverage(mask, location)).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    marked = hands.occlusion >= OCCLUDED
    assert marked.any()
    assert not (marked & ~near).any()  # nothing marked more than two squares from the hand


def hot_spot(image: np.ndarray, location: GridLocation, centre: tuple[float, float], radius: float,
             peak: float) -> np.ndarray:
    """A lamp's glare on the board: white screened over the image (as the renderer and a
    varnished board do), ``peak`` (0..255) at ``centre`` (grid squares), Gaussian of ``radius``
    squares."""
    h, w = image.shape[:2]
    cell = np.sqrt(cv2.contourArea(location.corners.astype(np.float32))) / location.cols
    cx, cy = location.to_image(np.array([centre], float))[0]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    g = peak / 255 * np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * (radius * cell) ** 2))
    return (255 - (255 - image.astype(np.float32)) * (1 - g[..., None])).astype(np.uint8)


@pytest.mark.parametrize("seed", range(3))
def test_a_lamps_hot_spot_on_a_drawn_board_is_no_hand(seed: int) -> None:
    """Glare washes the board's lines out in light (a hot spot five squares across, nine
    tenths white at its peak), but they are there once it is taken out: no hand."""
    image, location = draw_board(np.random.default_rng(seed))
    hands = detect_hands(hot_spot(image, location, (7.5, 7.5), 2.5, 230), location)
    assert not hands.present
    assert hands.occlusion.max() == 0.0


def test_a_lamps_hot_spot_in_a_rendered_scene_is_no_hand() -> None:
    """A stranger's table of the development seeds, overhead, a lamp's hot spot over the board
    and no hand (it was taken for one, and 25 squares asked about at the table)."""
    render = _render_module()
    from companion.sim.scene import stranger
    from companion.vision.grid import locate_grid

    rng = np.random.default_rng(52012)
    spec = stranger(rng, phone=bool(rng.random() < 0.5))
    scene = render.render(spec, 52012)
    assert spec.photo.lamps or spec.photo.glare
    assert not detect_hands(scene.image, locate_grid(scene.image, spec.grid, spec.grid)).present


def test_a_frame_cut_off_by_the_photos_edge_is_no_hand() -> None:
    """A photo that cuts the board off at its last column's outer line: beyond the photo the
    board view is filled in black, as unlike the frame as a hand, and the line is gone, but
    nothing crosses there."""
    render = _render_module()
    from dataclasses import replace

    from companion.sim.scene import preset

    spec = preset("mounted", np.random.default_rng(8))
    scene = render.render(replace(spec, camera=replace(spec.camera, size=(800, 800))), 8)
    right = scene.location.to_image(np.array([[15.0, y] for y in np.linspace(0, 15, 16)]))[:, 0]
    cropped = np.ascontiguousarray(scene.image[:, : int(right.min()) - 1])
    assert not detect_hands(scene.image, scene.location).present
    assert not detect_hands(cropped, scene.location).present


@pytest.mark.parametrize("tip, from_deg, skin", [
    ((4.5, 2.0), 185.0, (60, 40, 30)),  # four dark fingertips from the top, a finger's gap between
    ((13.0, 2.5), 265.0, (120, 75, 50)),  # from the right, at a corner
    ((1.5, 12.5), 35.0, (160, 105, 70)),  # from the bottom left, at a corner
    ((7.0, 1.8), 175.0, (236, 192, 160)),  # light fingertips on the top row
])
def test_fingertips_at_the_boards_edge_cap_their_squares(tip, from_deg, skin) -> None:
    """A hand reaching in over the board's edge that shows only its fingertips: they cover too
    little of any square to take many lines away, but they cut the board's outer line and the
    frame beyond it. No square under them keeps confidence."""
    render = _render_module()
    from dataclasses import replace

    from companion.sim.scene import Hand, preset

    spec = preset("mounted", np.random.default_rng(8))
    spec = replace(spec, camera=replace(spec.camera, size=(800, 800)),
                   hand=Hand(tip=tip, from_deg=from_deg, skin=skin, sleeve=(230, 230, 228), spread=0.8))
    scene = render.render(spec, 8)
    assert 3 <= len(scene.covered) <= 8
    hands = detect_hands(scene.image, scene.location)
    assert hands.present
    read = apply_occlusion(scene.truth, hands)
    kept = sorted(sq for sq in scene.covered if read.cell(*sq).confidence >= 0.5)
    assert kept == []


# ---------------------------------------------------------------------------------------------
# apply_occlusion


def test_apply_occlusion_caps_covered_squares_and_leaves_the_rest() -> None:
    reading = reading_all(0.9)
    occ = np.zeros((15, 15), np.float32)
    occ[3, 4], occ[5, 5], occ[6, 6], occ[7, 7] = 1.0, 0.5, 0.75, 0.3
    out = apply_occlusion(reading, occ)
    assert out.cell(3, 4).confidence == 0.0
    assert out.cell(5, 5).confidence == pytest.approx(0.49)
    assert out.cell(6, 6).confidence < 0.49
    assert out.cell(7, 7).confidence == pytest.approx(0.7)  # lowered, not counted as under the hand
    assert out.cell(0, 0) == reading.cell(0, 0)
    assert (out.cell(3, 4).kind, out.cell(3, 4).letter) == ("tile", "E")  # the guess stays, the belief drops
    low = apply_occlusion(reading_all(0.2), occ)
    assert low.cell(7, 7).confidence == pytest.approx(0.2)  # never raised
    hands = Hands(occ, True)
    assert apply_occlusion(reading, hands) == out
    with pytest.raises(ValueError):
        apply_occlusion(reading, np.zeros((21, 21)))


# ---------------------------------------------------------------------------------------------
# A stream: motion and the reference board


def test_the_tracker_sees_motion_and_a_still_hand_and_settles_after() -> None:
    rng = np.random.default_rng(21)
    board, location = draw_board(rng, size=700, cell=36)

    def noise(img: np.ndarray) -> np.ndarray:
        return np.clip(img + np.random.default_rng(len(seen)).normal(0, 2, img.shape), 0, 255).astype(np.uint8)

    hand_frame, mask = draw_arm(rng, board, location, SKINS["dark"], SLEEVES["black"])
    under = under_hand(coverage(mask, location))
    tracker = HandTracker(location)
    seen: list[Hands] = []
    for img in [board, board, board, hand_frame, hand_frame, hand_frame, board, board, board]:
        seen.append(tracker.update(noise(img)))
    assert seen[0].motion  # a first frame cannot show stillness
    assert [h.quiet for h in seen[1:3]] == [True, True]
    assert seen[3].present and seen[3].motion  # the hand arrives
    assert seen[4].present and not seen[4].motion  # and holds still: still a hand
    for h in seen[3:6]:
        assert (h.occlusion[under] >= OCCLUDED).all()
    assert seen[6].motion and not seen[6].present  # it leaves
    assert seen[7].quiet and seen[8].quiet


def test_a_new_tile_is_motion_but_not_a_hand() -> None:
    rng = np.random.default_rng(4)
    board, location = draw_board(rng, size=700, cell=36, n_tiles=0, light=False)
    tracker = HandTracker(location)
    for _ in range(3):
        tracker.update(board)
    placed = board.copy()
    corners = location.to_image(np.array([[7.05, 7.05], [7.95, 7.05], [7.95, 7.95], [7.05, 7.95]]))
    cv2.fillConvexPoly(placed, corners.astype(np.int32), (190, 225, 240))
    first = tracker.update(placed)
    assert first.motion and not first.present
    assert tracker.update(placed).quiet


def test_something_left_at_the_board_edge_is_adopted_after_a_while() -> None:
    """A change at the edge (an object put down across the border, a shadow that stays) counts
    as something over the board until it has stayed still long enough, then becomes the board."""
    rng = np.random.default_rng(9)
    board, location = draw_board(rng, size=700, cell=36, light=False)
    tracker = HandTracker(location, adopt_after=5)
    for _ in range(3):
        assert not tracker.update(board).present
    cup = board.copy()
    centre = location.to_image(np.array([[7.5, -0.05]]))[0]
    cv2.circle(cup, (int(centre[0]), int(centre[1])), 14, (40, 40, 160), -1)  # across the top edge
    seen = [tracker.update(cup) for _ in range(9)]
    assert seen[0].present and seen[0].motion
    assert all(h.present for h in seen[1:5])
    assert seen[-1].quiet


# ---------------------------------------------------------------------------------------------
# The synthetic renderer's hands


def _render_module():
    return pytest.importorskip("companion.sim.render")


def test_a_synthetic_hand_passing_is_flagged_in_every_frame_it_covers_the_board() -> None:
    render = _render_module()
    from dataclasses import replace

    from companion.sim.scene import preset, random_hand

    for seed in (3, 5):
        rng = np.random.default_rng(seed)
        spec = preset("mounted", rng)
        spec = replace(spec, camera=replace(spec.camera, size=(640, 640)))
        still = [render.render(spec, seed, frame=100 + i) for i in range(3)]
        scenes = still + render.hand_sequence(spec, seed, random_hand(rng), steps_in=3, hold=2, steps_out=2, after=2)
        tracker = HandTracker(scenes[0].location)
        for scene in scenes:
            hands = tracker.update(scene.image)
            if scene.covered:
                assert hands.present or hands.motion
                read = apply_occlusion(scene.truth, hands)
                kept = [sq for sq in scene.covered if read.cell(*sq).confidence >= 0.5]
                assert kept == [], f"seed {seed}: squares under the hand kept confidence: {sorted(kept)}"


def test_a_synthetic_hand_over_the_board_is_found_in_a_single_frame() -> None:
    render = _render_module()
    from dataclasses import replace

    from companion.sim.scene import Hand, preset

    rng = np.random.default_rng(8)
    spec = preset("mounted", rng)
    spec = replace(spec, camera=replace(spec.camera, size=(800, 800)),
                   hand=Hand(tip=(7.0, 6.0), from_deg=20.0, skin=(120, 80, 60), sleeve=(40, 70, 150)))
    scene = render.render(spec, 8)
    assert len(scene.covered) >= 10
    hands = detect_hands(scene.image, scene.location)
    assert hands.present
    found = sum(hands.occlusion[sq] >= OCCLUDED for sq in scene.covered)
    assert found >= 0.9 * len(scene.covered)
    empty = render.render(replace(spec, hand=None), 8)
    assert not detect_hands(empty.image, empty.location).present


def test_the_readers_rectified_board_serves_the_hand_finder_as_its_own_view_does() -> None:
    """read_board hands the hand finder its rectified board shrunk by area (one warp of the
    photo a reading): a hand is found there as in the finder's own view, and no hand on the
    same board without it."""
    render = _render_module()
    from dataclasses import replace

    from companion.vision.cells import CELL_PX as READ_PX, MARGIN as READ_MARGIN
    from companion.vision.grid import rectify
    from companion.vision.hands import CELL_PX as HAND_PX, board_view, view_from_rectified
    from companion.sim.scene import Hand, preset

    rng = np.random.default_rng(8)
    spec = preset("mounted", rng)
    spec = replace(spec, hand=Hand(tip=(7.0, 6.0), from_deg=20.0, skin=(120, 80, 60), sleeve=(40, 70, 150)))
    scene = render.render(spec, 8)

    def shared_view(image: np.ndarray, location) -> np.ndarray:
        view = view_from_rectified(rectify(image, location, READ_PX, READ_MARGIN), READ_PX, READ_MARGIN)
        assert view is not None and view.shape == board_view(image, location).shape
        return view

    hands = detect_hands(scene.image, scene.location, shared_view(scene.image, scene.location))
    assert hands.present
    found = sum(hands.occlusion[sq] >= OCCLUDED for sq in scene.covered)
    assert found >= 0.9 * len(scene.covered)
    empty = render.render(replace(spec, hand=None), 8)
    assert not detect_hands(empty.image, empty.location, shared_view(empty.image, empty.location)).present
    # A view of another scale or margin is not the hand finder's: it makes its own.
    assert view_from_rectified(np.zeros((20 * 17, 20 * 17, 3), np.uint8), 20, 0.5) is None
    assert view_from_rectified(np.zeros((48 * 17, 48 * 17, 3), np.uint8), 48, 1.0) is None
    assert HAND_PX * 3 == READ_PX


# ---------------------------------------------------------------------------------------------
# Real photos: there is no hand in any of them


def test_no_hand_is_seen_on_real_photos_without_hands() -> None:
    folder = PHOTOS / "scrabscrap"
    if not folder.is_dir():
        pytest.skip(f"real photos not found at {folder} (../shared/photos beside the checkout)")
    from companion.vision.grid import locate_grid

    paths = sorted(folder.glob("spiel-*/board-*.jpg")) + sorted((folder / "board-neu").glob("*.jpg"))
    sample = paths[:: max(1, len(paths) // 8)]  # a spread of games, light and the sunlit shots
    alarms = []
    for path in sample:
        image = cv2.imread(str(path))
        if detect_hands(image, locate_grid(image)).present:
            alarms.append(path.name)
    assert alarms == []
