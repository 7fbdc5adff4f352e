"""The venue's ear: a paho-mqtt client subscribed to every table of the event, feeding the
:class:`~companion.venue.screen.Screen` (one lock: the network thread writes, the page reads).

paho's own loop reconnects after the broker went away; the subscription is made again on each
connection (a persistent session would do, but a broker restarted without its store forgets
sessions, and the retained games make up for anything missed).
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any, Callable

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.clock.now import wall_ms
from companion.table.publish.publisher import BrokerConfig
from companion.venue.screen import Screen
from companion.table.publish.topics import parse, subscription

log = logging.getLogger("companion.venue")


class Subscriber:
    def __init__(self, broker: BrokerConfig, screen: Screen, *, say: Callable[[str], None] | None = None,
                 client_id: str = "") -> None:
        self.broker = broker
        self.screen = screen
        self.say = say or log.warning
        self.lock = threading.Lock()
        self.connected = threading.Event()
        self.messages = 0
        self.connects = 0
        self.refused = ""
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id or f"companion-venue-{wall_ms():x}",
                                  protocol=mqtt.MQTTv5)
        if broker.username:
            self.client.username_pw_set(broker.username, broker.password)
        if broker.ca_file:
            self.client.tls_set(ca_certs=broker.ca_file)
        self.client.reconnect_delay_set(min_delay=1, max_delay=5)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    def start(self) -> "Subscriber":
        # connect_async: a broker not up yet is not an error; paho keeps trying.
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=self.broker.keepalive_s)
        self.client.loop_start()
        return self

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def document(self) -> dict[str, Any]:
        with self.lock:
            doc = self.screen.document()
        doc["connected"] = self.connected.is_set()
        return doc

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self.refused = str(reason)
            self.say(f"venue: the broker {self.broker.describe()} refused the screen: {reason}")
            return
        self.connects += 1
        self.connected.set()
        client.subscribe(subscription(self.screen.event), qos=1)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.connected.clear()

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        where = parse(msg.topic)
        if where is None:
            return
        n, what, gid = where
        now = wall_ms()
        try:
            body = json.loads(msg.payload) if what != "status" else None
        except ValueError:
            return  # not ours: a screen shows what it can read
        with self.lock:
            self.messages += 1
            if what == "log":
                self.screen.heard_log(n, body, now)
            elif what == "game" and gid is not None:
                self.screen.heard_game(n, gid, body, now)
            elif what == "status":
                self.screen.heard_status(n, msg.payload)
