"""A face under a lamp's glare, its body washed towards white and its letter faded to a grey
little darker than the washed body: the letter still says a face lies there, and glare over
its set's colour says where its colour went. A rendered development scene (mounted, every
feature) with its exact truth."""

from companion.vision.cells.inks import _split_either_way
from companion.vision.cells.stats import _spread_about_plane
from companion.vision.face import split_face

import numpy as np

from .rendered import faces_misread, named_faces


def test_a_wood_face_washed_out_by_glare_is_read_as_a_face():
    # 6564 (9,4): a wood A under a lamp's spot, its body near the grey board's own look. The
    # spot's bright middle outweighs the faint letter's dark tail, so the face alone took the
    # glare for light ink and found no letter; and by colour alone the square was empty.
    found = [(seed, rc, read) for seed, rc, truth, read in named_faces({6564: [(9, 4)]}) if read.kind != "tile"]
    assert found == []


def test_a_letter_lost_one_way_is_looked_for_the_other():
    # A faint dark bar on a body whose other half is lit brighter: the brighter half is the
    # longer tail, so the face alone says light ink; the hint (dark) finds the bar.
    crop = np.full((48, 48), 150, np.uint8)
    crop[:, 24:] = 200
    crop[12:36, 20:28] = 110
    assert split_face(crop, face_frac=0.92, values=False).glyph is None
    ink = _split_either_way(crop, 1, face_frac=0.92, values=False)
    assert ink.glyph is not None and ink.polarity == 1


def test_a_lettered_face_under_a_glare_gradient_keeps_its_letter():
    # 12172 (2,10): a wood E with a lamp's spot across one side. Its body is even but the
    # light falls off across it, so about its mean the body spread like a premium square's
    # print, and the letter was not taken for a tile's: the square was read empty, surely.
    found = faces_misread({12172: [(2, 10)]})
    assert found == []


def test_a_bodys_spread_is_taken_about_the_light_falling_across_it():
    n = 12
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    ramp = (120.0 + 5.0 * xx + 2.0 * yy).reshape(1, 1, -1)  # light falling off across an even body
    print_like = ramp + np.where((xx.astype(int) % 3) == 0, 30.0, 0.0).reshape(1, 1, -1)
    everywhere = np.ones_like(ramp, bool)
    assert _spread_about_plane(ramp, everywhere, n)[0, 0] < 0.01
    assert _spread_about_plane(print_like, everywhere, n)[0, 0] > 10.0
    assert float(np.std(ramp)) > 14.0  # about its mean, the ramp alone spreads like print


def test_faces_under_a_lamps_band_across_a_phones_view_are_read():
    # Phone scene 30114, read with no profile: a lamp's band lights the board's far rows far
    # brighter than the rest, where most tiles lie. The empty squares there were too far from
    # their look to say the light (only the faces did, under a set's colour learned in the
    # dimmer part), so the band's faces lay beyond any set's colour and five of them, their
    # letters plain, were read empty at 0.98. Empty squares the same colour as their look
    # under one gain now say the light there too.
    from companion.vision.reader import read_board
    from companion.sim.render import render
    from companion.sim.scene import preset

    seed = 30114
    spec = preset("phone", np.random.default_rng(seed))
    scene = render(spec, seed)
    reading = read_board(scene.image, tileset=spec.tileset, grid=spec.grid)
    for rc in [(2, 6), (2, 7), (2, 9), (3, 4), (3, 5)]:
        truth, cell = scene.truth.cell(*rc), reading.cell(*rc)
        assert (cell.kind, cell.letter, cell.rotation) == ("tile", truth.letter, truth.rotation), (rc, cell)
