"""A table's publisher: its game log to the venue's broker, nothing lost while the broker is
out of reach.

The game thread calls :meth:`TablePublisher.heard` after each event it logs (the store's
``listeners``, see :class:`companion.table.session.LoggedGame`): the event and the game's new
state go into the outbox on disk (:mod:`companion.table.publish.outbox`), and that is all the game ever
waits for. The publisher's own thread keeps a connection to the broker (paho-mqtt, MQTT 5),
sends the outbox's events oldest first with QoS 1, marks each sent once the broker acknowledged
it, then each game's latest state (retained). A broker that is down, restarted or unreachable
only delays: the thread reconnects with a growing pause and takes up where the outbox says.
A message may reach the broker twice (acknowledged, but the acknowledgement lost with the
connection): the screen drops a ``seq`` it has.

Topics: :mod:`companion.table.publish.topics`; the screen: :mod:`companion.venue`.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.table.store import GameStore, StoredEvent
from companion.table.publish.outbox import Outbox
from companion.table.publish.snapshot import venue_state
from companion.table.publish.topics import check_event, check_table, game_topic, log_topic, status_topic

log = logging.getLogger("companion.venue")

WINDOW = 50  # messages in flight before waiting for their acknowledgements
ACK_S = 5.0  # an acknowledgement later than this: the connection is taken for lost


@dataclass(frozen=True)
class BrokerConfig:
    """Where the broker is and who we are to it. ``ca_file`` set: TLS, the broker's certificate
    checked against it."""

    host: str = "127.0.0.1"
    port: int = 1883
    username: str = ""
    password: str = ""
    ca_file: str = ""
    keepalive_s: int = 10

    def describe(self) -> str:
        return f"{'mqtts' if self.ca_file else 'mqtt'}://{self.username + '@' if self.username else ''}{self.host}:{self.port}"


def _payload(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class TablePublisher:
    """Table ``table`` of ``event`` publishing through ``broker``; the outbox holds what is
    not acknowledged yet. ``round_no``: the round the organiser set (None: the game's place
    among this table's games)."""

    def __init__(self, broker: BrokerConfig, event: str, table: int, outbox: Outbox, *,
                 round_no: int | None = None, say: Callable[[str], None] | None = None,
                 backoff_s: tuple[float, float] = (0.2, 5.0)) -> None:
        self.broker = broker
        self.event = check_event(event)
        self.table = check_table(table)
        self.outbox = outbox
        self.round_no = round_no
        self.say = say or log.warning
        self.backoff_s = backoff_s
        self._last = outbox.last_seq()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._connected = threading.Event()
        self._acks: dict[int, int] = {}  # mid -> MQTT reason code
        self._acked = threading.Condition()
        self.connects = 0  # connections made, since the start
        self.refusals = 0  # messages the broker refused (not authorized)
        self._complained = ""
        self._refusal = ""  # why the broker refused the last connection (a wrong password)

    # -- the game thread --

    def attach(self, store: GameStore, session: Any = None) -> "TablePublisher":
        """Follow ``store``; the current game's events the outbox lacks (a table joining the
        venue mid-game, an outbox that lost its last writes in a power cut) are added first."""
        if session is not None:
            for e in store.events(session.game_id):
                if e.seq > self._last:
                    self.heard(session, e)
        store.listeners.append(self.heard)
        return self

    def heard(self, session: Any, event: StoredEvent) -> None:
        """One event the table logged. Never raises: the game goes on whatever the venue does."""
        try:
            if event.seq <= self._last:
                return
            body = {"table": self.table, "seq": event.seq, "prev": self._last, "game": event.game,
                    "kind": event.kind, "payload": event.payload, "at_ms": event.at_ms, "wall_ms": event.wall_ms}
            self.outbox.add(event.seq, event.game, body)
            self._last = event.seq
            state = venue_state(session, event.at_ms)
            state.update(table=self.table, event=self.event, seq=event.seq,
                         round=self.round_no or self.outbox.ordinal(event.game), wall_ms=event.wall_ms)
            self.outbox.set_state(event.game, event.seq, state)
            self._wake.set()
        except Exception as exc:  # noqa: BLE001 - the venue never stops a game
            self._complain(f"venue: table {self.table}: not queued for the venue: {exc}")

    # -- the publisher's thread --

    def start(self) -> "TablePublisher":
        self._thread = threading.Thread(target=self._run, name=f"venue-table-{self.table}", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def idle(self) -> bool:
        """Everything in the outbox acknowledged by the broker."""
        return self.outbox.counts()["unsent"] == 0 and not self.outbox.states()

    def flush(self, timeout: float = 10.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.idle():
                return True
            self._wake.set()
            time.sleep(0.02)
        return self.idle()

    def _complain(self, line: str) -> None:
        if line != self._complained:  # one line per trouble, not one per retry
            self._complained = line
            self.say(line)

    def _client(self) -> mqtt.Client:
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"companion-{self.event}-table{self.table}",
                             protocol=mqtt.MQTTv5)
        if self.broker.username:
            client.username_pw_set(self.broker.username, self.broker.password)
        if self.broker.ca_file:
            client.tls_set(ca_certs=self.broker.ca_file)
        client.will_set(status_topic(self.event, self.table), b"offline", qos=1, retain=True)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        return client

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self._refusal = f"it refused us: {reason}"
            return
        self._refusal = ""
        self._connected.set()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._connected.clear()
        with self._acked:
            self._acked.notify_all()

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        with self._acked:
            self._acks[mid] = reason.value if hasattr(reason, "value") else int(reason)
            self._acked.notify_all()

    def _run(self) -> None:
        pause = self.backoff_s[0]
        while not self._stop.is_set():
            client = self._client()
            try:
                client.connect(self.broker.host, self.broker.port, keepalive=self.broker.keepalive_s)
                client.loop_start()
                if not self._connected.wait(5.0):
                    raise ConnectionError(self._refusal or "no answer from the broker")
                self.connects += 1
                self._complained = ""
                pause = self.backoff_s[0]
                self._send(client, status_topic(self.event, self.table), b"online", retain=True)
                # A restarted broker may have lost what it held: the games' states go again.
                resend_states = True
                while not self._stop.is_set() and self._connected.is_set():
                    self._pump(client, resend_states)
                    resend_states = False
                    self._wake.wait(0.5)
                    self._wake.clear()
            except (OSError, ConnectionError) as exc:
                self._complain(f"venue: table {self.table}: cannot reach the broker {self.broker.describe()} "
                               f"({exc}); the outbox keeps every event")
            finally:
                self._connected.clear()
                try:
                    if self._stop.is_set():
                        self._send(client, status_topic(self.event, self.table), b"offline", retain=True)
                    client.disconnect()
                except (OSError, ConnectionError):
                    pass
                client.loop_stop()
            if not self._stop.is_set():
                self._stop.wait(pause)
                pause = min(self.backoff_s[1], pause * 2)

    def _send(self, client: mqtt.Client, topic: str, payload: bytes, retain: bool = False) -> bool:
        return self._await(client, [client.publish(topic, payload, qos=1, retain=retain)])[0]

    def _await(self, client: mqtt.Client, infos: list[Any]) -> list[bool]:
        """Whether each message was acknowledged (and accepted), in order; stops at the first
        that was not (the ones after it go again)."""
        out: list[bool] = []
        end = time.monotonic() + ACK_S
        for info in infos:
            if info.rc != mqtt.MQTT_ERR_SUCCESS:
                break
            with self._acked:
                while info.mid not in self._acks and self._connected.is_set() and time.monotonic() < end:
                    self._acked.wait(0.05)
                code = self._acks.pop(info.mid, None)
            if code is None:
                raise ConnectionError("no acknowledgement from the broker")
            if code >= 0x80:
                self.refusals += 1
                self._complain(f"venue: table {self.table}: the broker refused a message (reason {code:#x}): "
                               f"may this account ({self.broker.username or 'anonymous'}) write table {self.table}'s topics?")
                break
            out.append(True)
        return out + [False] * (len(infos) - len(out))

    def _pump(self, client: mqtt.Client, resend_states: bool) -> None:
        while not self._stop.is_set():
            batch = self.outbox.unsent(WINDOW)
            if not batch:
                break
            topic = log_topic(self.event, self.table)
            infos = [client.publish(topic, _payload(body), qos=1) for _, body in batch]
            done = self._await(client, infos)
            sent = [seq for (seq, _), ok in zip(batch, done) if ok]
            self.outbox.mark_sent(sent)
            if len(sent) < len(batch):
                raise ConnectionError("the broker did not take every message")
        for game, seq, state in self.outbox.states(unsent_only=not resend_states):
            state = {**state, "log": [e for e in self.outbox.game_log(game) if e["seq"] <= seq]}
            if not self._send(client, game_topic(self.event, self.table, game), _payload(state), retain=True):
                raise ConnectionError("the broker did not take the game's state")
            self.outbox.mark_state_sent(game, seq)


def publish_table(venue: Any, store: GameStore, session: Any, say: Callable[[str], None]) -> TablePublisher:
    """``companion run``'s publisher from the configuration's [venue] (a
    :class:`companion.table.config.VenueConfig`), its outbox beside the game log, started."""
    from companion.table.publish.outbox import outbox_name

    broker = BrokerConfig(venue.host, venue.port, venue.username, venue.password, venue.ca_file)
    # One outbox per event and table: a table moved to another event or number never sends
    # the games it played before under the new topics.
    outbox = Outbox(store.path.parent / outbox_name(venue.event, venue.table))
    publisher = TablePublisher(broker, venue.event, venue.table, outbox, round_no=venue.round or None, say=say)
    say(f"venue: table {venue.table} of {venue.event!r} publishing to {broker.describe()} "
        f"({outbox.counts()['unsent']} events waiting in {outbox.path})")
    return publisher.attach(store, session).start()
