"""`companion read IMAGE --json`: the board-reading contract (../shared/contracts/board-reading.md).

Exit 0 with the reading as JSON on stdout; exit 2 with one line on stderr when the image cannot
be read or holds no board.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from companion.core.tiles import tileset_names
from companion.core.errors import CompanionError
from companion.vision import BACKENDS

# The vision modules load OpenCV: they are imported when the command runs, so that the rest of
# the command line starts fast.


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "read",
        help="read every square of a board photo",
        description="Find the board in a photo and read every square: empty, tile (letter, "
        "rotation, colour, set), face-down tile, token, with a confidence each.",
    )
    p.add_argument("image", type=Path, help="a JPEG or PNG as a camera gives it")
    p.add_argument("--profile", type=Path, help="a profile made by `companion calibrate`")
    p.add_argument("--tileset", default="en", choices=tileset_names(), help="the tiles' alphabet (default en)")
    p.add_argument("--grid", type=int, default=15, choices=(15, 21), help="15 for a standard board, 21 for an extended one")
    p.add_argument("--backend", default="own", choices=BACKENDS, help="letter reader: the project's own (default) or tesseract")
    p.add_argument("--json", action="store_true", help="print the reading as JSON (the contract's form)")
    p.add_argument("--overlay", type=Path, help="also write the photo with the grid and readings drawn over it (.png)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.vision.grid import NoBoardFound
    from companion.vision.profile import load_profile
    from companion.vision.reader import prepare, read_file

    profile = load_profile(args.profile) if args.profile else None
    tileset = args.tileset
    if profile is not None and args.tileset == "en" and profile.tileset != "en":
        # The profile knows which tiles it was made with; an explicit --tileset still wins.
        tileset = profile.tileset
    prepare(tileset, args.grid)  # process start: the contract's elapsed_ms excludes it
    try:
        reading = read_file(args.image, tileset=tileset, grid=args.grid, profile=profile, backend=args.backend)
    except CompanionError as exc:
        if args.overlay is not None and isinstance(exc, NoBoardFound):
            _overlay(args, None)
        raise
    if args.overlay is not None:
        _overlay(args, reading)
    if args.json:
        print(reading.dumps())
    else:
        print(reading.text())
        low = sum(1 for c in reading.cells if c.confidence < 0.5)
        print(f"({reading.elapsed_ms:.0f} ms; {low} squares read with low confidence)")
    return 0


def _overlay(args: argparse.Namespace, reading: Any) -> None:
    """The picture `companion look` draws, of this photo and this reading."""
    from companion.vision.overlay import draw_nothing_found, draw_reading, write_image
    from companion.vision.reader import decode_image, read_image_bytes

    image = decode_image(read_image_bytes(args.image), str(args.image))
    write_image(args.overlay, draw_reading(image, reading) if reading is not None else
                draw_nothing_found(image, "no board found"))
