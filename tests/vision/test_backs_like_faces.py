"""A set whose backs wear another set's face colour (white tiles with red backs beside red
tiles): a plain square of that colour is a back of the one or a blank of the other, and nothing
in a photo tells which. Such a square is asked about, never guessed."""

from __future__ import annotations

import numpy as np

from companion.vision.backs import backs_like_faces
from companion.vision.profile import Profile, TileSetColour


def _profile(backs: list[tuple[float, float, float]]) -> Profile:
    sets = (TileSetColour("white", (245, 244, 242)), TileSetColour("red", (190, 48, 46)))
    return Profile(tileset="en", sets=sets).with_arrays(set_backs=np.array(backs, np.float32))


def test_backs_of_another_sets_face_colour_are_found_and_only_they() -> None:
    assert backs_like_faces(_profile([(187, 58, 61), (236, 220, 170)])) == (frozenset({"white"}), frozenset({"red"}))
    assert backs_like_faces(_profile([(60, 92, 150), (236, 220, 170)])) == (frozenset(), frozenset())  # blue backs
    assert backs_like_faces(_profile([(187, 58, 61), (np.nan, np.nan, np.nan)])) == (frozenset({"white"}), frozenset({"red"}))
    assert backs_like_faces(None) == (frozenset(), frozenset())
    assert backs_like_faces(Profile(tileset="en", sets=(TileSetColour("white", (245, 244, 242)),))) == (frozenset(), frozenset())


def test_a_red_blank_beside_white_tiles_red_backs_is_asked_about() -> None:
    # Development seed 52018 (the benchmark's are 50000-50199): red and white sets, the white
    # set's backs red. Its red blank was read as a white back at 0.94 before.
    from bench.vision import stranger_tables, truth_for
    from companion.vision.reader import read_board

    _, _, spec, scene, profile, _ = next(stranger_tables(1, 52018))
    twin_backs, twin_faces = backs_like_faces(profile)
    assert (twin_backs, twin_faces) == (frozenset({"white"}), frozenset({"red"}))
    truth = truth_for(scene, profile)
    reading = read_board(scene.image, tileset=spec.tileset, grid=spec.grid, profile=profile)
    plain = [(t, c) for t, c in zip(truth, reading.cells)
             if (c.kind == "back" and c.set in twin_backs) or (c.kind == "tile" and c.letter == "?" and c.set in twin_faces)]
    assert any(t.kind == "tile" and t.letter == "?" for t, _ in plain)  # the red blank, read as one of the two
    assert plain and all(c.confidence < 0.5 for _, c in plain)
    fields = reading.extra["field_confidence"]
    assert all(fields["kind"][c.row * spec.grid + c.col] < 0.5 for _, c in plain)
