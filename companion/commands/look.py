"""`companion look`: aim the camera. Each frame is read as the table reads it, and the picture
of what was found (the grid, each square's reading, the row and column names: row 1 is the
board's edge nearest the top of the image) is written to ``--out``, replaced whole each time.

    companion look --once --out view.png          # one frame from the configured camera
    companion look --out view.png                 # every --every seconds until Ctrl-C
    companion look --image photo.jpg --once --out view.png
    companion look --once --frame empty.png --out view.png   # and the frame itself, to calibrate with

The camera is the configuration's ([camera], or [camera2] with ``--board 2``) with its
settings (size, focus, exposure), its profile and the game's tile set, unless ``--source``,
``--image``, ``--profile`` or ``--tileset`` say otherwise. The service holds the camera while
it runs: stop it first (``sudo systemctl stop companion``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from companion.table.config import default_path
from companion.core.tiles import tileset_names
from companion.core.errors import CompanionError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("look", help="see what the camera sees: the found grid and readings drawn over the frame",
                       description=__doc__.split("\n\n")[0].split(": ", 1)[1])
    p.add_argument("--out", type=Path, required=True, help="the picture to write (.png or .jpg), replaced each frame")
    p.add_argument("--frame", type=Path, help="also write the frame itself, as the camera gave it (a photo for calibrate)")
    p.add_argument("--once", action="store_true", help="one frame, then stop")
    p.add_argument("--every", type=float, default=1.0, help="seconds between frames (default 1)")
    p.add_argument("--frames", type=int, help="stop after this many frames (default: until Ctrl-C)")
    p.add_argument("--config", type=Path, help=f"the configuration file (default {default_path()})")
    p.add_argument("--board", type=int, choices=(1, 2), default=1, help="Scrabble House: 2 for [camera2]")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--image", type=Path, help="a photo instead of the camera")
    src.add_argument("--source", help="a camera source instead of the configuration's (device:0, folder:PATH, ...)")
    p.add_argument("--profile", type=Path, help="a calibration profile (default: the configuration's)")
    p.add_argument("--tileset", choices=tileset_names(), help="the tiles' alphabet (default: the profile's or the game's)")
    p.add_argument("--grid", type=int, choices=(15, 21), default=15, help="15 or 21 squares (default 15)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.every < 0 or (args.frames is not None and args.frames < 1):
        raise CompanionError("--every: 0 seconds or more; --frames: 1 or more")
    # OpenCV and the reader load only when the command runs (see read.py).
    from companion.vision.overlay import read_and_draw, summary, write_image
    from companion.vision.reader import prepare

    frames = 1 if args.once else args.frames
    source, profile, tileset = _setup(args)
    try:
        prepare(tileset, args.grid)
        n = 0
        while frames is None or n < frames:
            started = time.monotonic()
            image = source()
            if image is None:
                print(f"look: {source.name}: no more frames", flush=True)
                break
            if args.frame is not None:
                write_image(args.frame, image)
            picture, reading = read_and_draw(image, tileset=tileset, grid=args.grid, profile=profile)
            write_image(args.out, picture)
            n += 1
            said = summary(reading) if reading is not None else "no board found"
            print(f"look: frame {n}: {said} -> {args.out}", flush=True)
            if frames is None or n < frames:
                time.sleep(max(0.0, args.every - (time.monotonic() - started)))
    except KeyboardInterrupt:
        pass  # Ctrl-C is how the refreshed view ends
    finally:
        source.close()
    return 0


class _Camera:
    """A frame source as a callable giving the next picture (a folder loops)."""

    def __init__(self, source: Any) -> None:
        self.source = source

    @property
    def name(self) -> str:
        return self.source.name

    def __call__(self) -> Any:
        frame = self.source.read()
        return None if frame is None else frame.image

    def close(self) -> None:
        self.source.close()


def _setup(args: argparse.Namespace) -> tuple[Any, Any, str]:
    """The frames, the profile and the tile set: from the options, else the configuration."""
    from companion.vision.profile import load_profile

    cam, game_tileset = None, "en"
    if (args.image is None and args.source is None) or args.profile is None or args.tileset is None:
        from companion.table.config import load_config

        cfg = load_config(args.config)
        cam = cfg.camera if args.board == 1 else cfg.camera2
        if cam is None:
            raise CompanionError(f"{cfg.source}: --board 2: the configuration has one board (game.boards = 1)")
        game_tileset = cfg.tileset
    profile_path = args.profile or (Path(cam.profile).expanduser() if cam is not None and cam.profile else None)
    profile = load_profile(profile_path) if profile_path else None
    tileset = args.tileset or (profile.tileset if profile is not None else game_tileset)
    if args.image is not None:
        return _Photo(args.image), profile, tileset
    if args.source is not None:
        from companion.pi.sources import open_source

        return _Camera(open_source(args.source)), profile, tileset
    from companion.commands.run import open_camera

    assert cam is not None
    return _Camera(open_camera(cam)), profile, tileset


class _Photo:
    """One photo, given again at every frame."""

    def __init__(self, path: Path) -> None:
        from companion.vision.reader import decode_image, read_image_bytes

        self.image = decode_image(read_image_bytes(path), str(path))

    def __call__(self) -> Any:
        return self.image

    def close(self) -> None:
        pass
