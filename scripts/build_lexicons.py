"""Regenerate the shipped house lists (companion/lexicon/data/) from Debian's word lists.

    make lexicons                                  # or:
    python scripts/build_lexicons.py [--out DIR] [--max-length N]

Needs the Debian packages ``scowl`` (English) and ``wngerman`` (German). Which words are taken
and why is in companion/lexicon/sources.py. Writes, for each list, ``<list>.marisa`` and
``<list>.copyright.txt`` (the source's copyright notice, verbatim, under a header saying how
the list was derived), and ``manifest.json``.

Deterministic: the same input files give byte-identical output (sorted keys into the trie, no
dates, no paths of this machine), so tests/lexicon/test_rebuild.py rebuilds and compares.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import marisa_trie

from companion.lexicon import sources
from companion.lexicon.words import MAX_LENGTH, MIN_LENGTH

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "companion" / "lexicon" / "data"
SCOWL_DIR = Path("/usr/share/dict/scowl")
NGERMAN = Path("/usr/share/dict/ngerman")
DOC_DIR = Path("/usr/share/doc")  # <package>/copyright and changelog.Debian.gz


@dataclass(frozen=True)
class Built:
    """One list as built, with what its notice and manifest entry say about it."""

    words: set[str]
    source: str
    files: list[str]
    copyright: Path
    how: str  # how the source was filtered, for the notice


def debian_version(doc: Path) -> str:
    """The package version, from the first line of its changelog: "scowl (2020.12.07-2) ..."."""
    try:
        with gzip.open(doc / "changelog.Debian.gz", "rt", encoding="utf-8") as f:
            first = f.readline()
    except OSError:
        return "unknown"
    m = re.match(r"\S+ \(([^)]+)\)", first)
    return m.group(1) if m else "unknown"


def notice(header: str, copyright_file: Path) -> bytes:
    return (header.rstrip("\n") + "\n\n" + "-" * 72 + "\n\n").encode() + copyright_file.read_bytes()


def build(out: Path, *, scowl: Path, ngerman: Path, doc: Path, max_length: int) -> dict[str, int]:
    out.mkdir(parents=True, exist_ok=True)
    scowl_version = debian_version(doc / "scowl")
    wngerman_version = debian_version(doc / "wngerman")

    files = sources.scowl_files(p.name for p in scowl.iterdir())
    en = sources.english_words(
        (line for name in files for line in (scowl / name).read_bytes().split(b"\n")),
        max_length=max_length,
    )
    de = sources.german_words(
        ngerman.read_bytes().decode("utf-8").split("\n"), max_length=max_length
    )

    lists = {
        "en": Built(
            words=en,
            source=f"SCOWL, Debian package scowl {scowl_version}",
            files=files,
            copyright=doc / "scowl" / "copyright",
            how=(
                "Files: the SCOWL 'words' lists of sizes up to 80 in the spelling categories\n"
                "english, american, british, british_z, canadian, australian and their\n"
                "variant_1 lists (listed in manifest.json). Lines of a-z only, upper-cased.\n"
            ),
        ),
        "de": Built(
            words=de,
            source=f"wngerman, Debian package wngerman {wngerman_version} (GPL-2+)",
            files=[ngerman.name],
            copyright=doc / "wngerman" / "copyright",
            how=(
                "Changes: upper-cased, ß written SS; dropped acronyms and abbreviations (a\n"
                "capital after the first letter) and words with letters the German tile set\n"
                "lacks (é, ñ, ...).\n"
            ),
        ),
    }
    manifest: dict[str, dict[str, object]] = {}
    counts: dict[str, int] = {}
    for name, spec in lists.items():
        words = sorted(spec.words)
        data = marisa_trie.Trie(words).tobytes()
        (out / f"{name}.marisa").write_bytes(data)
        header = (
            f"{name}.marisa, the companion's house list for tile set {name!r}, is derived from\n"
            f"{spec.source}, by scripts/build_lexicons.py\n"
            "(the rules are in companion/lexicon/sources.py).\n"
            f"{spec.how}"
            f"Words of {MIN_LENGTH} to {max_length} letters. {len(words)} words.\n\n"
            "The source's copyright notice follows, unchanged.\n"
        )
        (out / f"{name}.copyright.txt").write_bytes(notice(header, spec.copyright))
        manifest[name] = {
            "source": spec.source,
            "files": spec.files,
            "min_length": MIN_LENGTH,
            "max_length": max_length,
            "words": len(words),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        counts[name] = len(words)
    text = json.dumps(manifest, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    (out / "manifest.json").write_bytes(text.encode("utf-8"))
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DATA, help=f"default {DATA}")
    parser.add_argument("--scowl", type=Path, default=SCOWL_DIR)
    parser.add_argument("--ngerman", type=Path, default=NGERMAN)
    parser.add_argument("--doc", type=Path, default=DOC_DIR, help="where <package>/copyright is")
    parser.add_argument(
        "--max-length",
        type=int,
        default=MAX_LENGTH,
        help=f"longest word kept (default {MAX_LENGTH}, the 15x15 board's width)",
    )
    args = parser.parse_args(argv)
    needed = [args.scowl, args.ngerman]
    needed += [args.doc / package / "copyright" for package in ("scowl", "wngerman")]
    for path in needed:
        if not path.exists():
            print(
                f"build_lexicons: {path} is missing: install Debian's scowl and wngerman",
                file=sys.stderr,
            )
            return 2
    counts = build(
        args.out, scowl=args.scowl, ngerman=args.ngerman, doc=args.doc, max_length=args.max_length
    )
    for name, n in counts.items():
        size = (args.out / f"{name}.marisa").stat().st_size
        print(f"{name}: {n} words, {size} bytes -> {args.out / f'{name}.marisa'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
