"""Many simulated tables at one venue: each a headless demo game (truth readings, simulated
time; :mod:`companion.sim.tabledemo`) on its own data folder, publishing through its own
:class:`~companion.table.publish.publisher.TablePublisher` as a real table's companion does.

The tables play a few steps each in turn (:meth:`Venue.play`), so that a test or the benchmark
can do things to the network between the steps (kill the broker, cut a table off).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from companion.core.gcg import GameRecord, decode_gcg, parse_gcg
from companion.core.errors import CompanionError
from companion.rules.rescore import choose_tileset
from companion.sim.record import names_of
from companion.sim.tabledemo import Demo
from companion.table.session import TILESETS
from companion.table.publish.publisher import BrokerConfig
from companion.table.publish.outbox import Outbox, outbox_name
from companion.table.publish.publisher import TablePublisher


def recorded_games(folder: Path | None = None) -> list[GameRecord]:
    """The shipped sample game, and every whole game of ``folder`` (GCG files) the demo can play."""
    games = [parse_gcg(decode_gcg(resources.files("companion").joinpath("data/sample.gcg").read_bytes()))]
    if folder is not None and folder.is_dir():
        for path in sorted(folder.rglob("*.gcg")):
            try:
                record = parse_gcg(decode_gcg(path.read_bytes()))
                if choose_tileset(record).name not in TILESETS:
                    continue
            except (CompanionError, ValueError, KeyError):
                continue
            if len(record.players) == 2 and len(record.events) >= 10:
                games.append(record)
    return games


class _Inline:
    """The game thread of a headless table: the caller's (a hub not started does the same, but
    the simulated table does not reach up to the web layer for it)."""

    def __init__(self, session: Any, now_ms: Callable[[], int]) -> None:
        self.session, self.now_ms = session, now_ms

    def call(self, fn: Callable[[Any, int], Any], timeout: float = 10.0) -> Any:
        return fn(self.session, self.now_ms())


class SimTable:
    def __init__(self, number: int, record: GameRecord, folder: Path, broker: BrokerConfig, event: str,
                 lexicon_for: Callable[[str], Any], say: Callable[[str], None] | None = None,
                 truth: bool = True) -> None:
        self.number = number
        names = [f"{n[:18]} {number}" for n in names_of(record)]
        self.demo = Demo(record, choose_tileset(record).name, names, data_dir=folder, truth=truth, sim_time=True,
                         hands_every=0, seed=number, lexicon_for=lexicon_for)
        self.hub = _Inline(self.demo.session, self.demo.clock)
        self.table = self.demo.table(self.hub)
        self.outbox = Outbox(folder / outbox_name(event, number))
        self.publisher = TablePublisher(broker, event, number, self.outbox, say=say, backoff_s=(0.1, 1.0))
        self.publisher.attach(self.demo.store, self.demo.session)

    @property
    def steps(self) -> int:
        return len(self.demo.steps)

    def play(self, upto: int | None = None) -> None:
        self.demo.play(self.hub, self.table, upto=upto)

    def close(self) -> None:
        self.publisher.stop()
        self.outbox.close()
        self.demo.close()


class Venue:
    """``len(records)`` tables, table n in ``folder/table<n>``; ``broker_for(n)`` is how table n
    reaches the broker (its account; a proxy in a test). ``truth=False``: each table's camera
    renders its board and the reader reads it (slow: the benchmark's full run)."""

    def __init__(self, records: list[GameRecord], folder: Path, event: str,
                 broker_for: Callable[[int], BrokerConfig], say: Callable[[str], None] | None = None,
                 truth: bool = True) -> None:
        from companion.lexicon import load_lexicon

        lexicon_for = functools.lru_cache(maxsize=None)(load_lexicon)
        self.tables = [SimTable(n, records[(n - 1) % len(records)], Path(folder) / f"table{n}", broker_for(n), event,
                                lexicon_for, say, truth) for n in range(1, len(records) + 1)]

    def start(self) -> "Venue":
        for t in self.tables:
            t.publisher.start()
        return self

    def play(self, upto: int | None = None, between: Callable[[], None] | None = None) -> None:
        """Every table's steps before ``upto`` (None: to the end), one table after another."""
        for t in self.tables:
            t.play(upto)
            if between is not None:
                between()

    def flush(self, timeout: float = 30.0) -> bool:
        return all(t.publisher.flush(timeout) for t in self.tables)

    def close(self) -> None:
        for t in self.tables:
            t.close()
