"""The lexicon as a minimal DAWG in flat integer arrays, built once and cached on disk.

A DAWG (directed acyclic word graph) is the letter trie of the word list with equal sub-trees
merged: English (245,510 words) becomes ~110k nodes and ~260k edges, German (300,219) about as
many again. It is built from the sorted words with Daciuk's incremental algorithm (one pass,
only the path of the last word unminimised) and stored as four flat arrays:

    first[n] .. first[n + 1]   the edges leaving node n, in letter order
    final[n]                   1 when the path to node n spells a word
    mask[n]                    bitmask of the letters on n's edges
    letter[e], child[e]        each edge's letter (an index into the alphabet) and target

Node 0 is the root. Letters are small ints (their index in the tile set's alphabetical order),
so a set of letters is an int bitmask: the move generator's cross-checks and the rack are
masks too.

The cache lives beside the user's word lists, ``<data dir>/engine/<list>-<key>.dawg``, keyed by
a hash of the lexicon's content (base list, additions, deletions): ``lexicon add`` or ``import``
changes the key, so a changed list is never played with a stale graph. The file is a JSON
header line and the arrays as little-endian int32, written atomically; loading is reading four
arrays (~20 ms for English on a PC). In memory the arrays are Python lists (a list subscript is
several times faster than a numpy one in the generator's inner loop): about 10 MB for English.
"""

from __future__ import annotations

import hashlib
import json
import sys
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from companion.core.atomic import write_atomic
from companion.core.errors import CompanionError

FORMAT = 1
MAGIC = b"companion-dawg"


@dataclass(frozen=True, eq=False)
class Dawg:
    alphabet: tuple[str, ...]  # letter index -> letter
    first: list[int]  # len nodes + 1
    final: list[int]
    mask: list[int]
    letter: list[int]
    child: list[int]
    words: int
    key: str = ""

    @property
    def nodes(self) -> int:
        return len(self.final)

    @property
    def edges(self) -> int:
        return len(self.letter)

    def index(self) -> dict[str, int]:
        return {ch: i for i, ch in enumerate(self.alphabet)}

    def walk(self, node: int, letters: Iterable[int]) -> int:
        """The node reached from ``node`` along ``letters``; -1 when the path leaves the graph."""
        first, mask, child = self.first, self.mask, self.child
        for lt in letters:
            m = mask[node]
            if not (m >> lt) & 1:
                return -1
            node = child[first[node] + (m & ((1 << lt) - 1)).bit_count()]
        return node

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        index = self.index()
        try:
            node = self.walk(0, [index[ch] for ch in word])
        except KeyError:
            return False
        return node >= 0 and bool(self.final[node])

    def __iter__(self):
        """Every word, in letter order (for tests and checks; slow)."""
        stack = [(0, "")]
        out = []
        while stack:
            node, prefix = stack.pop()
            if self.final[node]:
                out.append(prefix)
            for e in range(self.first[node + 1] - 1, self.first[node] - 1, -1):
                stack.append((self.child[e], prefix + self.alphabet[self.letter[e]]))
        return iter(out)

    def memory_bytes(self) -> int:
        """What the arrays take as Python lists (list slots and the int objects above 256)."""
        total = 0
        for arr in (self.first, self.final, self.mask, self.letter, self.child):
            total += sys.getsizeof(arr) + sum(28 for v in arr if v > 256 or v < -5)
        return total


def build(words: Iterable[str], alphabet: Sequence[str]) -> Dawg:
    """The minimal DAWG of ``words`` (any order; letters outside ``alphabet`` are an error)."""
    alphabet = tuple(alphabet)
    if len(alphabet) > 62:
        raise CompanionError("an alphabet of more than 62 letters does not fit a bitmask")
    # Letter i becomes chr(i + 1): sorting those strings sorts by letter index.
    table = {ord(ch): i + 1 for i, ch in enumerate(alphabet)}
    coded = set()
    for w in words:
        c = w.translate(table)
        if any(ord(ch) > len(alphabet) for ch in c) or not c:
            raise CompanionError(f"{w!r} has letters outside the alphabet {''.join(alphabet)}")
        coded.add(c)
    ordered = sorted(coded)

    # A node is [final, {letter: node}]; the register maps a node's signature to the one node
    # kept for it. Signatures use id() of children, which the register keeps alive.
    root: list = [False, {}]
    register: dict = {}
    path: list = [(None, None, root)]  # (parent, letter, node) along the last word

    def minimise(keep: int) -> None:
        while len(path) > keep:
            parent, lt, node = path.pop()
            kids = node[1]
            sig = (node[0], tuple((k, id(v)) for k, v in kids.items()))
            same = register.get(sig)
            if same is None:
                register[sig] = node
            else:
                parent[1][lt] = same

    prev = ""
    for w in ordered:
        common = 0
        limit = min(len(w), len(prev))
        while common < limit and w[common] == prev[common]:
            common += 1
        minimise(common + 1)
        node = path[-1][2]
        for ch in w[common:]:
            lt = ord(ch) - 1
            new: list = [False, {}]
            node[1][lt] = new
            path.append((node, lt, new))
            node = new
        node[0] = True
        prev = w
    minimise(1)

    # Number the nodes breadth first from the root and lay the edges out flat.
    ids = {id(root): 0}
    order = [root]
    i = 0
    while i < len(order):
        for kid in order[i][1].values():
            if id(kid) not in ids:
                ids[id(kid)] = len(order)
                order.append(kid)
        i += 1
    first, final, mask, letter, child = [], [], [], [], []
    for node in order:
        first.append(len(letter))
        final.append(1 if node[0] else 0)
        m = 0
        for lt, kid in node[1].items():
            m |= 1 << lt
            letter.append(lt)
            child.append(ids[id(kid)])
        mask.append(m)
    first.append(len(letter))
    return Dawg(alphabet, first, final, mask, letter, child, len(ordered))


# --- the file --------------------------------------------------------------------------------


def to_bytes(dawg: Dawg) -> bytes:
    header = {
        "format": FORMAT,
        "alphabet": "".join(dawg.alphabet),
        "nodes": dawg.nodes,
        "edges": dawg.edges,
        "words": dawg.words,
        "key": dawg.key,
    }
    parts = [MAGIC + b" " + json.dumps(header, ensure_ascii=False).encode("utf-8") + b"\n"]
    for arr in (dawg.first, dawg.final, dawg.mask, dawg.letter, dawg.child):
        a = array("i", arr)
        if sys.byteorder != "little":  # pragma: no cover - the Pi and PCs are little-endian
            a.byteswap()
        parts.append(a.tobytes())
    return b"".join(parts)


def from_bytes(data: bytes) -> Dawg:
    try:
        end = data.index(b"\n")
        if not data.startswith(MAGIC + b" "):
            raise ValueError("not a DAWG file")
        header = json.loads(data[len(MAGIC) + 1 : end].decode("utf-8"))
        if header.get("format") != FORMAT:
            raise ValueError("another format")
        n, e = int(header["nodes"]), int(header["edges"])
        sizes = (n + 1, n, n, e, e)
        arrays = []
        at = end + 1
        for size in sizes:
            a = array("i")
            a.frombytes(data[at : at + 4 * size])
            if len(a) != size:
                raise ValueError("truncated")
            if sys.byteorder != "little":  # pragma: no cover
                a.byteswap()
            arrays.append(a.tolist())
            at += 4 * size
        if at != len(data):
            raise ValueError("trailing bytes")
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise CompanionError(f"damaged move-generator cache ({exc})") from None
    return Dawg(tuple(header["alphabet"]), *arrays, words=int(header["words"]), key=header["key"])


# --- the cache -------------------------------------------------------------------------------

_MEMO: dict[str, Dawg] = {}


def lexicon_key(lexicon) -> str:
    """A hash of what the lexicon holds: its base trie's bytes, additions and deletions."""
    h = hashlib.sha256(f"dawg-{FORMAT}\n".encode())
    h.update(lexicon.base.tobytes())
    h.update("\n+".join(sorted(lexicon.added)).encode("utf-8"))
    h.update(b"\n-")
    h.update("\n-".join(sorted(lexicon.deleted)).encode("utf-8"))
    return h.hexdigest()[:20]


def cache_path(list_name: str, key: str) -> Path:
    from companion.lexicon.store import data_dir

    return data_dir() / "engine" / f"{list_name}-{key}.dawg"


def dawg_for(
    lexicon, alphabet: Sequence[str], list_name: str = "words", *, words: Iterable[str] | None = None,
    variant: str = "",
) -> Dawg:
    """The DAWG of ``lexicon``: from memory, else from the disk cache, else built and cached.

    A game that plays with a selection of the lexicon (Scrabble III: words of three letters or
    more, and its own two-letter list) passes the ``words`` and a ``variant`` string that
    says what they are; the key is the lexicon's and the variant's.

    Cache files of the same list with another key (an older version of the list) are removed.
    A cache that cannot be written (read-only data dir) is not an error: the graph is built
    again next time.
    """
    key = lexicon_key(lexicon)
    if variant:
        key = hashlib.sha256(f"{key}\n{variant}".encode("utf-8")).hexdigest()[:20]
    memo_key = f"{list_name}:{key}:{''.join(alphabet)}"
    if memo_key in _MEMO:
        return _MEMO[memo_key]
    path = cache_path(list_name, key)
    dawg = None
    try:
        dawg = from_bytes(path.read_bytes())
        if dawg.key != key or dawg.alphabet != tuple(alphabet):
            dawg = None
    except (OSError, CompanionError):
        dawg = None
    if dawg is None:
        built = build(lexicon if words is None else words, alphabet)
        dawg = Dawg(built.alphabet, built.first, built.final, built.mask, built.letter, built.child, built.words, key)
        try:
            write_atomic(path, to_bytes(dawg))
            for old in path.parent.glob(f"{list_name}-*.dawg"):
                if old != path:
                    old.unlink(missing_ok=True)
        except OSError:
            pass
    _MEMO[memo_key] = dawg
    return dawg
