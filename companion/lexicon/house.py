"""The house lists shipped with the companion, and which tile set plays with which list.

A list is named after the tile set whose alphabet it is spelled in (``en``, ``de``); the files
are ``data/<list>.marisa``, with ``data/<list>.copyright.txt`` beside each and
``data/manifest.json`` saying where each came from (see :mod:`companion.lexicon.sources`).
"""

from __future__ import annotations

import json
from importlib import resources
from types import MappingProxyType
from typing import Any, Mapping

import marisa_trie

from companion.core.tiles import TileSet, get_tileset
from companion.core.errors import CompanionError

# Scrabble III is played in English with a bigger bag: same alphabet, same words.
LIST_FOR_TILESET: Mapping[str, str] = MappingProxyType({"en": "en", "super3": "en", "de": "de"})


def list_for_tileset(tileset_name: str) -> str:
    """The name of the word list a game with this tile set plays with."""
    get_tileset(tileset_name)  # an unknown name gets the tile sets' own message
    try:
        return LIST_FOR_TILESET[tileset_name]
    except KeyError:
        raise CompanionError(f"tile set {tileset_name!r} has no word list") from None


def list_tileset(list_name: str) -> TileSet:
    """The tile set whose alphabet a list's words are checked against."""
    return get_tileset(list_name)


def _data_bytes(file_name: str) -> bytes:
    try:
        return resources.files(__package__).joinpath("data", file_name).read_bytes()
    except OSError as exc:
        raise CompanionError(
            f"the install lacks lexicon/data/{file_name} ({exc.strerror}); reinstall the companion"
        ) from None


def house_trie(list_name: str) -> marisa_trie.Trie:
    """The shipped list, read whole: it is under a megabyte, and then no file stays open."""
    return marisa_trie.Trie().frombytes(_data_bytes(f"{list_name}.marisa"))


def manifest() -> Mapping[str, Any]:
    """Where each shipped list came from, how it was filtered, how many words it has."""
    return json.loads(_data_bytes("manifest.json"))
