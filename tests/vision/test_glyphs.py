import importlib.util
from pathlib import Path

import pytest

from companion.core.tiles import get_tileset
from companion.vision.glyphs import load_atlas

ROOT = Path(__file__).resolve().parents[2]


def test_every_letter_of_every_set_and_the_digits_are_in_every_font():
    atlas = load_atlas()
    needed = set("0123456789?")
    for name in ("en", "de", "pl", "ro", "super3"):
        needed |= get_tileset(name).alphabet
    for font in range(len(atlas.fonts)):
        for ch in needed:
            ink = atlas.glyph(ch, font)
            assert ink.dtype.name == "uint8" and ink.max() > 200 and min(ink.shape) >= 4
    assert len(atlas.fonts) >= 10


def test_the_atlas_rebuilds_byte_for_byte(tmp_path):
    spec = importlib.util.spec_from_file_location("build_glyphs", ROOT / "scripts" / "build_glyphs.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    missing = [f for f, _ in build.FONTS if not Path(f).is_file()]
    if missing:
        pytest.skip(f"fonts not installed (.ci/run installs them): {missing[0]} ...")
    out = tmp_path / "glyphs.npz"
    assert build.main(["--out", str(out)]) == 0
    assert out.read_bytes() == (ROOT / "companion" / "vision" / "data" / "glyphs.npz").read_bytes()


def test_the_training_only_atlas_rebuilds_and_shares_no_family_with_the_held_out_one(tmp_path):
    spec = importlib.util.spec_from_file_location("build_glyphs", ROOT / "scripts" / "build_glyphs.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    held = {family.rsplit("-bold", 1)[0] for _, family in build.HELD_OUT}
    assert not any(family.startswith(h) for _, family in build.TRAIN_ONLY for h in held)
    assert load_atlas("glyphs_train").fonts == tuple(family for _, family in build.TRAIN_ONLY)
    missing = [f for f, _ in build.TRAIN_ONLY if not Path(f).is_file()]
    if missing:
        pytest.skip(f"fonts not installed (.ci/run installs them): {missing[0]} ...")
    out = tmp_path / "glyphs_train.npz"
    assert build.main(["--train-only", "--out", str(out)]) == 0
    assert out.read_bytes() == (ROOT / "companion" / "vision" / "data" / "glyphs_train.npz").read_bytes()


def test_training_scenes_never_draw_a_held_out_font():
    import numpy as np

    from companion.sim.trainscene import training_scene
    from companion.vision.glyphs import all_font_count, font_count

    atlas = len(load_atlas().fonts)
    for wide, expected in ((False, set(range(atlas))), (True, set(range(atlas)) | set(range(font_count(), all_font_count())))):
        drawn = set()
        for seed in range(300):
            spec = training_scene(np.random.default_rng([seed, 7]), wide_fonts=wide)
            drawn |= {spec.font, spec.label_font}
        assert not drawn & set(range(atlas, font_count()))
        assert drawn == expected
