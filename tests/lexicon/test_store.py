"""The user's lexicons on disk: where they live, how they change, and that a crash loses nothing."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core.tiles import get_tileset
from companion.core.errors import CompanionError
from companion.core import atomic
from companion.lexicon import store
from companion.lexicon.words import MAX_LENGTH, format_word_list, parse_word_list

EN = get_tileset("en")
DE = get_tileset("de")


def word_list(*words: str, tileset=EN):
    return parse_word_list("".join(f"{w}\n" for w in words).encode(), tileset)


def files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.name != ".lock"}


def test_data_dir_prefers_companion_then_xdg_then_home(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert store.data_dir() == tmp_path / "mine"
    monkeypatch.delenv("COMPANION_DATA_DIR")
    assert store.data_dir() == tmp_path / "xdg" / "companion"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/path")  # the XDG spec says: ignore it
    assert store.data_dir() == tmp_path / "home" / ".local" / "share" / "companion"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert store.data_dir() == tmp_path / "home" / ".local" / "share" / "companion"


def test_loading_writes_nothing(data_dir):
    assert "QI" in store.load_lexicon("en")
    assert not data_dir.exists()


def test_add_undoes_a_deletion_and_delete_undoes_an_addition():
    assert store.add_words("en", ["xyzzy", "qi"]) == store.Change(("XYZZY",), ("QI",))
    assert store.delete_words("en", ["za", "xyzzy", "zzzz"]) == store.Change(
        ("ZA", "XYZZY"), ("ZZZZ",)
    )
    lexicon = store.load_lexicon("en")
    assert "XYZZY" not in lexicon and "ZA" not in lexicon
    assert lexicon.added == set() and lexicon.deleted == {"ZA"}
    assert store.add_words("en", ["za"]).changed == ("ZA",)
    assert store.read_user_list("en") == store.UserList()


def test_overlays_are_per_list_and_super3_shares_english():
    store.add_words("super3", ["xyzzy"])
    assert "XYZZY" in store.load_lexicon("en")
    assert "XYZZY" not in store.load_lexicon("de")
    store.add_words("de", ["straße"])  # already there, as STRASSE
    assert store.read_user_list("de") == store.UserList()


def test_a_bad_word_changes_nothing():
    store.add_words("en", ["xyzzy"])
    before = store.read_user_list("en")
    for bad in (["plugh", "two words"], ["äpfel"], ["a" * (MAX_LENGTH + 1)], ["q"]):
        with pytest.raises(CompanionError, match="nothing was changed"):
            store.add_words("en", bad)
        with pytest.raises(CompanionError, match="nothing was changed"):
            store.delete_words("en", bad)
    assert store.read_user_list("en") == before


def test_import_replaces_the_whole_dictionary_and_reset_brings_the_house_list_back():
    store.add_words("en", ["xyzzy"])
    store.delete_words("en", ["za"])
    before = store.import_list("en", word_list("za", "qi", "plugh"))
    assert before == store.UserList(None, frozenset({"XYZZY"}), frozenset({"ZA"}))
    assert list(store.load_lexicon("en")) == ["PLUGH", "QI", "ZA"]  # the deleted ZA is back
    assert store.reset("en").imported is not None
    lexicon = store.load_lexicon("en")
    assert "SYZYGY" in lexicon and "PLUGH" not in lexicon and "XYZZY" not in lexicon


def test_an_import_keeps_one_trie_file_and_reuses_it_for_the_same_words(data_dir):
    store.import_list("en", word_list("qi", "za"))
    store.import_list("en", word_list("aa", "ab"))
    store.import_list("en", word_list("za", "qi"))
    names = sorted(files(data_dir / "lexicon" / "en"))
    assert len(names) == 2 and names[1] == "state.json"
    assert names[0] == store.read_user_list("en").imported


def test_an_import_with_bad_lines_or_no_words_is_refused():
    with pytest.raises(CompanionError, match="nothing was imported"):
        store.import_list("en", word_list("qi", "two words"))
    with pytest.raises(CompanionError, match="no words"):
        store.import_list("en", word_list())
    assert store.read_user_list("en") == store.UserList()


@settings(max_examples=25, deadline=None)
@given(
    st.sets(
        st.text(alphabet=sorted(DE.alphabet), min_size=2, max_size=MAX_LENGTH),
        min_size=1,
        max_size=40,
    )
)
def test_import_then_export_gives_the_file_back(words):
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["COMPANION_DATA_DIR"] = tmp  # the fixture's monkeypatch restores it
        data = format_word_list(words)
        store.import_list("de", parse_word_list(data, DE))
        assert format_word_list(store.load_lexicon("de")) == data


def test_a_write_cut_short_leaves_the_old_dictionary(monkeypatch, data_dir):
    store.add_words("en", ["xyzzy"])
    directory = data_dir / "lexicon" / "en"
    before = files(directory)

    # The import's trie reaches its name, then the power fails before state.json is replaced.
    real_replace = os.replace
    calls = []

    def replace_then_fail(src, dst):
        calls.append(dst)
        if len(calls) > 1:
            raise OSError(5, "Input/output error")
        real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", replace_then_fail)
    with pytest.raises(CompanionError, match="cannot write"):
        store.import_list("en", word_list("qi", "za"))
    monkeypatch.setattr(atomic.os, "replace", real_replace)

    assert str(calls[-1]).endswith("state.json")
    assert files(directory).keys() - before.keys() != set()  # the orphaned trie
    assert {k: v for k, v in files(directory).items() if k in before} == before
    lexicon = store.load_lexicon("en")
    assert "XYZZY" in lexicon and "SYZYGY" in lexicon
    # The next change tidies what the cut-short one left.
    store.add_words("en", ["plugh"])
    assert sorted(files(directory)) == ["state.json"]


def test_a_temporary_file_from_a_crash_is_ignored_then_removed(data_dir):
    store.add_words("en", ["xyzzy"])
    directory = data_dir / "lexicon" / "en"
    (directory / ".state.json.abc123.tmp").write_bytes(b'{"format": 1, "added": ["PLUGH"')
    assert "XYZZY" in store.load_lexicon("en")
    store.add_words("en", ["plugh"])
    assert sorted(files(directory)) == ["state.json"]


def test_a_damaged_state_is_one_line_that_says_how_to_recover(data_dir):
    store.add_words("en", ["xyzzy"])
    (data_dir / "lexicon" / "en" / "state.json").write_bytes(b'{"format": 1, "added": ["XY')
    with pytest.raises(CompanionError, match="damaged.*reset") as exc:
        store.load_lexicon("en")
    assert "\n" not in str(exc.value)
    assert store.reset("en") is None
    assert "XYZZY" not in store.load_lexicon("en")


def test_a_missing_imported_list_is_a_user_error(data_dir):
    store.import_list("en", word_list("qi", "za"))
    (data_dir / "lexicon" / "en" / store.read_user_list("en").imported).unlink()
    with pytest.raises(CompanionError, match="missing"):
        store.load_lexicon("en")


def test_a_change_waits_for_another_process_holding_the_list(data_dir):
    store.add_words("en", ["xyzzy"])  # makes the directory and its lock file
    code = "from companion.lexicon.store import add_words; add_words('en', ['plugh'])"
    with open(data_dir / "lexicon" / "en" / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        other = subprocess.Popen([sys.executable, "-c", code])
        time.sleep(0.5)
        assert other.poll() is None  # blocked, not overwriting our change
        assert store.read_user_list("en").added == {"XYZZY"}
        fcntl.flock(lock, fcntl.LOCK_UN)
    assert other.wait(timeout=30) == 0
    assert store.read_user_list("en").added == {"XYZZY", "PLUGH"}
