"""The venue: many tables, one broker, one screen (docs/venue.md).

Each table's companion publishes its game log over MQTT (:mod:`companion.table.publish`, with an
outbox on disk so that nothing is lost while the broker is out of reach); the venue's screen
subscribes (:mod:`companion.venue.subscriber`), folds what it hears into one document
(:mod:`companion.venue.screen`) and serves it (:mod:`companion.venue.app`);
:mod:`companion.venue.broker` sets up Mosquitto for an event.
"""
