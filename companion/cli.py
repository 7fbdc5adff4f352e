"""The ``companion`` command. Each group of subcommands lives in ``companion/commands/``.

Every failure a user can cause ends as one line on stderr and a non-zero exit: a
:class:`CompanionError` (bad input) exits 2, a :class:`ConfigError` (a bad configuration file) 78, an interrupted command 130. Only a bug escapes as
a traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from companion import __version__
from companion.commands import COMMANDS
from companion.core.errors import CONFIG_EXIT, CompanionError, ConfigError


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (with a pointer to --help), not a usage block."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="companion", description="A referee for real word-tile boards."
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for register in COMMANDS:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ConfigError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return CONFIG_EXIT
    except CompanionError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("companion: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error of ours.
        sys.stderr.close()
        return 0
