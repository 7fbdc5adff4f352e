"""Subcommands of ``companion``: each module registers its own with ``register(subparsers)``."""

from __future__ import annotations

from typing import Callable

from companion.commands import (
    calibrate, config, demo, dungeon, gcg, hint, house, lexicon, look, pins, read, replay, roll, run, serve,
    venue,
)

COMMANDS: list[Callable] = [
    calibrate.register, config.register, demo.register, dungeon.register, gcg.register, hint.register,
    house.register, lexicon.register, look.register, pins.register, read.register, replay.register, roll.register,
    run.register, serve.register, venue.register,
]
