"""The user's lexicons on disk: each list's base (house or imported), additions and deletions.

They live outside the install so that they survive a reinstall: ``$COMPANION_DATA_DIR``, else
``$XDG_DATA_HOME/companion``, else ``~/.local/share/companion``; under it, ``lexicon/<list>/``:

    state.json               {"format": 1, "imported": null or a file name,
                              "added": [words], "deleted": [words]}
    imported-<hash>.marisa   an imported base list, named after its content
    .lock                    held while a command changes the list

``state.json`` is the one commit point. An import writes its trie under a new name first and
replaces ``state.json`` after, so a crash at any moment leaves the old dictionary or the new one
whole; a file no state refers to (an import cut short, a list since replaced) is removed by the
next change. Every write goes through :func:`companion.core.atomic.write_atomic`.

Import and reset replace the whole dictionary, overlay included: the rules text's "Import
dictionary" makes all the words of the file the dictionary, and a word the user once deleted
would otherwise stay missing although the new file has it. Add and delete adjust the
dictionary in use.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import marisa_trie

from companion.core.errors import CompanionError
from companion.core.atomic import TEMP_SUFFIX, write_atomic
from companion.lexicon.house import house_trie, list_for_tileset, list_tileset
from companion.lexicon.lexicon import Lexicon
from companion.lexicon.words import MAX_LENGTH, MIN_LENGTH, WordList, normalise

FORMAT = 1
STATE_FILE = "state.json"
_IMPORTED_PREFIX = "imported-"
_TRIE_SUFFIX = ".marisa"


def data_dir() -> Path:
    """Where the companion keeps what the user made (lexicons now; more later)."""
    if explicit := os.environ.get("COMPANION_DATA_DIR"):
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg and os.path.isabs(xdg):  # the XDG spec says to ignore a relative one
        return Path(xdg) / "companion"
    return Path.home() / ".local" / "share" / "companion"


def list_dir(list_name: str) -> Path:
    return data_dir() / "lexicon" / list_name


@dataclass(frozen=True)
class UserList:
    """What the user changed about one list."""

    imported: str | None = None  # file name of the imported base list; None: the house list
    added: frozenset[str] = frozenset()
    deleted: frozenset[str] = frozenset()

    def to_json(self) -> bytes:
        doc = {
            "format": FORMAT,
            "imported": self.imported,
            "added": sorted(self.added),
            "deleted": sorted(self.deleted),
        }
        return (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


@dataclass(frozen=True)
class Change:
    """What an add or delete did: the words it changed, and those already as asked."""

    changed: tuple[str, ...]
    unchanged: tuple[str, ...]


def read_user_list(list_name: str) -> UserList:
    path = list_dir(list_name) / STATE_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return UserList()
    except OSError as exc:
        raise CompanionError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return _parse_state(json.loads(raw.decode("utf-8")))
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError, TypeError) as exc:
        raise CompanionError(
            f"{path} is damaged ({exc}); `companion lexicon reset --tileset {list_name}` "
            "starts again from the house list"
        ) from None


def _parse_state(doc: Any) -> UserList:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"not a format {FORMAT} lexicon state")
    imported = doc.get("imported")
    if imported is not None and not (
        isinstance(imported, str) and imported.startswith(_IMPORTED_PREFIX) and "/" not in imported
    ):
        raise ValueError(f"bad imported list name {imported!r}")
    lists = [doc.get("added", []), doc.get("deleted", [])]
    if not all(isinstance(ws, list) and all(isinstance(w, str) for w in ws) for ws in lists):
        raise ValueError("added and deleted must be lists of words")
    return UserList(imported, frozenset(lists[0]), frozenset(lists[1]))


def _base_trie(list_name: str, user: UserList) -> marisa_trie.Trie:
    if user.imported is None:
        return house_trie(list_name)
    path = list_dir(list_name) / user.imported
    data = path.read_bytes()  # FileNotFoundError is the caller's to judge
    try:
        return marisa_trie.Trie().frombytes(data)
    except RuntimeError:
        raise CompanionError(
            f"{path} is damaged; `companion lexicon reset --tileset {list_name}` "
            "starts again from the house list"
        ) from None


def _current(list_name: str) -> tuple[UserList, marisa_trie.Trie]:
    # Reads take no lock: state.json is replaced atomically, and the one race left, a change in
    # another process removing the imported file between our two reads, is met by reading again.
    for _ in range(2):
        user = read_user_list(list_name)
        try:
            return user, _base_trie(list_name, user)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise CompanionError(f"cannot read {list_dir(list_name)}: {exc.strerror}") from None
    raise CompanionError(
        f"{list_dir(list_name) / str(user.imported)} is missing; "
        f"`companion lexicon reset --tileset {list_name}` starts again from the house list"
    )


def load_lexicon(tileset_name: str = "en") -> Lexicon:
    """The lexicon a game with this tile set plays with: base + additions - deletions."""
    user, base = _current(list_for_tileset(tileset_name))
    return Lexicon(base, user.added, user.deleted)


@contextlib.contextmanager
def _changing(list_name: str) -> Iterator[Path]:
    """Hold the list's lock while reading, deciding and writing, so two commands lose nothing."""
    directory = list_dir(list_name)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with open(directory / ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield directory
            _remove_unused(directory)
    except OSError as exc:
        where = exc.filename or directory
        raise CompanionError(f"cannot write {where}: {exc.strerror}") from None


def _commit(directory: Path, user: UserList) -> None:
    write_atomic(directory / STATE_FILE, user.to_json())


def _remove_unused(directory: Path) -> None:
    in_use = read_user_list(directory.name).imported
    for path in directory.iterdir():
        stale_trie = path.name.startswith(_IMPORTED_PREFIX) and path.name != in_use
        # Temporary files of a write cut short; none is being written, since we hold the lock.
        if stale_trie or path.name.endswith(TEMP_SUFFIX):
            path.unlink(missing_ok=True)


def import_list(tileset_name: str, word_list: WordList) -> UserList | None:
    """Make ``word_list`` the whole dictionary of the tile set's list; returns what it replaced."""
    list_name = list_for_tileset(tileset_name)
    if word_list.problems:  # the caller reports them line by line; this is the last guard
        raise CompanionError(f"{len(word_list.problems)} bad lines; nothing was imported")
    if not word_list.words:
        raise CompanionError("the file has no words; nothing was imported")
    data = marisa_trie.Trie(sorted(word_list.words)).tobytes()
    name = f"{_IMPORTED_PREFIX}{hashlib.sha256(data).hexdigest()[:16]}{_TRIE_SUFFIX}"
    with _changing(list_name) as directory:
        before = _replaced(list_name)
        write_atomic(directory / name, data)
        _commit(directory, UserList(imported=name))
    return before


def reset(tileset_name: str) -> UserList | None:
    """Go back to the shipped house list, no additions, no deletions; returns what it replaced."""
    list_name = list_for_tileset(tileset_name)
    with _changing(list_name) as directory:
        before = _replaced(list_name)
        if before != UserList():
            _commit(directory, UserList())
    return before


def _replaced(list_name: str) -> UserList | None:
    """The state an import or reset replaces; None when damaged, which they are the cure for."""
    try:
        return read_user_list(list_name)
    except CompanionError:
        return None


def normalise_all(
    texts: Iterable[str], tileset_name: str, *, max_length: int = MAX_LENGTH
) -> list[str]:
    """Every text as a word of the tile set's list, in order; one error naming all bad ones."""
    tileset = list_tileset(list_for_tileset(tileset_name))
    words: list[str] = []
    problems: list[str] = []
    for text in texts:
        try:
            words.append(normalise(text, tileset, min_length=MIN_LENGTH, max_length=max_length))
        except CompanionError as exc:
            problems.append(str(exc))
    if problems:
        more = f"; ... and {len(problems) - 3} more" if len(problems) > 3 else ""
        raise CompanionError(f"{'; '.join(problems[:3])}{more} (nothing was changed)")
    return list(dict.fromkeys(words))  # each once, first mention first


# One step of a change: updates the additions and deletions for one word, says if it changed.
_Step = Callable[[str, marisa_trie.Trie, set[str], set[str]], bool]


def _change(tileset_name: str, texts: Iterable[str], max_length: int, step: _Step) -> Change:
    words = normalise_all(texts, tileset_name, max_length=max_length)
    list_name = list_for_tileset(tileset_name)
    with _changing(list_name) as directory:
        user, base = _current(list_name)
        added, deleted = set(user.added), set(user.deleted)
        changed = [w for w in words if step(w, base, added, deleted)]
        if changed:
            _commit(directory, UserList(user.imported, frozenset(added), frozenset(deleted)))
    done = set(changed)
    return Change(tuple(changed), tuple(w for w in words if w not in done))


def _add(word: str, base: marisa_trie.Trie, added: set[str], deleted: set[str]) -> bool:
    if word in deleted:
        deleted.discard(word)
        return True
    if word in base or word in added:
        return False
    added.add(word)
    return True


def _delete(word: str, base: marisa_trie.Trie, added: set[str], deleted: set[str]) -> bool:
    if word in added:
        added.discard(word)
        return True
    if word not in base or word in deleted:
        return False
    deleted.add(word)
    return True


def add_words(tileset_name: str, texts: Iterable[str], *, max_length: int = MAX_LENGTH) -> Change:
    """Make words valid: undo their deletion, or add them to the user's additions."""
    return _change(tileset_name, texts, max_length, _add)


def delete_words(
    tileset_name: str, texts: Iterable[str], *, max_length: int = MAX_LENGTH
) -> Change:
    """Make words invalid: drop them from the additions, or record their deletion from the base."""
    return _change(tileset_name, texts, max_length, _delete)
