"""The table's last step: its game log published to a venue's MQTT broker (docs/venue.md).

:mod:`.topics` the topic tree, :mod:`.snapshot` the game as the venue sees it, :mod:`.outbox`
what waits on disk for the broker, :mod:`.publisher` the thread that sends it. The venue's side
(the screen that subscribes) is :mod:`companion.venue`.
"""
