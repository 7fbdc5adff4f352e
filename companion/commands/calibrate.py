"""`companion calibrate IMAGE --out PROFILE`: teach the reader one table (the contract's
calibration section).

- ``--layout empty``: a photo of the empty board in place fixes the grid of a mounted camera
  and how every empty square looks under this light.
- ``--layout alphabet``: every letter of the tile set once, face up and upright, in alphabetical
  order from the top-left square, left to right, wrapping after the last column, then one blank
  tile: the look of the user's own tiles. ``--set NAME`` names the tiles' set (their colour is
  learned); run it once per set for a game with two colours of tiles.
- ``--layout backs``: the set's tiles face down on every square of the middle row, and no
  other tile: the colour of its backs, which the solo dungeon's walls and monsters show (its
  alphabet first, with the same ``--set``).

With ``--profile`` an existing profile is extended (written to ``--out``), so that one profile
can hold the empty board and every set's alphabet.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.core.tiles import tileset_names


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calibrate", help="make a profile of a board and its tiles", description=__doc__.split("\n\n")[1])
    p.add_argument("image", type=Path, help="the calibration photo")
    p.add_argument("--out", type=Path, required=True, help="where to write the profile (JSON; arrays beside it)")
    p.add_argument("--layout", choices=("empty", "alphabet", "backs"), default="empty", help="what the photo shows (default empty)")
    p.add_argument("--tileset", choices=tileset_names(), help="the tiles' alphabet (default: the profile's, else en)")
    p.add_argument("--grid", type=int, choices=(15, 21), help="15 or 21 squares (default: the profile's, else 15)")
    p.add_argument("--set", dest="set_name", default="default", help="with --layout alphabet or backs: the name of these tiles' set")
    p.add_argument("--profile", type=Path, help="an existing profile to extend")
    p.add_argument("--overlay", type=Path,
                   help="also write the photo read with the new profile, the grid and readings drawn over it (.png)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # OpenCV loads only when the command runs (see read.py).
    from companion.vision.calibration import (
        calibrate_alphabet,
        calibrate_backs,
        calibrate_empty,
    )
    from companion.vision.profile import Profile, load_profile, save_profile
    from companion.vision.reader import decode_image, read_image_bytes

    base = load_profile(args.profile) if args.profile else Profile()
    image = decode_image(read_image_bytes(args.image), str(args.image))
    if args.layout == "empty":
        profile = calibrate_empty(image, base, args.image.name, tileset=args.tileset, grid=args.grid)
        said = f"grid found (score {profile.notes['grid_score']:.2f}); empty squares learned"
    elif args.layout == "backs":
        grid = args.grid or base.grid
        row = grid // 2
        profile, rgb = calibrate_backs(image, base, args.image.name, args.set_name, [(row, c) for c in range(grid)],
                                       grid=grid)
        said = (f"the backs of set {args.set_name!r} learned, colour {rgb}" if rgb is not None
                else f"the backs of set {args.set_name!r} "
                f"{profile.notes[f'backs:{args.set_name}'].split(': ', 1)[1]}; "
                "the profile is otherwise unchanged")
    else:
        profile, rgb = calibrate_alphabet(
            image, base, args.image.name, args.set_name, tileset=args.tileset, grid=args.grid
        )
        said = (f"the letters and the blank of set {args.set_name!r} learned, colour {rgb}" if rgb is not None
                else f"set {args.set_name!r}: {profile.notes[f'alphabet:{args.set_name}'].split(': ', 1)[1]}")
    save_profile(profile, args.out)
    print(f"{args.out}: {said}")
    if args.overlay is not None:
        # What the table will see with this profile: the grid it fixed, every square read.
        from companion.vision.overlay import read_and_draw, summary, write_image

        picture, reading = read_and_draw(image, tileset=profile.tileset, grid=profile.grid, profile=profile)
        write_image(args.overlay, picture)
        print(f"{args.overlay}: {summary(reading) if reading is not None else 'no board found'}")
    return 0
