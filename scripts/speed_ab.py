"""How much faster (or slower) does this tree read a photo than an earlier commit? Both in one
process, photo by photo, so that a shared machine's load weighs on both alike.

    python scripts/speed_ab.py a6657de                 # this tree against commit a6657de
    python scripts/speed_ab.py a6657de --rounds 3 --out ab.json

The commit's tree is exported (``git archive``) to a temporary directory and both copies of the
``companion`` package are imported side by side: ``sys.modules`` is switched to one copy's
modules before each of its readings (its functions hold their own modules' objects, and a
function that imports at call time finds its own copy). Each photo is read by one and then the
other, the order alternating photo by photo and round by round. What is timed is what
``bench.vision.timing`` times for the default square reader: the file's bytes decoded and read
by ``read_board`` (no profile), CPU time of the process, every thread pool held to one thread
(``bench.one_core``, in each copy). Photos: as ``bench.vision.timing`` takes them (the 80
labelled scrabscrap JPEGs and the stranger benchmark's overhead renders as PNG, timed only),
rendered once by this tree.

Prints each set's median CPU ms per photo before and after, their ratio and the median of the
per-photo ratios, the decoding's and the network's share (``square_model_cpu_ms``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("companion", "bench")


def _ours(name: str) -> bool:
    return name.split(".")[0] in PACKAGES


def load_tree(root: Path) -> tuple[dict[str, ModuleType], Callable[..., Any], Callable[..., Any]]:
    """The ``companion`` and ``bench`` packages of the tree at ``root``, imported afresh and
    prepared as a reading process is (one thread, networks loaded): their modules, and that
    copy's ``decode_image`` and ``read_board``."""
    for name in [n for n in sys.modules if _ours(n)]:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    try:
        import bench
        from companion.vision import reader

        bench.one_core()
        reader.prepare("de")
        reader.prepare("en")
    finally:
        sys.path.remove(str(root))
    modules = {n: m for n, m in sys.modules.items() if _ours(n)}
    return modules, reader.decode_image, reader.read_board


def export(commit: str, into: Path) -> Path:
    """The commit's tree under ``into``, beside a link to the shared photos the benchmark reads
    (``../shared`` of the tree, as in a worktree)."""
    tree = into / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=False)
    if archive.returncode:
        raise SystemExit(f"speed_ab: cannot export {commit}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    shared = (ROOT / ".." / "shared").resolve()
    if shared.is_dir():
        (into / "shared").symlink_to(shared)
    return tree


def run(commit: str, rounds: int, stranger_scenes: int) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT))
    from bench.vision import _timing_photos

    sets = _timing_photos(stranger_scenes)
    sys.path.remove(str(ROOT))
    photos = [(set_name, name, data, tileset, grid) for set_name, items in sets.items()
              for name, data, tileset, grid in items]
    with tempfile.TemporaryDirectory(prefix="speed_ab_") as tmp:
        trees = {"before": export(commit, Path(tmp)), "after": ROOT}
        loaded = {tag: load_tree(root) for tag, root in trees.items()}
        times: dict[str, dict[str, list[tuple[float, float, float]]]] = {tag: {} for tag in trees}
        for r in range(rounds):
            for i, (set_name, name, data, tileset, grid) in enumerate(photos):
                for tag in ("before", "after") if (i + r) % 2 == 0 else ("after", "before"):
                    modules, decode_image, read_board = loaded[tag]
                    sys.modules.update(modules)
                    c0 = time.process_time()
                    image = decode_image(data, name)
                    c1 = time.process_time()
                    reading = read_board(image, tileset=tileset, grid=grid)
                    c2 = time.process_time()
                    times[tag].setdefault(f"{set_name}/{name}", []).append(
                        ((c2 - c0) * 1000.0, (c1 - c0) * 1000.0, float(reading.extra["square_model_cpu_ms"])))
    out: dict[str, Any] = {"commit": commit, "rounds": rounds}
    for set_name in sets:
        names = [n for n in times["before"] if n.startswith(set_name + "/")]
        if not names:
            continue

        def med(tag: str, k: int, names: list[str] = names) -> dict[str, float]:
            return {n: statistics.median(t[k] for t in times[tag][n]) for n in names}

        before, after = med("before", 0), med("after", 0)
        b, a = statistics.median(before.values()), statistics.median(after.values())
        out[set_name] = {
            "photos": len(names), "cpu_ms_median_before": round(b, 1), "cpu_ms_median_after": round(a, 1),
            "ratio": round(a / b, 3), "per_photo_ratio_median": round(statistics.median(after[n] / before[n] for n in names), 3),
            "decoding_cpu_ms_median": round(statistics.median(med("after", 1).values()), 1),
            "model_cpu_ms_median_before": round(statistics.median(med("before", 2).values()), 1),
            "model_cpu_ms_median_after": round(statistics.median(med("after", 2).values()), 1),
        }
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("commit", help="the commit to compare this tree with")
    ap.add_argument("--rounds", type=int, default=2, help="readings of every photo by each (default 2)")
    ap.add_argument("--stranger-scenes", type=int, default=40, help="stranger seeds 50000 on to draw from (default 40)")
    ap.add_argument("--out", type=Path, help="also write the figures here (JSON)")
    args = ap.parse_args()
    if args.rounds < 1:
        print("speed_ab: --rounds must be at least 1", file=sys.stderr)
        return 2
    known = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{args.commit}^{{commit}}"],
                           capture_output=True, check=False)
    if known.returncode:
        print(f"speed_ab: {args.commit}: no such commit", file=sys.stderr)
        return 2
    result = run(args.commit, args.rounds, args.stranger_scenes)
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
