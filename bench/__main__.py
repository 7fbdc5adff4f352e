"""Run the benchmarks: ``python -m bench [NAME...]`` (see bench/__init__.py)."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

from bench import machine_info

HERE = Path(__file__).resolve().parent


def module_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules([str(HERE)]) if not m.name.startswith("_"))


def benchmark_file(name: str) -> bool:
    """Whether bench/NAME.py defines run() (read from its text: a helper module is not a
    benchmark, and importing every module here would defeat the fresh processes)."""
    return "\ndef run(" in (HERE / f"{name}.py").read_text(encoding="utf-8")


def benchmark(name: str) -> Callable[[], dict] | None:
    """The module's run(); None for a helper module that has none."""
    run = getattr(importlib.import_module(f"bench.{name}"), "run", None)
    return run if callable(run) else None


def summary(result: dict) -> str:
    if "summary" in result:
        return str(result["summary"])
    numbers = {
        k: v for k, v in result.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
    }
    return " ".join(
        f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in numbers.items()
    )


def main(argv: Sequence[str]) -> int:
    names = module_names()
    unknown = [name for name in argv if name not in names]
    if unknown:
        print(
            f"bench: no benchmark {', '.join(unknown)} (known: {', '.join(names)})", file=sys.stderr
        )
        return 2
    if not argv:
        # Each benchmark in a fresh process of its own: one leaves threads, caches and a heap
        # shaped by its work (the table's runs the reader on threads of its own), and those
        # timed after it would be timed in its wake, not as the companion runs them.
        failed = [name for name in names if benchmark_file(name)
                  and subprocess.run([sys.executable, "-m", "bench", name], cwd=HERE.parent).returncode]
        return 1 if failed else 0
    # One module imported at a time, and only those asked for: one benchmark's missing extra
    # spares the others.
    for name in argv:
        run = benchmark(name)
        if run is None:
            print(f"bench: bench/{name}.py has no run()", file=sys.stderr)
            return 2
        started = time.perf_counter()
        result = dict(run())
        result.setdefault("machine", machine_info())
        out = HERE / f"{name}.json"
        out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        took = time.perf_counter() - started
        print(f"{name}: {summary(result)} ({took:.1f} s, {out.relative_to(HERE.parent)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
