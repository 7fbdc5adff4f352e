"""A table that never reached the broker, restarted mid-game (the outbox is on disk): when the
broker comes, the screen gets the whole game in the log's order, once. Through `companion run`'s
own wiring (:func:`companion.table.publish.publisher.publish_table` from a [venue] configuration)."""

from __future__ import annotations

from importlib import resources

from companion.core.gcg import decode_gcg, parse_gcg
from companion.rules.rescore import choose_tileset
from companion.sim.record import names_of
from companion.sim.tabledemo import Demo
from companion.table.config import VenueConfig
from companion.table.publish.outbox import Outbox, outbox_name
from companion.table.publish.publisher import publish_table
from companion.venue.screen import Screen
from companion.table.publish.snapshot import compact_row
from companion.venue.subscriber import Subscriber
from companion.web.hub import Hub
from tests.venue.conftest import EVENT
from tests.venue.test_venue_broker import wait_for


def test_the_outbox_survives_a_restart_and_is_sent_in_order_when_the_broker_comes(broker, tmp_path):
    record = parse_gcg(decode_gcg(resources.files("companion").joinpath("data/sample.gcg").read_bytes()))
    broker.stop()  # the broker is not there yet
    venue = VenueConfig("127.0.0.1", broker.port, EVENT, 5, "table5", broker.passwords["table5"])
    said: list[str] = []

    def table():  # type: ignore[no-untyped-def]
        demo = Demo(record, choose_tileset(record).name, names_of(record), data_dir=tmp_path / "data", truth=True,
                    sim_time=True, hands_every=0)
        return demo, Hub(demo.session, now_ms=demo.clock), publish_table(venue, demo.store, demo.session, said.append)

    demo, hub, publisher = table()
    demo.play(hub, demo.table(hub), upto=6)
    assert wait_for(lambda: any("cannot reach the broker" in line for line in said), 10)
    waiting = publisher.outbox.counts()
    assert waiting["unsent"] == waiting["events"] == len(demo.store.events()) > 5
    publisher.stop()
    publisher.outbox.close()
    demo.close()  # the table restarts

    demo, hub, publisher = table()
    assert demo.resumed_at >= 0
    assert publisher.outbox.counts()["unsent"] == waiting["unsent"]
    demo.play(hub, demo.table(hub))
    try:
        broker.start()
        screen = Subscriber(broker.config("screen"), Screen(EVENT)).start()
        try:
            assert publisher.flush(20)
            gid = demo.session.game_id
            want = [e.seq for e in demo.store.events(gid)]
            assert wait_for(lambda: [g["seqs"] for g in screen.document()["games"]] == [want], 20)
            assert screen.document()["games"][0]["moves"] == [compact_row(r) for r in demo.session.history()]
        finally:
            screen.stop()
    finally:
        publisher.stop()
        publisher.outbox.close()
        demo.close()
    assert (tmp_path / "data" / outbox_name(EVENT, 5)).exists()
    assert Outbox(tmp_path / "data" / outbox_name(EVENT, 5)).counts()["unsent"] == 0


def test_a_wrong_password_is_one_line_and_the_game_plays_on(broker, tmp_path):
    record = parse_gcg(decode_gcg(resources.files("companion").joinpath("data/sample.gcg").read_bytes()))
    said: list[str] = []
    demo = Demo(record, choose_tileset(record).name, names_of(record), data_dir=tmp_path / "data", truth=True,
                sim_time=True, hands_every=0)
    publisher = publish_table(VenueConfig("127.0.0.1", broker.port, EVENT, 2, "table2", "not-the-password"),
                              demo.store, demo.session, said.append)
    try:
        hub = Hub(demo.session, now_ms=demo.clock)
        demo.play(hub, demo.table(hub))
        assert demo.session.history(), "the game went on"
        assert wait_for(lambda: any("refused us" in line for line in said), 10), said
        refusals = [line for line in said if "refused us" in line]
        assert len(refusals) == 1 and "\n" not in refusals[0]
        assert publisher.outbox.counts()["unsent"] == len(demo.store.events())
    finally:
        publisher.stop()
        publisher.outbox.close()
        demo.close()
