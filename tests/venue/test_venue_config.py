"""The [venue] keys of the configuration: a good one read, each bad one a line naming the key."""

from __future__ import annotations

import pytest

from companion.core.errors import CompanionError
from companion.table.config import parse_config

GOOD = """
[venue]
host = "192.168.1.10"
event = "club-night"
table = 7
username = "table7"
password = "s3cret"
"""


def test_a_venue_is_read():
    v = parse_config(GOOD).venue
    assert (v.host, v.port, v.event, v.table, v.username, v.password, v.ca_file, v.round) == (
        "192.168.1.10", 1883, "club-night", 7, "table7", "s3cret", "", 0)
    assert parse_config("").venue is None


@pytest.mark.parametrize("change, key", [
    ('table = 7', 'venue.table'),  # removed below: missing
    ('table = 0', 'venue.table'),
    ('table = "7"', 'venue.table'),
    ('event = "club/night"', 'venue.event'),
    ('host = ""', 'venue.host'),
    ('port = 70000', 'venue.port'),
    ('ca_file = "/no/such/ca.pem"', 'venue.ca_file'),
    ('colour = "red"', 'venue.colour'),
])
def test_a_bad_venue_is_one_line_naming_the_key(change, key):
    text = GOOD.replace("table = 7\n", "") if change == "table = 7" else GOOD.replace('table = 7', 'table = 7\n' + change)
    if change.startswith(("table =", "event =", "host =")) and change != "table = 7":
        name = change.split(" =")[0]
        text = "\n".join(line for line in GOOD.splitlines() if not line.startswith(name + " ")) + "\n" + change + "\n"
    with pytest.raises(CompanionError) as err:
        parse_config(text, "cfg.toml")
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"cfg.toml: {key}:"), message
