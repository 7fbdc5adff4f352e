"""The squares of a guessed grid: their colours, the classic premium layout among them, and
which of them hold something.

The premium squares (:mod:`companion.core.board`) settle where a grid starts when the lines
alone cannot: a band of print beside the grid can pass for a row of squares, but it does not
carry the layout's coloured squares where the layout puts them.
"""

from __future__ import annotations

import warnings
from functools import lru_cache

import numpy as np

from companion.core.board import Layout, Premium, layout_for_grid
from companion.core.errors import CompanionError
from companion.vision.medians import median
from companion.vision.probe import Probe

PLAIN_RADIUS = 30.0  # colour distance (0..255 per channel) within which squares look alike
COLOUR_PX = 9  # pixels per square of the view square colours are read from (odd: a middle pixel)
MIDDLE = 2  # pixels from a square's middle to the outer points sampled (0.22 of a square)
# The premium squares settle where the grid lies when they fit the layout this well
# (:func:`layout_fit`, 0 is chance) and by this much better than at any other shift: on the
# rendered and real boards here, no other shift came within 0.15 of the true one, and a board
# full of tiles or under a hand can fit as little as 0.2.
LAYOUT_FIT, LAYOUT_MARGIN = 0.2, 0.15
# How surely the layout places a grid (0..1) grows with the fit from here to there.
LAYOUT_VOUCH, LAYOUT_SURE = 0.35, 0.75
# The same by rank-sum contrast (:func:`layout_contrast`, 0.5 is chance).
LAYOUT_CONTRAST, LAYOUT_CONTRAST_MARGIN = 0.72, 0.05


def _sq_dist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Squared distance over the last axis (the channels) of ``a - b``, added channel by
    channel: the same additions in the same order as numpy's sum over that axis (left to
    right), without its slow reduction over an axis of three."""
    d = np.subtract(a, b)
    out = d[..., 0] * d[..., 0]
    for i in range(1, d.shape[-1]):
        out += d[..., i] * d[..., i]
    return out


def cell_colours(probe: Probe, h: np.ndarray, rows: int, cols: int, margin: int) -> np.ndarray:
    """The colour (blue, green, red as the probe holds them) of the middle of every square of
    the grid extended by ``margin`` squares, (rows + 2 margin, cols + 2 margin, 3), NaN off
    the image: the median of nine points across the middle half, which keeps a letter's ink
    out."""
    n_r, n_c = rows + 2 * margin, cols + 2 * margin
    channel = None if probe.channels >= 3 else 0
    # Pixel j of the view shows the middle of a pixel's width: square c's middle is pixel
    # c * COLOUR_PX + COLOUR_PX // 2.
    x0 = -margin + 0.5 / COLOUR_PX
    view = probe.view(h, x0, x0, n_c * COLOUR_PX, n_r * COLOUR_PX, COLOUR_PX, channel)
    if view.ndim == 2:
        view = view[:, :, None]
    view = view[:, :, :3]
    centre = np.arange(n_r) * COLOUR_PX + COLOUR_PX // 2
    centre_c = np.arange(n_c) * COLOUR_PX + COLOUR_PX // 2
    u = np.array([-MIDDLE, 0, MIDDLE])
    ri = (centre[:, None] + u[None, :]).ravel()
    ci = (centre_c[:, None] + u[None, :]).ravel()
    vals = view[ri][:, ci].reshape(n_r, 3, n_c, 3, -1)
    vals = vals.transpose(0, 2, 1, 3, 4).reshape(n_r, n_c, 9, -1)
    return median(vals, axis=2)


def plain_colour(colours: np.ndarray, premium: np.ndarray | None = None) -> np.ndarray | None:
    """The colour of the plain squares among squares' colours (N, 3): the densest cluster,
    not the median, since tiles and premium squares may together cover most of a board.
    ``premium`` (N,) marks the squares the layout makes premium: then the cluster is the one
    found most on plain squares and least on premium ones. Tiles lie on both kinds alike, so
    on a board nearly covered with them, where the tiles' colour is the densest, the board's
    own colour still wins."""
    ok = ~np.isnan(colours).any(1)
    c = colours[ok]
    if len(c) < 8:
        return None
    sq = (c * c).sum(1)
    near = sq[:, None] + sq[None, :] - 2 * (c @ c.T) < PLAIN_RADIUS**2
    if premium is None or not premium[ok].any() or premium[ok].all():
        return median(c[near[np.argmax(near.sum(1))]], axis=0)
    prem = premium[ok]
    support = near[:, ~prem].mean(1) - near[:, prem].mean(1)
    support[prem] = -np.inf  # the plain colour is a plain square's
    best = int(np.argmax(support))
    return median(c[near[best] & ~prem], axis=0)


def _classic_layout(rows: int, cols: int) -> Layout | None:
    """The premium layout of a square grid of this size, or None (no such board)."""
    try:
        return layout_for_grid(rows) if rows == cols else None
    except CompanionError:
        return None


@lru_cache(maxsize=8)
def premium_mask(rows: int, cols: int) -> np.ndarray | None:
    """The classic layout's premium squares for this grid size, or None."""
    layout = _classic_layout(rows, cols)
    if layout is None:
        return None
    mask = np.array([[p is not Premium.NONE for p in row] for row in layout.premiums])
    mask.flags.writeable = False
    return mask


def covered_squares(probe: Probe, h: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Squares whose middle differs clearly in colour from the plain squares and that are not
    premium squares of the classic layout: tiles, mostly (:func:`plain_colour` tells the
    board's colour from the tiles' on a board nearly covered)."""
    colours = cell_colours(probe, h, rows, cols, 0).reshape(rows * cols, -1)
    premium = premium_mask(rows, cols)
    plain = plain_colour(colours, None if premium is None else premium.ravel())
    if plain is None:
        return np.zeros((rows, cols), bool)
    d = np.nan_to_num(np.linalg.norm(colours - plain, axis=-1), nan=0.0)
    covered = (d > 2 * PLAIN_RADIUS).reshape(rows, cols)
    # Premium squares stand out too, but their lines are the board's own.
    return covered & ~premium if premium is not None else covered


@lru_cache(maxsize=8)
def premium_kinds(rows: int, cols: int) -> tuple[np.ndarray, ...] | None:
    """For each kind of premium square of the classic layout, the (row, col) of its squares
    ((n, 2) each), or None for a grid without a layout."""
    layout = _classic_layout(rows, cols)
    if layout is None:
        return None
    kinds = []
    for kind in (Premium.DL, Premium.TL, Premium.DW, Premium.TW):
        at = np.array([(r, c) for r, row in enumerate(layout.premiums) for c, p in enumerate(row) if p is kind])
        if len(at):
            kinds.append(at)
    return tuple(kinds)


def _colour_modes(colours: np.ndarray, most: int = 4) -> list[np.ndarray]:
    """The densest clusters of squares' colours (N, 3), densest first: the candidates for a
    board's plain colour (the board's, the tiles', a premium's)."""
    if len(colours) < 8:
        return []
    sq = (colours * colours).sum(1)
    near = sq[:, None] + sq[None, :] - 2 * (colours @ colours.T) < PLAIN_RADIUS**2
    left = np.ones(len(colours), bool)
    modes = []
    while left.sum() >= 4 and len(modes) < most:
        density = np.where(left, np.count_nonzero(near & left[None, :], axis=1), -1)
        best = int(np.argmax(density))
        members = near[best] & left
        # (The median by sorting: numpy's partitions each channel apart, slower here; the same
        # values, the mean of the middle two for an even count.)
        ordered = np.sort(colours[members], axis=0)
        m = len(ordered)
        modes.append(ordered[m // 2] if m % 2 else np.mean(ordered[m // 2 - 1 : m // 2 + 1], axis=0))
        left &= ~members
    return modes


def _membership(index: np.ndarray, n: int) -> np.ndarray:
    """(n, windows) 0/1: square s is one of window w's squares (``index``: (windows, squares))."""
    out = np.zeros((n, index.shape[0]), np.float32)
    out[index, np.arange(index.shape[0])[:, None]] = 1.0
    return out


@lru_cache(maxsize=8)
def _windows(rows: int, cols: int, margin: int, width: int, n: int) -> tuple:
    """For :func:`layout_fit` (they depend on the grid's size alone): each shift's (dx, dy),
    and the index of the plain squares, the premium ones and each kind's in every window
    (shifts, squares) into the ``n`` squares ``width`` wide, each with its membership."""
    kinds, mask = premium_kinds(rows, cols), premium_mask(rows, cols)
    span = 2 * margin + 1
    dy, dx = np.divmod(np.arange(span * span), span)

    def window_index(at: np.ndarray) -> np.ndarray:
        """Index into the squares of the squares ``at`` in every window (shifts, squares)."""
        return (dy[:, None] + at[None, :, 0]) * width + dx[:, None] + at[None, :, 1]

    i_plain, i_prem = window_index(np.argwhere(~mask)), window_index(np.argwhere(mask))
    by_kind = tuple((window_index(at), _membership(window_index(at), n)) for at in kinds)
    out = (dy, dx, i_plain, _membership(i_plain, n), i_prem, _membership(i_prem, n), by_kind)
    for a in (dy, dx, *out[2:6], *(x for pair in by_kind for x in pair)):
        a.flags.writeable = False
    return out


def layout_fit(colours: np.ndarray, rows: int, cols: int, margin: int) -> tuple[int, int, float, float]:
    """The shift whose window puts each kind of premium square on squares of one colour of its
    own: (dx, dy, fit, runner-up fit).

    For a window, the squares the layout gives one kind (double letter, ...) take their median
    colour; where that stands clearly apart from the plain squares' colour, a square is of
    that colour when nearer to it than to the plain colour and within half their distance.
    The kind fits by the share of its squares of its colour less the share of the window's
    plain squares of it: tiles and a hand over the board lower the first share alike at every
    shift, and a shift that puts a kind on tiles has its colour the tiles' colour, found on
    plain squares as well. ``fit`` is the mean over premium squares: near 1 where the layout
    lies, near 0 on a shifted window, on a board without coloured premium squares or off the
    board. The layout is symmetric under quarter turns and mirroring, so the board's
    orientation does not matter."""
    kinds = premium_kinds(rows, cols)
    mask = premium_mask(rows, cols)
    if kinds is None or mask is None:
        return 0, 0, 0.0, 0.0
    span = 2 * margin + 1
    flat = colours.reshape(-1, colours.shape[-1]).astype(np.float32)
    seen_sq = ~np.isnan(flat).any(-1)
    flat = np.where(seen_sq[:, None], flat, np.float32(1e6))  # off the image: near no colour
    dy, dx, i_plain, in_plain, i_prem, in_prem, by_kind = _windows(rows, cols, margin, colours.shape[1], len(flat))
    seen_plain = seen_sq[i_plain]
    n_plain = np.maximum(seen_plain.sum(1), 1)
    # Each window has its own plain colour (as :func:`plain_colour` tells it: the colour
    # found most on its plain squares and least on its premium ones): a grid a square off
    # puts premium squares where plain ones should be, and judged against that window's
    # plain colour the true window would fit nothing.
    # (The candidates from the middle window: every window shares most of its squares.)
    middle = colours[margin : margin + rows, margin : margin + cols].reshape(-1, colours.shape[-1])
    plains = _colour_modes(middle[~np.isnan(middle).any(-1)].astype(np.float32))
    if not plains:
        return 0, 0, 0.0, 0.0
    seen_prem = seen_sq[i_prem]
    modes = np.asarray(plains, np.float32)
    d_modes = _sq_dist(flat[None, :, :], modes[:, None, :])  # (modes, squares)
    near = d_modes < PLAIN_RADIUS**2
    # (Counts over each window's squares as one product with the windows' membership: the same
    # whole numbers as summing gathered copies, without the copies.)
    near_seen = (near & seen_sq[None, :]).astype(np.float32)
    support = (near_seen @ in_plain).astype(np.int64) / n_plain - (near_seen @ in_prem).astype(np.int64) / np.maximum(
        seen_prem.sum(1), 1
    )  # (modes, shifts)
    choice = np.argmax(support, axis=0)
    plain = modes[choice]  # (shifts, channels)
    to_plain = d_modes[choice]  # (shifts, squares)
    planes = np.ascontiguousarray(flat.T)  # each channel's values in a row: (_sq_dist's sums, unstrided)
    fit = np.zeros(span * span)
    seen_all = np.zeros(span * span)
    total = 0
    for at, (i_kind, in_kind) in zip(kinds, by_kind):
        seen = seen_sq[i_kind]
        n_seen = seen.sum(1)
        seen_all += n_seen
        total += len(at)
        # The median colour of the kind's squares on the image, per window: off-image ones
        # sort last.
        ordered = np.sort(np.where(seen[..., None], flat[i_kind], np.inf), axis=1)
        lo = np.minimum(np.maximum((n_seen - 1) // 2, 0), len(at) - 1)  # (np.clip's overhead: most of its cost here)
        hi = np.minimum(n_seen // 2, len(at) - 1)
        rows_ = np.arange(len(lo))
        colour = 0.5 * (ordered[rows_, lo] + ordered[rows_, hi])  # (shifts, channels)
        apart_sq = _sq_dist(colour, plain)
        # Only windows where the kind has a colour of its own can fit.
        live = np.flatnonzero((n_seen > 0) & np.isfinite(apart_sq) & (apart_sq > (2 * PLAIN_RADIUS) ** 2))
        if not len(live):
            continue
        colour, apart_sq = colour[live], apart_sq[live]

        # Every square (seen) nearer the kind's colour than the plain colour, and within half
        # their distance, per live window; then counted over the window's kind and plain squares.
        to_kind = (planes[0][None, :] - colour[:, 0, None]) ** 2
        for c in range(1, len(planes)):
            to_kind += (planes[c][None, :] - colour[:, c, None]) ** 2
        of_colour = ((to_kind < 0.25 * apart_sq[:, None]) & (to_kind < to_plain[live]) & seen_sq[None, :]).astype(np.float32)
        share = np.einsum("ls,sl->l", of_colour, in_kind[:, live]).astype(np.int64) / np.maximum(n_seen[live], 1)
        share_plain = np.einsum("ls,sl->l", of_colour, in_plain[:, live]).astype(np.int64) / n_plain[live]
        fit[live] += (share - share_plain) * len(at)
    # Windows mostly off the image say nothing.
    fit = np.where(seen_all >= 0.6 * total, fit / total, 0.0)
    best = int(np.argmax(fit))
    runner_up = float(np.sort(fit)[-2]) if len(fit) > 1 else 0.0
    return int(dx[best]) - margin, int(dy[best]) - margin, float(fit[best]), runner_up


def layout_contrast(colours: np.ndarray, rows: int, cols: int, margin: int) -> tuple[int, int, float, float]:
    """The shift whose window puts the classic premium squares on the squares that stand out
    in colour from the plain ones: (dx, dy, contrast, runner-up contrast). Contrast is the
    rank-sum chance that a premium square lies farther from the plain squares' colour than a
    plain square does (0.5 is chance). Less specific than :func:`layout_fit` (tiles on plain
    squares stand out too, and lower every shift alike) but it needs no colour of the
    premium squares' own: pale premium squares in a dim photo still rank above the plain
    ones."""
    mask = premium_mask(rows, cols)
    if mask is None:
        return 0, 0, 0.0, 0.0
    premium = mask.ravel()
    seen = ~np.isnan(colours).any(-1)  # squares outside the image say nothing
    centre = colours[margin : margin + rows, margin : margin + cols].reshape(-1, colours.shape[-1])
    plain = plain_colour(centre, premium)
    if plain is None:
        return 0, 0, 0.0, 0.0
    # Distance from the plain squares' colour, taken in the coarse window (any shift overlaps
    # it mostly).
    d = np.linalg.norm(colours - plain, axis=-1)
    span = 2 * margin + 1
    windows = np.lib.stride_tricks.sliding_window_view(d, (rows, cols)).reshape(span * span, rows * cols)
    inside = np.lib.stride_tricks.sliding_window_view(seen, (rows, cols)).reshape(span * span, rows * cols)
    # Squares outside the image take the window's median: they neither help nor hurt.
    partial = ~inside.all(1)
    if partial.any():
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # windows wholly outside the image
            med = np.nanmedian(np.where(inside[partial], windows[partial], np.nan), axis=1, keepdims=True)
        windows = windows.copy()
        windows[partial] = np.where(inside[partial], windows[partial], med)
    order = np.argsort(windows, axis=1)
    ranks = np.empty_like(windows)
    np.put_along_axis(ranks, order, np.broadcast_to(np.arange(1.0, rows * cols + 1), windows.shape), axis=1)
    n_p, n_n = int(premium.sum()), int((~premium).sum())
    contrast = (ranks[:, premium].sum(1) - n_p * (n_p + 1) / 2) / (n_p * n_n)
    contrast = np.where(inside.mean(1) >= 0.6, contrast, 0.0)
    best = int(np.argmax(contrast))
    runner_up = float(np.sort(contrast)[-2]) if len(contrast) > 1 else 0.0
    dy, dx = divmod(best, span)
    return dx - margin, dy - margin, float(contrast[best]), runner_up


def layout_shift(colours: np.ndarray, rows: int, cols: int, margin: int) -> tuple[int, int, float] | None:
    """Where the premium layout says the grid lies, when it says so clearly: (dx, dy, how
    surely, 0..1), by :func:`layout_fit` first (specific to the layout's colours), else by
    :func:`layout_contrast`; None when neither is clear. When neither is clear in the colours
    as seen, both are asked again with the light over the board evened out
    (:func:`even_light`): a lamp nearer one side spreads the plain squares over shades far
    apart, a premium square in the bright part as light as a plain one in the dim part."""
    for seen in (colours, None):
        seen = even_light(colours, margin) if seen is None else seen
        dx, dy, fit, runner_up = layout_fit(seen, rows, cols, margin)
        if fit >= LAYOUT_FIT and fit - runner_up >= LAYOUT_MARGIN:
            return dx, dy, float(np.clip((fit - LAYOUT_VOUCH) / (LAYOUT_SURE - LAYOUT_VOUCH), 0.0, 1.0))
        dx, dy, contrast, runner_up = layout_contrast(seen, rows, cols, margin)
        if contrast >= LAYOUT_CONTRAST and contrast - runner_up >= LAYOUT_CONTRAST_MARGIN:
            return dx, dy, float(np.clip((contrast - LAYOUT_CONTRAST) / (1 - LAYOUT_CONTRAST), 0.0, 1.0))
    return None


LIGHT_REACH = 3  # squares either way over which the light on a board is taken as even
MAX_LIGHT_GAIN = 4.0  # the most the light is taken to differ over a board, either way


def even_light(colours: np.ndarray, margin: int) -> np.ndarray:
    """Squares' colours (rows, cols, channels) of a grid guessed with ``margin`` squares round
    it (NaN off the image) with the light evened out: each divided by the median brightness
    of the guessed grid's squares within :data:`LIGHT_REACH` of it (most of them plain,
    whatever lies on a few), times the grid's median; one gain on every channel, as a brighter
    or dimmer white light gives. Beyond the guessed grid the light is taken as at its nearest
    square: the frame round a board is no measure of the light on it."""
    lum = colours.mean(-1)
    n_r, n_c = lum.shape
    inner = lum[margin : n_r - margin, margin : n_c - margin]
    if inner.size == 0:
        return colours
    # Each square's window of the grid's squares, moved inwards at the grid's edges to hold as
    # many squares as anywhere (a corner's own quarter window is a third premium squares).
    span_r, span_c = min(2 * LIGHT_REACH + 1, inner.shape[0]), min(2 * LIGHT_REACH + 1, inner.shape[1])
    windows = np.lib.stride_tricks.sliding_window_view(inner, (span_r, span_c))
    start_r = np.clip(np.arange(inner.shape[0]) - LIGHT_REACH, 0, windows.shape[0] - 1)
    start_c = np.clip(np.arange(inner.shape[1]) - LIGHT_REACH, 0, windows.shape[1] - 1)
    near = windows[start_r][:, start_c].reshape(*inner.shape, -1)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # squares with nothing seen near them
        local = np.nanmedian(near, axis=-1)
        level = np.nanmedian(inner)
    # Each square of the whole view takes the light of the guessed grid's square nearest it.
    ri = np.clip(np.arange(n_r) - margin, 0, inner.shape[0] - 1)
    ci = np.clip(np.arange(n_c) - margin, 0, inner.shape[1] - 1)
    local = local[ri][:, ci]
    # (A black square, a shadow's darkest, is no light to divide by.)
    gain = np.clip(level / np.maximum(local, 1.0), 1 / MAX_LIGHT_GAIN, MAX_LIGHT_GAIN)
    return colours * np.where(np.isfinite(gain), gain, 1.0)[..., None]
