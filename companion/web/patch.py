"""A change of the page's document as the difference from the one before: what the event stream
sends at every change instead of the whole document (a game's 40 KB document changes by a few
hundred bytes a move).

A patch is JSON merge patch (RFC 7386) with two additions, since documents hold lists that
grow at one end (the moves) or at the other (the referee's lines, newest first) and a null
that is a value, not a removal:

- ``{"$list": [op, ...]}``: the new list is made of runs of the old one (``[i, m]``: its ``m``
  items from index ``i``), items sent (``{"+": [...]}``) and old items patched (``{"~": [i,
  patch]}``), in order: a move's tiles go in
  among the board's squares, the moves grow at the end, the referee's lines at the front;
- ``{"$delete": true}``: the key is gone; a ``null`` is the value null.

The page applies it with ``applyPatch`` (static/app.js); :func:`apply_patch` is the same here,
for the tests. Keys of the document never start with ``$``.
"""

from __future__ import annotations

import json
from difflib import SequenceMatcher
from typing import Any

DELETE = {"$delete": True}


def make_patch(old: Any, new: Any) -> Any:
    """What turns ``old`` into ``new`` (call it only when they differ)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = {k: (v if k not in old else make_patch(old[k], v)) for k, v in new.items() if k not in old or old[k] != v}
        out.update({k: DELETE for k in old if k not in new})
        return out
    if isinstance(old, list) and isinstance(new, list):
        ops = _list_ops(old, new)
        if ops is not None:
            return {"$list": ops}
    return new


def _list_ops(old: list[Any], new: list[Any]) -> list[Any] | None:
    """The new list as runs kept from the old (``[i, m]``: the old one's ``m`` items from index
    ``i``) and items sent (``{"+": [...]}``), in order; None when nothing is kept."""
    key = [json.dumps(x, sort_keys=True) for x in old], [json.dumps(x, sort_keys=True) for x in new]
    ops: list[Any] = []
    kept = False
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, key[0], key[1], autojunk=False).get_opcodes():
        if tag == "equal":
            ops.append([i1, i2 - i1])
            kept = True
        elif tag == "replace" and i2 - i1 == j2 - j1 and all(isinstance(x, dict) for x in old[i1:i2] + new[j1:j2]):
            # The same items changed in place (the players' scores and clocks): each patched.
            ops += [{"~": [i1 + k, make_patch(old[i1 + k], new[j1 + k])]} for k in range(i2 - i1)]
            kept = True
        elif j2 > j1:  # insert or replace (a delete sends nothing)
            ops.append({"+": new[j1:j2]})
    return ops if kept else None


def apply_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return patch
    if "$list" in patch:
        old = target if isinstance(target, list) else []
        out: list[Any] = []
        for op in patch["$list"]:
            if isinstance(op, list):
                out += old[op[0]:op[0] + op[1]]
            elif "~" in op:
                out.append(apply_patch(old[op["~"][0]], op["~"][1]))
            else:
                out += op["+"]
        return out
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v == DELETE:
            out.pop(k, None)
        else:
            out[k] = apply_patch(out.get(k), v)
    return out
