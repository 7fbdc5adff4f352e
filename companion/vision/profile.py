"""Calibration profiles: what the reader learns about one table, kept in a small file.

A profile is a JSON document a person can read (``PROFILE``), with its numeric arrays, when
there are any, in a sibling ``PROFILE.npz``. ``companion calibrate`` writes one; ``companion
read --profile`` uses it. Every part is optional, and each part of the reader takes what it
needs:

- ``corners`` and ``image_size``: where the grid lies in the image of a mounted camera
  (``--layout empty``); the board finder then only refines.
- ``sets``: the tile sets on this table, each a name and the body colour of its tiles.
- arrays: ``empty`` (how each empty square looks, from the empty board), and letter samples
  of the user's own tiles (``--layout alphabet``), named by the component that uses them.

The version is checked: a newer file than this code understands is refused with a clear line.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from companion.core.atomic import write_atomic
from companion.core.errors import CompanionError, one_line

# 2: a profile may hold prototypes of the square network (companion/vision/prototypes.py); a
# version 1 profile loads as before (read without them).
VERSION = 2
MAX_PROFILE_BYTES = 1 << 20  # the JSON; its arrays are in the .npz beside it
MAX_SIDE = 100_000  # pixels of the image_size a profile's corners belong to


@dataclass(frozen=True)
class TileSetColour:
    name: str
    rgb: tuple[int, int, int]


@dataclass(frozen=True)
class Profile:
    tileset: str = "en"
    grid: int = 15
    corners: tuple[tuple[float, float], ...] | None = None  # TL, TR, BR, BL in image pixels
    image_size: tuple[int, int] | None = None  # (width, height) the corners belong to
    sets: tuple[TileSetColour, ...] = ()
    orientation: str = "row 0 is the board edge nearest the top of the image"
    notes: dict[str, Any] = field(default_factory=dict)  # where the profile came from
    arrays: dict[str, np.ndarray] = field(default_factory=dict, compare=False)
    version: int = VERSION

    def with_arrays(self, **arrays: np.ndarray) -> "Profile":
        return replace(self, arrays={**self.arrays, **arrays})

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "tileset": self.tileset,
            "grid": self.grid,
            "corners": [list(map(float, c)) for c in self.corners] if self.corners else None,
            "image_size": list(self.image_size) if self.image_size else None,
            "sets": [{"name": s.name, "rgb": list(s.rgb)} for s in self.sets],
            "orientation": self.orientation,
            "notes": self.notes,
            "arrays": sorted(self.arrays),
        }


def _arrays_path(path: Path) -> Path:
    return path.with_name(path.name + ".npz")


def save_profile(profile: Profile, path: Path) -> None:
    """Write the JSON and, when there are arrays, the ``.npz`` beside it; each atomically."""
    path = Path(path)
    write_atomic(path, (json.dumps(profile.to_json(), indent=2, ensure_ascii=False) + "\n").encode())
    npz = _arrays_path(path)
    if profile.arrays:
        buf = io.BytesIO()
        np.savez_compressed(buf, **profile.arrays)
        write_atomic(npz, buf.getvalue())
    elif npz.exists():
        npz.unlink()


def load_profile(path: Path) -> Profile:
    path = Path(path)
    try:
        if path.stat().st_size > MAX_PROFILE_BYTES:
            raise CompanionError(f"{path}: not a profile (larger than {MAX_PROFILE_BYTES // 1024} KB)")
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CompanionError(f"{path}: no such profile") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CompanionError(f"{path}: not a profile ({exc.__class__.__name__})") from None
    if not isinstance(doc, dict) or "version" not in doc:
        raise CompanionError(f"{path}: not a profile (no version)")
    if not isinstance(doc["version"], int) or doc["version"] > VERSION:
        raise CompanionError(f"{path}: profile version {doc['version']} is newer than this companion reads ({VERSION})")
    try:
        corners = doc.get("corners")
        size = doc.get("image_size")
        profile = Profile(
            tileset=str(doc.get("tileset", "en")),
            grid=int(doc.get("grid", 15)),
            corners=tuple((float(x), float(y)) for x, y in corners) if corners else None,
            image_size=(int(size[0]), int(size[1])) if size else None,
            sets=tuple(TileSetColour(str(s["name"]), tuple(int(v) for v in s["rgb"])) for s in doc.get("sets", [])),  # type: ignore[misc]
            orientation=str(doc.get("orientation", Profile.orientation)),
            notes=dict(doc.get("notes", {})),
            version=int(doc["version"]),
        )
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise CompanionError(f"{path}: malformed profile ({one_line(exc)})") from None
    if profile.corners is not None and len(profile.corners) != 4:
        raise CompanionError(f"{path}: a profile has four corners")
    if profile.corners is not None and not all(math.isfinite(v) for xy in profile.corners for v in xy):
        raise CompanionError(f"{path}: malformed profile (corners: finite numbers)")
    if profile.image_size is not None and not all(0 < v <= MAX_SIDE for v in profile.image_size):
        raise CompanionError(f"{path}: malformed profile (image_size: a width and a height of 1 to {MAX_SIDE} "
                             f"pixels, not {list(profile.image_size)})")
    wanted = doc.get("arrays") or []
    if wanted:
        npz = _arrays_path(path)
        try:
            with np.load(npz, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError) as exc:
            raise CompanionError(f"{npz}: the profile's arrays cannot be read ({exc.__class__.__name__})") from None
        missing = sorted(set(wanted) - set(arrays))
        if missing:
            raise CompanionError(f"{npz}: arrays missing: {', '.join(missing)}")
        profile = profile.with_arrays(**arrays)
    return profile
