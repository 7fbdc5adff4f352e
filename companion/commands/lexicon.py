"""`companion lexicon`: check words, and import, export, add to, delete from or reset a word list.

Every subcommand takes ``--tileset`` (default ``en``); ``super3`` plays with the ``en`` list.
The file format of import and export is one word per line, UTF-8 (see lexicon/words.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.core.errors import CompanionError, one_line
from companion.lexicon import house, store
from companion.core.atomic import write_atomic
from companion.lexicon.words import LONGEST, MAX_LENGTH, MIN_LENGTH, format_word_list, normalise, parse_word_list

# Enough to see what is wrong with a file without drowning the terminal.
MAX_PROBLEMS_SHOWN = 20


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "lexicon",
        help="check words; import, export, add to or delete from the word lists",
        description="Check words against a word list, and manage the lists.",
    )
    lex = p.add_subparsers(dest="lexicon_command", metavar="ACTION", required=True)

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--tileset",
        default="en",
        choices=sorted(house.LIST_FOR_TILESET),
        metavar="NAME",
        help="the tile set whose word list to use: en (default), de; super3 plays with en",
    )
    longest = argparse.ArgumentParser(add_help=False)
    longest.add_argument(
        "--max-length",
        type=int,
        default=MAX_LENGTH,
        metavar="N",
        help=f"longest word accepted (default {MAX_LENGTH}, the board's width)",
    )

    c = lex.add_parser("check", parents=[common], help="say whether each word is valid")
    c.add_argument("words", nargs="+", metavar="WORD")
    c.set_defaults(func=check)

    i = lex.add_parser(
        "import",
        parents=[common, longest],
        help="make a file's words the whole dictionary (clears additions and deletions)",
        description="Make the words of FILE (one a line, UTF-8, any order, any case) the whole "
        "dictionary. Additions and deletions are cleared. Nothing changes if any line is bad.",
    )
    i.add_argument("file", metavar="FILE", help="the word list; - reads standard input")
    i.set_defaults(func=import_)

    e = lex.add_parser(
        "export", parents=[common], help="write the dictionary in use, one word a line, sorted"
    )
    e.add_argument("file", nargs="?", metavar="FILE", help="default: standard output")
    e.set_defaults(func=export)

    a = lex.add_parser("add", parents=[common, longest], help="make words valid")
    a.add_argument("words", nargs="+", metavar="WORD")
    a.set_defaults(func=add)

    d = lex.add_parser("delete", parents=[common, longest], help="make words invalid")
    d.add_argument("words", nargs="+", metavar="WORD")
    d.set_defaults(func=delete)

    r = lex.add_parser(
        "reset",
        parents=[common],
        help="go back to the shipped house list (clears imports, additions, deletions)",
    )
    r.set_defaults(func=reset)

    n = lex.add_parser("info", parents=[common], help="say which list is in use, and its size")
    n.set_defaults(func=info)


def check(args: argparse.Namespace) -> int:
    lexicon = store.load_lexicon(args.tileset)
    tileset = house.list_tileset(house.list_for_tileset(args.tileset))
    all_valid = True
    for text in args.words:
        try:
            # No length bounds here: the list decides (one imported with --max-length 21 has
            # longer words), and a word of the wrong length is simply not in it.
            word = normalise(text, tileset, min_length=1, max_length=sys.maxsize)
        except CompanionError as exc:
            print(f"{one_line(text)}: not valid ({one_line(exc)})")
            all_valid = False
            continue
        valid = word in lexicon
        all_valid &= valid
        print(f"{word}: {'valid' if valid else 'not valid'}")
    return 0 if all_valid else 1


# The largest word list read (the biggest real ones are tens of MB): a mistaken path to a disk
# image is refused before it is read.
MAX_LIST_BYTES = 256 << 20


def _read_input(name: str) -> bytes:
    try:
        if name == "-":
            data = sys.stdin.buffer.read(MAX_LIST_BYTES + 1)
        else:
            with open(name, "rb") as f:
                data = f.read(MAX_LIST_BYTES + 1)
    except OSError as exc:
        raise CompanionError(f"cannot read {one_line(name)}: {exc.strerror}") from None
    if len(data) > MAX_LIST_BYTES:
        raise CompanionError(f"{one_line(name)}: larger than {MAX_LIST_BYTES >> 20} MB, not a word list")
    return data


def _describe(user: store.UserList | None) -> str:
    if user is None:
        return "an unreadable state"
    return "an imported list" if user.imported else "the house list"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _check_max_length(n: int) -> None:
    if not MIN_LENGTH <= n <= LONGEST:
        raise CompanionError(f"--max-length: {MIN_LENGTH} to {LONGEST} letters, not {n}")


def import_(args: argparse.Namespace) -> int:
    _check_max_length(args.max_length)
    list_name = house.list_for_tileset(args.tileset)
    tileset = house.list_tileset(list_name)
    word_list = parse_word_list(_read_input(args.file), tileset, max_length=args.max_length)
    source = "standard input" if args.file == "-" else args.file
    if word_list.problems:
        for problem in word_list.problems[:MAX_PROBLEMS_SHOWN]:
            print(f"{source}: {problem}", file=sys.stderr)
        if len(word_list.problems) > MAX_PROBLEMS_SHOWN:
            print(f"... and {len(word_list.problems) - MAX_PROBLEMS_SHOWN} more", file=sys.stderr)
        raise CompanionError(
            f"{source}: {_plural(len(word_list.problems), 'bad line')} of {word_list.lines:,}; "
            "nothing was imported"
        )
    before = store.import_list(args.tileset, word_list)
    # Repeated words (QI and qi, say) are one word of the dictionary but two lines of the file.
    lines = "" if len(word_list.words) == word_list.lines else f" ({word_list.lines:,} lines)"
    print(
        f"{list_name}: the dictionary is now the {_plural(len(word_list.words), 'word')} of "
        f"{source}{lines}, replacing {_describe(before)}."
    )
    whole = "An import replaces the whole dictionary"
    if before and (before.added or before.deleted):
        added = _plural(len(before.added), "addition")
        deleted = _plural(len(before.deleted), "deletion")
        print(f"{whole}: cleared {added} and {deleted}.")
    else:
        print(f"{whole}; there were no additions or deletions to clear.")
    print(f"`companion lexicon reset --tileset {list_name}` goes back to the house list.")
    return 0


def export(args: argparse.Namespace) -> int:
    lexicon = store.load_lexicon(args.tileset)
    data = format_word_list(lexicon)
    if args.file is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return 0
    try:
        write_atomic(Path(args.file), data)
    except OSError as exc:
        raise CompanionError(f"cannot write {args.file}: {exc.strerror}") from None
    list_name = house.list_for_tileset(args.tileset)
    print(f"{list_name}: wrote {_plural(len(lexicon), 'word')} to {args.file}")
    return 0


def add(args: argparse.Namespace) -> int:
    _check_max_length(args.max_length)
    change = store.add_words(args.tileset, args.words, max_length=args.max_length)
    for word in change.changed:
        print(f"{word}: added")
    for word in change.unchanged:
        print(f"{word}: already valid")
    return 0


def delete(args: argparse.Namespace) -> int:
    _check_max_length(args.max_length)
    change = store.delete_words(args.tileset, args.words, max_length=args.max_length)
    for word in change.changed:
        print(f"{word}: deleted")
    for word in change.unchanged:
        print(f"{word}: not in the dictionary, nothing to delete")
    return 0


def reset(args: argparse.Namespace) -> int:
    list_name = house.list_for_tileset(args.tileset)
    before = store.reset(args.tileset)
    if before == store.UserList():
        print(f"{list_name}: already the house list, with no additions or deletions.")
        return 0
    if before is None:
        cleared = [_describe(before)]
    else:
        cleared = ["an imported list"] if before.imported else []
        cleared += [_plural(len(before.added), "addition")] if before.added else []
        cleared += [_plural(len(before.deleted), "deletion")] if before.deleted else []
    print(f"{list_name}: back to the house list; cleared {' and '.join(cleared)}.")
    return 0


def info(args: argparse.Namespace) -> int:
    list_name = house.list_for_tileset(args.tileset)
    user = store.read_user_list(list_name)
    lexicon = store.load_lexicon(args.tileset)
    if user.imported:
        base = f"an imported list of {_plural(len(lexicon.base), 'word')}"
    else:
        source = house.manifest()[list_name]["source"]
        base = f"the house list ({source}) of {_plural(len(lexicon.base), 'word')}"
    players = ", ".join(
        t for t, name in sorted(house.LIST_FOR_TILESET.items()) if name == list_name
    )
    print(f"{list_name} (tile sets {players}): {base}")
    print(
        f"{_plural(len(lexicon.added), 'addition')}, {_plural(len(lexicon.deleted), 'deletion')}: "
        f"{_plural(len(lexicon), 'word')} in play"
    )
    print(f"kept in {store.list_dir(list_name)}")
    return 0
