"""A game log that cannot be read is never deleted, changed or overwritten by a start: the start
says why in one line and exits 2, every file (the log, its -wal and -shm) byte for byte as it
was; only ``--fresh-log`` moves it aside whole (kept) and begins a new game.

The logs are real: ``companion demo --headless --truth-readings --sim-time`` killed with SIGKILL
after its 12th step, so that the moves are in the WAL (SQLite checkpoints only at 1000 pages or
a clean close), then damaged as a crash, a bad card or a careless hand would.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion.sim.demos import SHARED_GAME
from companion.table.store import FILE_NAME
from companion.table.wal import read_wal

KILLED_AT = 12

# The logs are made by killing the demo after its 12th press: that needs the 29-move tournament
# record beside the checkout (the game the package ships is over before it).
pytestmark = pytest.mark.skipif(not SHARED_GAME.is_file(), reason=f"needs {SHARED_GAME} (../shared absent)")


def _demo(data: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "companion", "demo", "--headless", "--truth-readings", "--sim-time", "--trace",
            "--data-dir", str(data), *extra]


@pytest.fixture(scope="module")
def killed_log(tmp_path_factory) -> Path:
    """A game log as a SIGKILL after step 12 leaves it: the moves in the WAL."""
    data = tmp_path_factory.mktemp("killed")
    proc = subprocess.Popen(_demo(data), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    for line in proc.stdout:
        if line.startswith(f"trace step {KILLED_AT} begin"):
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait(timeout=60)
    proc.stdout.close()
    proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    wal = read_wal(data / (FILE_NAME + "-wal"))
    assert wal is not None and wal.committed > 10 and not wal.damaged
    return data


def _copy(src: Path, dst: Path) -> Path:
    dst.mkdir()
    for p in src.iterdir():
        (dst / p.name).write_bytes(p.read_bytes())
    return dst


def _files(data: Path) -> dict[str, str]:
    return {p.relative_to(data).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(data.rglob("*")) if p.is_file() and not p.name.endswith(".lock")}


def _frame_size(wal: Path) -> int:
    return 24 + int.from_bytes(wal.read_bytes()[8:12], "big")


def _empty_main(data: Path) -> None:
    (data / FILE_NAME).write_bytes(b"")


def _wal_header(data: Path) -> None:
    wal = data / (FILE_NAME + "-wal")
    b = bytearray(wal.read_bytes())
    b[24:32] = bytes(8)  # the header's checksum
    wal.write_bytes(bytes(b))


def _wal_middle(data: Path) -> None:
    wal = data / (FILE_NAME + "-wal")
    b = bytearray(wal.read_bytes())
    frames = (len(b) - 32) // _frame_size(wal)
    at = 32 + (frames // 2) * _frame_size(wal) + 24 + 100  # inside the middle frame's page
    b[at:at + 16] = b"\xff" * 16
    wal.write_bytes(bytes(b))


def _add_event(data: Path, payload: str) -> None:
    db = sqlite3.connect(data / FILE_NAME)
    game = db.execute("SELECT game FROM events ORDER BY seq DESC LIMIT 1").fetchone()[0]
    db.execute("INSERT INTO events (game, kind, payload, wall_ms, at_ms) VALUES (?, 'entry', ?, 0, 0)",
               (game, payload))
    db.commit()
    db.close()


def _broken_json(data: Path) -> None:
    _add_event(data, '{"entry": {"seq": 40, "event": {"type": "acted", "action"')


def _renamed_key(data: Path) -> None:
    db = sqlite3.connect(data / FILE_NAME)
    payload = db.execute("SELECT payload FROM events WHERE payload LIKE '%\"tiles\"%' ORDER BY seq DESC").fetchone()[0]
    db.close()
    entry = json.loads(payload)
    entry["entry"]["seq"] += 100
    _add_event(data, json.dumps(entry).replace('"tiles"', '"tyles"'))


CASES = {
    "empty-main-with-wal": (_empty_main, r"the file is empty but games.sqlite-wal holds \d+ pages of the log"),
    "wal-header": (_wal_header, r"games.sqlite-wal is damaged \(its header\): moves in it cannot be read"),
    "wal-middle": (_wal_middle, r"games.sqlite-wal is damaged \(frame \d+ of \d+\): moves in it cannot be read"),
    "broken-json": (_broken_json, r"event \d+ is not valid JSON"),
    "renamed-key": (_renamed_key, r"its events do not fold into a game \(an event lacks 'tiles'\)"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_damaged_log_is_refused_untouched_and_moved_aside_only_when_asked(case, killed_log, tmp_path):
    import re

    damage, reason = CASES[case]
    data = _copy(killed_log, tmp_path / "data")
    damage(data)
    before = _files(data)
    assert "games.sqlite-wal" in before or case in ("broken-json", "renamed-key")

    refused = subprocess.run(_demo(data), capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2
    assert refused.stdout == ""
    line = f"companion: {data / FILE_NAME}: " + reason + "; left as it is " \
        r"\(start with --fresh-log to move it aside and begin a new game log\)"
    assert re.fullmatch(line + "\n", refused.stderr), refused.stderr
    assert _files(data) == before  # nothing deleted, nothing changed, nothing added

    fresh = subprocess.run(_demo(data, "--fresh-log"), capture_output=True, text=True, timeout=120)
    assert fresh.returncode == 0, fresh.stderr
    m = re.fullmatch(f"companion: {re.escape(str(data / FILE_NAME))}: " + reason
                     + r"; moved aside whole to (\S+)/, a new game log begins\n", fresh.stderr)
    assert m, fresh.stderr
    aside = Path(m.group(1))
    assert aside.parent == data
    # The three files moved whole, byte for byte; the new game played from its start to its end.
    assert {k: v for k, v in _files(data).items() if k.startswith(aside.name + "/")} == \
        {f"{aside.name}/{k}": v for k, v in before.items()}
    assert "trace step 0 begin" in fresh.stdout and fresh.stdout.rstrip().splitlines()[-1].startswith("final ")


def test_a_killed_log_resumes_with_no_word(killed_log, tmp_path):
    data = _copy(killed_log, tmp_path / "data")
    run = subprocess.run(_demo(data), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    assert f"ready {KILLED_AT - 1}" in run.stdout or f"ready {KILLED_AT}" in run.stdout


@pytest.fixture
def small_disk(tmp_path):
    """A real full disk: a 4 MB tmpfs (mounting needs root; skipped otherwise)."""
    where = tmp_path / "disk"
    where.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)], capture_output=True).returncode:
        pytest.skip("cannot mount a small tmpfs here (needs root): the full disk is not simulated")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _fill(where: Path) -> Path:
    filler = where / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 512)
    except OSError:
        pass
    finally:
        os.close(fd)
    return filler


def test_a_full_disk_is_one_line_and_the_game_resumes_when_space_returns(killed_log, small_disk, tmp_path):
    data = small_disk / "data"
    data.mkdir()
    for p in killed_log.iterdir():
        (data / p.name).write_bytes(p.read_bytes())
    clean = subprocess.run(_demo(_copy(killed_log, tmp_path / "clean"), "--summary", str(tmp_path / "clean.json")),
                           capture_output=True, text=True, timeout=120)
    assert clean.returncode == 0, clean.stderr
    filler = _fill(small_disk)
    full = subprocess.run(_demo(data), capture_output=True, text=True, timeout=120)
    assert full.returncode == 2
    assert full.stderr == f"companion: not saved: {data / FILE_NAME}: cannot write the game log " \
        "(database or disk is full)\n", full.stderr
    filler.unlink()
    resumed = subprocess.run(_demo(data, "--summary", str(tmp_path / "resumed.json")), capture_output=True,
                             text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    got, want = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("resumed", "clean"))
    assert got == want
