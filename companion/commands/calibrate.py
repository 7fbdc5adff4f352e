"""`companion calibrate IMAGE --out PROFILE`: teach the reader one table (the contract's
calibration section).

- ``--layout empty``: a photo of the empty board in place fixes the grid of a mounted camera
  and how every empty square looks under this light.
- ``--layout alphabet``: every letter of the tile set once, face up and upright, in alphabetical
  order from the top-left square, left to right, wrapping after the last column, then one blank
  tile: the look of the user's own tiles. ``--set NAME`` names the tiles' set (their colour is
  learned); run it once per set for a game with two colours of tiles.

With ``--profile`` an existing profile is extended (written to ``--out``), so that one profile
can hold the empty board and every set's alphabet.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from companion.core.board import layout_for_grid
from companion.core.tiles import get_tileset, tileset_names


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calibrate", help="make a profile of a board and its tiles", description=__doc__.split("\n\n")[1])
    p.add_argument("image", type=Path, help="the calibration photo")
    p.add_argument("--out", type=Path, required=True, help="where to write the profile (JSON; arrays beside it)")
    p.add_argument("--layout", choices=("empty", "alphabet"), default="empty", help="what the photo shows (default empty)")
    p.add_argument("--tileset", choices=tileset_names(), help="the tiles' alphabet (default: the profile's, else en)")
    p.add_argument("--grid", type=int, choices=(15, 21), help="15 or 21 squares (default: the profile's, else 15)")
    p.add_argument("--set", dest="set_name", default="default", help="with --layout alphabet: the name of these tiles' set")
    p.add_argument("--profile", type=Path, help="an existing profile to extend")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # OpenCV loads only when the command runs (see read.py).
    from companion.vision.cells import CELL_PX, MARGIN, learn_alphabet, learn_empty
    from companion.vision.grid import locate_grid, rectify
    from companion.vision.profile import Profile, TileSetColour, load_profile, save_profile
    from companion.vision.reader import decode_image, profile_hint, read_image_bytes

    base = load_profile(args.profile) if args.profile else Profile()
    tileset = args.tileset or base.tileset
    grid = args.grid or base.grid
    image = decode_image(read_image_bytes(args.image), str(args.image))
    location = locate_grid(image, grid, grid, hint=profile_hint(base, image, grid))
    top_down = rectify(image, location, CELL_PX, MARGIN)
    layout = layout_for_grid(grid)
    tiles = get_tileset(tileset)
    notes = dict(base.notes)
    if args.layout == "empty":
        arrays = learn_empty(top_down, CELL_PX, MARGIN, layout)
        profile = replace(
            base,
            tileset=tileset,
            grid=grid,
            corners=tuple((float(x), float(y)) for x, y in location.corners),
            image_size=(image.shape[1], image.shape[0]),
            notes={**notes, "empty": str(args.image.name)},
        ).with_arrays(**arrays)
        said = f"grid found (score {location.score:.2f}); empty squares learned"
    else:
        learned = learn_alphabet(top_down, CELL_PX, MARGIN, tiles, set_name=args.set_name)
        sets = tuple(s for s in base.sets if s.name != args.set_name) + (
            TileSetColour(args.set_name, learned.rgb),
        )
        profile = replace(
            base, tileset=tileset, grid=grid, sets=sets, notes={**notes, f"alphabet:{args.set_name}": str(args.image.name)}
        ).with_arrays(**learned.arrays)
        said = f"{len(tiles.alphabet)} letters and the blank of set {args.set_name!r} learned, colour {learned.rgb}"
    save_profile(profile, args.out)
    print(f"{args.out}: {said}")
    return 0
