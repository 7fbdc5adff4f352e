import json

import numpy as np
import pytest

from companion.core.errors import CompanionError
from companion.vision.profile import VERSION, Profile, TileSetColour, load_profile, save_profile


def test_round_trip_with_arrays(tmp_path):
    p = Profile(
        tileset="de",
        corners=((10.0, 12.0), (500.0, 11.0), (502.0, 498.0), (9.0, 499.0)),
        image_size=(512, 512),
        sets=(TileSetColour("ivory", (230, 225, 200)),),
        notes={"from": "test"},
    ).with_arrays(empty=np.arange(12, dtype=np.float32).reshape(3, 4))
    path = tmp_path / "table.json"
    save_profile(p, path)
    doc = json.loads(path.read_text())
    assert doc["version"] == VERSION and doc["arrays"] == ["empty"]
    back = load_profile(path)
    assert back == p
    assert np.array_equal(back.arrays["empty"], p.arrays["empty"])


def test_bad_profiles_are_one_clear_error(tmp_path):
    with pytest.raises(CompanionError, match="no such profile"):
        load_profile(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CompanionError, match="not a profile"):
        load_profile(bad)
    bad.write_text(json.dumps({"version": 99}))
    with pytest.raises(CompanionError, match="newer"):
        load_profile(bad)
    bad.write_text(json.dumps({"version": 1, "arrays": ["empty"]}))
    with pytest.raises(CompanionError, match="arrays cannot be read"):
        load_profile(bad)
    bad.write_text(json.dumps({"version": 1, "corners": [[0, 0]]}))
    with pytest.raises(CompanionError, match="four corners"):
        load_profile(bad)
