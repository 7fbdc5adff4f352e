"""`companion replay-photos DIR --tileset de [--gcg-out FILE]`: a game rebuilt from an ordered
folder of photos, one per turn (see companion/table/replay.py).

Prints each turn as a GCG event line (and any question a photo raises); writes the game as GCG
with --gcg-out. Exit 0 when every turn was settled, 1 when some turns are questions (they are in
the output and, as notes, in the GCG); 2 with one line on bad input.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.core.tiles import tileset_names


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay-photos",
        help="rebuild a game from a folder of photos, one per turn",
        description="Read each photo of a folder in order (one per turn, the first ones may show "
        "the empty board), infer each move from what changed, score it, and print the game as GCG.",
    )
    p.add_argument("folder", type=Path, help="the photos, JPEG or PNG, named in playing order")
    p.add_argument("--tileset", default="en", choices=tileset_names(), help="the tiles' alphabet (default en)")
    p.add_argument("--gcg-out", type=Path, help="write the game here as GCG (UTF-8)")
    p.add_argument("--players", default="player1,player2", help="the players' names in playing order, comma separated")
    p.add_argument("--profile", type=Path, help="the camera's profile made by `companion calibrate`")
    p.add_argument(
        "--transpose",
        action="store_true",
        help="the record's squares are the photos' transposed (row r, column c of the record is row c, "
        "column r of the photo), as in scrabscrap's records",
    )
    p.add_argument(
        "--blanks-from",
        type=Path,
        metavar="GCG",
        help="the game's score sheet as GCG: only the letters the players named for their blanks are "
        "taken from it (no photo shows them); every move is still read from the photos",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.core.atomic import write_atomic
    from companion.core.gcg import event_line, write_gcg
    from companion.core.tiles import get_tileset
    from companion.core.errors import CompanionError
    from companion.lexicon.store import load_lexicon
    from companion.core.gcg import read_record
    from companion.table.replay import declared_blanks, photos_in, replay_photos
    from companion.vision.profile import load_profile
    from companion.vision.reader import read_file

    players = [name.strip() for name in args.players.split(",")]
    if len(players) < 2 or len(players) > 4 or any(not n or " " in n for n in players) or len(set(players)) != len(players):
        raise CompanionError("--players: two to four different names without spaces, comma separated")
    named = declared_blanks(read_record(args.blanks_from)) if args.blanks_from is not None else None
    photos = photos_in(args.folder)
    profile = load_profile(args.profile) if args.profile else None
    tileset = get_tileset(args.tileset)
    lexicon = load_lexicon(args.tileset)

    def read(photo: Path):
        try:
            return read_file(photo, tileset=args.tileset, profile=profile).cells
        except CompanionError as exc:
            # Which photo of the folder: a message of the reader's own ("no board found") names none.
            message = str(exc)
            raise CompanionError(message if message.startswith(str(photo)) else f"{photo}: {message}") from None

    replay = replay_photos(photos, read, tileset, lexicon, players, transpose=args.transpose, named_blanks=named)
    text = write_gcg(replay.record)
    for turn in replay.turns:
        print(f"{turn.photo.name}: {event_line(turn.event)}")
        for q in turn.inferred.questions:
            print(f"{turn.photo.name}: question: {q}")
    if replay.start_photos:
        print(f"(the empty board: {', '.join(p.name for p in replay.start_photos)})")
    if args.gcg_out:
        write_atomic(args.gcg_out, text.encode("utf-8"))
    return 1 if replay.questions else 0
