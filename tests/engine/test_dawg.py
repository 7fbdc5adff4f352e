from __future__ import annotations

import pytest

from companion.core.tiles import get_tileset
from companion.engine import dawg as dawg_module
from companion.engine.dawg import build, cache_path, dawg_for, from_bytes, lexicon_key, to_bytes
from companion.core.errors import CompanionError
from companion.lexicon import Lexicon

ALPHABET = get_tileset("en").alphabetical()
WORDS = ["CAT", "CATS", "CAR", "CARS", "DOG", "DOGS", "AT", "QI", "CATCH"]


def test_the_graph_holds_exactly_the_words_and_shares_suffixes():
    d = build(WORDS, ALPHABET)
    assert sorted(d) == sorted(WORDS)
    assert "CA" not in d and "DOGSS" not in d and "cat" not in d
    trie_nodes = len({w[:i] for w in WORDS for i in range(len(w) + 1)})
    assert d.nodes < trie_nodes


def test_bytes_round_trip_and_damage():
    d = build(WORDS, ALPHABET)
    again = from_bytes(to_bytes(d))
    assert (again.first, again.final, again.mask, again.letter, again.child) == (d.first, d.final, d.mask, d.letter, d.child)
    with pytest.raises(CompanionError):
        from_bytes(to_bytes(d)[:-3])
    with pytest.raises(CompanionError):
        from_bytes(b"nonsense")


def test_cached_on_disk_by_content(data_dir, monkeypatch):
    lex = Lexicon.from_words(WORDS)
    d = dawg_for(lex, ALPHABET, "test")
    path = cache_path("test", lexicon_key(lex))
    assert path.exists() and path.is_relative_to(data_dir)
    monkeypatch.setattr(dawg_module, "_MEMO", {})
    real_build = dawg_module.build
    monkeypatch.setattr(dawg_module, "build", lambda *a: pytest.fail("rebuilt despite the cache"))
    assert sorted(dawg_for(lex, ALPHABET, "test")) == sorted(d)
    # A user's addition changes the key: a new graph, and the old file goes.
    monkeypatch.setattr(dawg_module, "build", real_build)
    changed = Lexicon(lex.base, added=["DOGE"])
    assert lexicon_key(changed) != lexicon_key(lex)
    assert "DOGE" in dawg_for(changed, ALPHABET, "test")
    assert not path.exists()
