"""How surely a fitted grid is the board's, and which window of squares near a rough grid is.

:func:`score` compares the lines seen where the fit puts them with those seen through the
squares' middles and beyond the grid (0..1). :func:`extent` settles the rows and columns a
coarse guess may have off by whole squares: by the premium layout where its colours say so
clearly, else by where the most grid-line pieces are seen.
"""

from __future__ import annotations

import numpy as np

from companion.vision.layout import cell_colours, layout_shift
from companion.vision.medians import median
from companion.vision.probe import ALONG_STEP, LINE_WIDTH, BoardView, Probe
from companion.vision.refine import Look, ridge

LINE_EVIDENCE = 3.0  # a whole line stands this many times its noise out of its surroundings
ALONG = 5  # profiles averaged along a line when judging it
EXTENT_MARGIN = 4  # squares tried beyond the coarse grid on every side
PARTS = 3  # pieces of a line judged apart: a grid line is seen along most of them
PART_SHARE = 0.6  # of a line's pieces in view that must show it
IN_VIEW = 0.7  # of a family's grid lines in the photo: enough to judge the grid on those alone


def _along() -> np.ndarray:
    return (np.arange(ALONG) - (ALONG - 1) / 2) * ALONG_STEP


def _evidence_reach(px: int) -> tuple[int, int]:
    """Flank distance and search reach (pixels) of :func:`line_evidence`."""
    return max(1, round(LINE_WIDTH * px)), max(3, round(0.45 * px))


def evidence_view(probe: Probe, h: np.ndarray, rows: int, cols: int, look: Look, lo: float, extra: float) -> BoardView:
    """A view for :func:`line_evidence` on lines from ``lo`` to the far grid edge + ``extra``."""
    px = probe.px(h, rows, cols)
    width, reach = _evidence_reach(px)
    pad = (reach + width + 1) / px
    return probe.board_view(h, px, lo - pad, cols + extra + pad, look[0], lo - pad, rows + extra + pad)


def line_evidence(
    probe: Probe, view: BoardView, family: int, ks: np.ndarray, span: tuple[float, float], look: Look,
    parts: int = 1,
) -> tuple[np.ndarray, np.ndarray]:
    """How clearly each line ``x = k`` (family 0) or ``y = k`` (family 1) shows over ``span``
    of the other coordinate, in units of its noise: the profiles across it, taken twice a
    square, are averaged (their absolute line response when the board shows lines of both
    kinds), and the response at the line is compared with the average's spread around it
    (0.15 to 0.45 of a square either side). Also whether each line is in view: seen at three
    places or more along it (the rest of it is outside the photo). Both (len(ks), 1 + parts):
    the whole line first, then the span cut into ``parts`` equal pieces, each judged alone."""
    step = 1.0 / view.px
    width, reach = _evidence_reach(view.px)
    ts = np.arange(span[0] + 0.3, span[1], 0.5)
    prof, inside = view.profiles(family, ks, ts, reach + width, _along())
    resp = ridge(prof, width)
    resp = np.abs(resp) if look[1] == 0 else resp * look[1]
    piece = np.minimum(((ts - span[0]) / (span[1] - span[0]) * parts).astype(int), parts - 1)
    pieces = np.vstack((np.ones(len(ts), bool), piece[None, :] == np.arange(parts)[:, None])) if parts > 1 \
        else np.ones((1, len(ts)), bool)
    within = inside[:, None, :] & pieces[None]  # (K, 1 + parts, T)
    count = within.sum(-1)
    mean = np.einsum("kpt,kts->kps", within.astype(resp.dtype), np.where(inside[..., None], resp, 0.0))
    mean /= np.maximum(count, 1)[..., None]
    s = np.arange(-reach, reach + 1) * step
    centre = np.abs(s) <= 0.06
    flank = (np.abs(s) >= 0.15) & (np.abs(s) <= 0.45)
    in_view = count >= 3
    if not centre.any() or flank.sum() < 2:
        return np.zeros(count.shape), in_view  # squares of a few pixels: no line to tell from its flanks
    at_line = mean[..., centre].max(-1)
    base = median(mean[..., flank], axis=-1)
    spread = median(np.abs(mean[..., flank] - base[..., None]), axis=-1)
    # The noise of a mean of `count` profiles, and never less than a sliver of the signal.
    noise = np.maximum(spread, float(probe.noise[look[0]]) / np.sqrt(np.maximum(count, 1))) + 0.2
    return np.where(in_view, (at_line - base) / noise, 0.0), in_view


def score(probe: Probe, h: np.ndarray, rows: int, cols: int, look: Look, placed: bool = False) -> float:
    """0..1, how surely this is the grid: for each family of lines, the share of grid lines
    that stand out of their surroundings (:func:`line_evidence` over :data:`LINE_EVIDENCE`),
    taken on even and on odd lines apart and the smaller kept (a lattice of half the true
    spacing sees every other line only), less the share standing out through the squares'
    middles (as high on texture and noise); nothing when the two lines beyond the grid on one
    side stand out as well (the lattice goes on: a larger board, graph paper). The weaker
    family decides.

    ``placed``: the caller found the premium squares where the layout puts them on this grid,
    a board's. A photo may cut its far rows or columns off: only the lines in view are then
    judged, when they are most of the grid's (:data:`IN_VIEW` of each family's lines). Any
    other grid's lines out of view count as unseen (a cloth's lattice runs out of the photo
    too), and each line must show along most of its length (:data:`PARTS`), not in one part
    only: a lattice a dozen squares off the board's, half on it and half on the cloth beside,
    shows its lines on the board's half. (A board's own lines hide under rows of tiles: that
    is asked of a grid the layout does not vouch for only.)"""
    view = evidence_view(probe, h, rows, cols, look, -2.0, 2.0)
    scores = []
    for family, (n_lines, n_along) in enumerate(((cols, rows), (rows, cols))):
        grid_ks = np.arange(n_lines + 1, dtype=np.float64)
        beyond = np.array([-2.0, -1.0, n_lines + 1.0, n_lines + 2.0])
        ks = np.concatenate((grid_ks, beyond, np.arange(n_lines) + 0.5))
        strength, in_parts = line_evidence(probe, view, family, ks, (0.0, float(n_along)), look, PARTS)
        along = ((strength[:, 1:] > LINE_EVIDENCE) & in_parts[:, 1:]).sum(1)
        ev = strength[:, 0] > LINE_EVIDENCE
        if not placed:
            ev &= along >= PART_SHARE * np.maximum(in_parts[:, 1:].sum(1), 1)
        shown = in_parts[:, 0]
        inner, outside, between = ev[: n_lines + 1], ev[n_lines + 1 : n_lines + 5], ev[n_lines + 5 :]
        judged, judged_between = shown[: n_lines + 1], shown[n_lines + 5 :]
        if not placed or judged.mean() < IN_VIEW or not judged_between.any():
            # Too little in view: the lines out of it count as unseen.
            judged, judged_between = np.ones_like(judged), np.ones_like(judged_between)
        seen = float(inner[judged].mean())
        if seen <= 0:
            return 0.0
        parity = min(float(inner[0::2][judged[0::2]].mean()) if judged[0::2].any() else 0.0,
                     float(inner[1::2][judged[1::2]].mean()) if judged[1::2].any() else 0.0)
        between = between[judged_between]
        # Two lines beyond the grid on one side: the lattice goes on. A single line there is
        # often the board's own frame or print, a square away by chance.
        goes_on = outside[:2].all() or outside[2:].all()
        scores.append((parity - float(between.mean())) * (0.0 if goes_on else 1.0))
    return float(np.clip(min(scores), 0.0, 1.0))


def edge_evidence(
    probe: Probe, h: np.ndarray, rows: int, cols: int, look: Look, margin: int, near: float = 0.08
) -> tuple[np.ndarray, np.ndarray]:
    """Whether a grid line is seen on each side of each square of the grid extended by
    ``margin`` squares: ``vert[k, c]`` for line x = k - margin across row c - margin,
    ``horz[k, c]`` for line y = k - margin across column c - margin (2 probes each, 0..1).

    A line is seen where the profile across it, a third of a square either way, has its
    strongest line response within ``near`` squares of the fitted place, clearly above the
    profile's typical response."""
    px = probe.px(h, rows, cols)
    step = 1.0 / px
    width = max(1, round(LINE_WIDTH / step))
    reach = max(2, round(0.33 / step))
    centre = np.abs(np.arange(-reach, reach + 1) * step) <= near
    near_idx = np.flatnonzero(centre)
    pad = (reach + width + 1) / px
    view = probe.board_view(h, px, -margin - pad, cols + margin + pad, look[0], -margin - pad, rows + margin + pad)
    out = []
    for family, (n_lines, n_along) in enumerate(((cols, rows), (rows, cols))):
        ks = np.arange(-margin, n_lines + margin + 1, dtype=np.float64)
        ts = np.arange(-margin, n_along + margin, dtype=np.float64)
        ts = np.sort(np.concatenate((ts + 0.3, ts + 0.7)))
        prof, inside = view.profiles(family, ks, ts, reach + width, _along())
        resp = ridge(prof, width)
        resp = np.abs(resp) if look[1] == 0 else resp * look[1]
        arg = near_idx[np.argmax(resp[..., centre], axis=-1)]
        peak_near = np.take_along_axis(resp, arg[..., None], -1)[..., 0]
        peak_far = resp[..., ~centre].max(-1)
        # A line has the same surface on both sides; an edge (a chessboard, a tile's side) has
        # not: its two flanks differ by as much as its line response.
        left = np.take_along_axis(prof, arg[..., None], -1)[..., 0]
        right = np.take_along_axis(prof, (arg + 2 * width)[..., None], -1)[..., 0]
        with np.errstate(invalid="ignore"):
            symmetric = np.abs(left - right) < 0.5 * peak_near
            seen = (peak_near >= peak_far) & (peak_near > probe.threshold(look[0])) & symmetric & inside
        out.append(seen.reshape(len(ks), -1, 2).mean(-1))
    return out[0], out[1]


def best_extent(vert: np.ndarray, horz: np.ndarray, rows: int, cols: int, margin: int) -> tuple[int, int, float]:
    """The shift (dx, dy) in squares of the ``rows x cols`` window holding the most line
    pieces, and that share."""
    best = (0, 0, -1.0)
    for dy in range(-margin, margin + 1):
        for dx in range(-margin, margin + 1):
            v = vert[margin + dx : margin + dx + cols + 1, margin + dy : margin + dy + rows]
            hz = horz[margin + dy : margin + dy + rows + 1, margin + dx : margin + dx + cols]
            share = (v.sum() + hz.sum()) / (v.size + hz.size)
            # Prefer the coarse placement on a tie.
            share -= 1e-6 * (abs(dx) + abs(dy))
            if share > best[2]:
                best = (dx, dy, share)
    return best


def extent(probe: Probe, h: np.ndarray, rows: int, cols: int, look: Look) -> tuple[int, int, float | None]:
    """Which window of ``rows x cols`` squares near the coarse one is the grid: where the
    premium squares' colours say so clearly, that; else where the most grid lines are seen.
    (dx, dy, how surely the layout said so (:func:`layout_shift`), None when the lines did)."""
    colours = cell_colours(probe, h, rows, cols, EXTENT_MARGIN)
    placed = layout_shift(colours, rows, cols, EXTENT_MARGIN)
    if placed is not None:
        return placed
    vert, horz = edge_evidence(probe, h, rows, cols, look, EXTENT_MARGIN)
    dx, dy, _ = best_extent(vert, horz, rows, cols, EXTENT_MARGIN)
    return dx, dy, None
