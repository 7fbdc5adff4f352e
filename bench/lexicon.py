"""How fast the default English list loads and answers, and how big the shipped lists are.

Loads and look-ups run against a fresh, empty data directory, so that the figures are the
house list's and not whatever the machine's user has imported.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import resources
from typing import Callable
from unittest import mock

from companion.core.tiles import get_tileset
from companion.lexicon import Lexicon, format_word_list, load_lexicon
from companion.lexicon.house import house_trie, manifest

LOADS = 21
COLD_LOADS = 5
LOOKUP_RUNS = 7
QUERIES = 100_000  # half words of the list, half near misses
SEED = 2024


def _median_seconds(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _queries(lexicon: Lexicon) -> list[str]:
    """What the rules ask during play: mostly real words, and misreads or phonies one letter off."""
    rng = random.Random(SEED)
    words = list(lexicon)
    alphabet = sorted(get_tileset("en").alphabet)
    hits = rng.sample(words, QUERIES // 2)
    misses: list[str] = []
    while len(misses) < QUERIES // 2:
        w = rng.choice(words)
        i = rng.randrange(len(w))
        miss = w[:i] + rng.choice(alphabet) + w[i + 1 :]
        if miss not in lexicon:
            misses.append(miss)
    queries = hits + misses
    rng.shuffle(queries)
    return queries


def _lookups_per_second(lexicon: Lexicon, queries: list[str]) -> float:
    def ask() -> None:
        for w in queries:
            w in lexicon  # noqa: B015 - the look-up is what is measured

    return len(queries) / _median_seconds(ask, LOOKUP_RUNS)


def _cold_load_seconds() -> float:
    """A new process importing the package and loading the list: what a start-up on a Pi pays."""
    code = (
        "import time; t = time.perf_counter(); "
        "from companion.lexicon import load_lexicon; load_lexicon('en'); "
        "print(time.perf_counter() - t)"
    )
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], check=True, capture_output=True, text=True
            ).stdout
        )
        for _ in range(COLD_LOADS)
    ]
    return statistics.median(runs)


def run() -> dict:
    with (
        tempfile.TemporaryDirectory() as empty,
        mock.patch.dict(os.environ, {"COMPANION_DATA_DIR": empty}),
    ):
        load = _median_seconds(lambda: load_lexicon("en"), LOADS)
        cold = _cold_load_seconds()
        lexicon = load_lexicon("en")

    queries = _queries(lexicon)
    rate = _lookups_per_second(lexicon, queries)
    # The same with a user's overlay, to show what additions and deletions cost a look-up.
    rng = random.Random(SEED)
    hits = [q for q in queries if q in lexicon]
    misses = [q for q in queries if q not in lexicon]
    with_overlay = Lexicon(
        lexicon.base, added=rng.sample(misses, 100), deleted=rng.sample(hits, 100)
    )
    overlay_rate = _lookups_per_second(with_overlay, queries)

    lists = {}
    for name, entry in manifest().items():
        data = resources.files("companion.lexicon").joinpath("data", f"{name}.marisa")
        lists[name] = {
            "words": len(house_trie(name)),
            "marisa_bytes": len(data.read_bytes()),
            "plain_text_bytes": len(format_word_list(house_trie(name).iterkeys())),
            "source": entry["source"],
        }
    en = lists["en"]
    return {
        "summary": (
            f"en loads in {load * 1000:.2f} ms ({cold * 1000:.0f} ms with imports, new process), "
            f"{rate / 1e6:.2f} M look-ups/s; "
            + ", ".join(
                f"{n} {v['words']:,} words in {v['marisa_bytes'] / 1000:.0f} kB"
                for n, v in lists.items()
            )
        ),
        "en_load_ms_median": round(load * 1000, 3),
        "en_load_runs": LOADS,
        "en_cold_process_import_and_load_ms_median": round(cold * 1000, 1),
        "en_cold_runs": COLD_LOADS,
        "lookups_per_s_median": round(rate),
        "lookups_per_s_with_overlay_median": round(overlay_rate),
        "lookup_queries": len(queries),
        "lookup_hit_fraction": len(hits) / len(queries),
        "lookup_runs": LOOKUP_RUNS,
        "en_words": en["words"],
        "lists": lists,
    }
