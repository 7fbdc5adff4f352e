"""The stream's changes as patches: made here, applied here and (the same rules) on the page."""

from __future__ import annotations

import json

from companion.web.patch import apply_patch, make_patch
from tests.web.conftest import make_session
from companion.web.hub import Hub


def test_a_patch_turns_the_old_document_into_the_new():
    old = {"a": 1, "b": {"c": [1, 2, 3], "d": None}, "gone": 5, "v": [9, 8, 7, 6]}
    new = {"a": 1, "b": {"c": [1, 2, 3, 4], "d": None, "e": None}, "v": [0, 9, 8, 7], "x": {"y": [1]}}
    patch = make_patch(old, new)
    assert patch["b"]["c"] == {"$list": [[0, 3], {"+": [4]}]}  # appended
    assert patch["v"] == {"$list": [{"+": [0]}, [0, 3]]}  # newest first, the oldest dropped
    assert make_patch([1, 2, 3, 4], [3, 4, 5]) == {"$list": [[2, 2], {"+": [5]}]}  # dropped in front
    assert make_patch([1, 2, 4, 5], [1, 2, 3, 4, 5]) == {"$list": [[0, 2], {"+": [3]}, [2, 2]]}  # among
    players = make_patch([{"n": "A", "s": 1}, {"n": "B", "s": 0}], [{"n": "A", "s": 9}, {"n": "B", "s": 0}])
    assert players == {"$list": [{"~": [0, {"s": 9}]}, [1, 1]]}  # changed in place
    assert patch["gone"] == {"$delete": True} and patch["b"]["e"] is None
    assert apply_patch(old, patch) == new
    assert apply_patch(old, json.loads(json.dumps(patch))) == new


def test_every_change_of_a_game_patches_to_the_hubs_document(clock):
    session = make_session()
    hub = Hub(session, now_ms=clock)
    sub = hub.subscribe()
    shown = json.loads(sub.first[1])
    moves = [("8D", "HOUSE"), ("E7", "B.AT"), ("10C", "AN."), ("8D", ".....Z")]
    hub.call(lambda s, now: s.resume(now))
    for m in moves:
        hub.call(lambda s, now, m=m: s.play(now, *m))
    hub.call(lambda s, now: s.rule_challenge(now, "dictionary", 0))
    sizes, docs = [], []
    while not sub.queue.empty():
        event = sub.queue.get_nowait().decode()
        assert "event: patch" in event
        change = json.loads(event.split("data: ", 1)[1])
        assert change["base"] == shown["version"] and change["epoch"] == hub.epoch
        shown = apply_patch(shown, change["patch"])
        sizes.append(len(event))
        docs.append(len(json.dumps(shown, ensure_ascii=False, separators=(",", ":"))))
    assert shown == hub.document_json()
    assert sum(sizes) < sum(docs) / 3  # the changes are far smaller than the documents (and shrink as they grow)
