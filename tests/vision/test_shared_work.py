"""Work a reading shares instead of doing again (docs/vision-speed.md) gives what doing it again
gives: the finder's guesses sharing one probe, the square readers sharing one run of the network,
a profile's own letters worked out once. On a real photo where one is needed."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.probe import Probe, Probes, probe_source, shrink
from companion.vision.reader import decode_image, read_board

PHOTO = Path(__file__).resolve().parents[2] / ".." / "shared" / "photos" / "scrabscrap" / "spiel-14" / "board-06.jpg"


def _photo() -> np.ndarray:
    if not PHOTO.is_file():
        pytest.skip(f"{PHOTO} is absent: these tests need ../shared/photos beside the checkout")
    return decode_image(PHOTO.read_bytes(), str(PHOTO))


def test_guesses_of_one_source_share_a_probe_equal_to_a_fresh_one():
    image = _photo()
    small = shrink(image, 384)
    copy = (small, small.shape[1] / image.shape[1])
    probes = Probes(image, copy)
    # Squares of the copy's scale (the copy), of a third and a half of it (each shrunk anew), of
    # full size: each shared probe is the probe made afresh for that size of square.
    for cell in (80.0, 82.0, 240.0, 241.0, 160.0, 20.0):
        shared, fresh = probes(cell), Probe(image, cell, copy)
        assert shared.f == fresh.f and shared.shape == fresh.shape
        assert np.array_equal(shared.img, fresh.img) and np.array_equal(shared.noise, fresh.noise)
    assert probes(80.0) is probes(82.0)  # (the copy, both)
    assert probe_source(image, 240.0, copy) == probe_source(image, 241.0, copy) and probes(240.0) is probes(241.0)
    assert probes(160.0) is not probes(240.0)


def test_readers_side_by_side_read_as_each_alone():
    image = _photo()
    cv2.setNumThreads(1)
    together = read_board(image, tileset="de", square_reader="both", also=("rules", "model"))
    for m, reading in (("both", together), *together.extra["also"].items()):
        alone = read_board(image, tileset="de", square_reader=m)
        assert alone.cells == reading.cells, m
        assert alone.corners == reading.corners


def test_a_profiles_own_letters_are_read_as_their_pictures_say():
    from companion.vision.letters import glyph_features, letter_reader

    rng = np.random.default_rng(5)
    glyphs = (rng.random((6, 24, 24)) * 255).astype(np.uint8)
    codes = np.array([ord(c) for c in "ABCDEZ"], np.int32)
    reader = letter_reader({"letter_glyphs": glyphs, "letter_codes": codes})
    assert reader.own_labels == tuple("ABCDEZ")
    assert np.array_equal(reader.own_features, glyph_features(glyphs.astype(np.float32) / 255.0))
    # A profile changed in place is read as it is now, not as it was.
    glyphs[0] = 0
    again = letter_reader({"letter_glyphs": glyphs, "letter_codes": codes})
    assert np.array_equal(again.own_features, glyph_features(glyphs.astype(np.float32) / 255.0))
    assert not np.array_equal(again.own_features, reader.own_features)
