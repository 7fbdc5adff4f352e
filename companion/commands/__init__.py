"""Subcommands of ``companion``: each module registers its own with ``register(subparsers)``."""

from __future__ import annotations

from typing import Callable

from companion.commands import calibrate, demo, gcg, lexicon, read, roll

COMMANDS: list[Callable] = [calibrate.register, demo.register, gcg.register, lexicon.register, read.register, roll.register]
