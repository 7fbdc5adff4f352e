"""Subcommands of ``companion``: each module registers its own with ``register(subparsers)``."""

from __future__ import annotations

from typing import Callable

from companion.commands import demo, gcg, lexicon

COMMANDS: list[Callable] = [demo.register, gcg.register, lexicon.register]
