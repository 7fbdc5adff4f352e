"""Every input bounded before it is decoded, every failure one line and exit 2: image pixels read
from the header (a decompression bomb), file sizes, the lengths and control characters of the
lines a message echoes, numbers that are not finite, sizes of zero, names with a NUL."""

from __future__ import annotations

import resource
import subprocess
import sys
import time
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.core.errors import CONFIG_EXIT

from companion.core.errors import CompanionError
from companion.core.imagesize import MAX_IMAGE_PIXELS, image_size

BOMB_SIDE = 30000


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=120,
                          input=None if stdin is None else stdin.decode())


def one_line_error(proc: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The one line of a refusal; ``code`` 78 (CONFIG_EXIT) for a bad configuration file."""
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return lines[0]


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")


@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> Path:
    """A real PNG of 30000 x 30000 black RGB pixels (2.7 GB decoded), a few MB on disk."""
    row = bytes(1 + 3 * BOMB_SIDE)  # filter byte 0, then black
    z = zlib.compressobj(9)
    body = b"".join(z.compress(row) for _ in range(BOMB_SIDE)) + z.flush()
    ihdr = BOMB_SIDE.to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
    path = tmp_path_factory.mktemp("bomb") / "bomb.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IDAT", body)
                     + _png_chunk(b"IEND", b""))
    assert path.stat().st_size < 4_000_000
    return path


def _peak_mb(*args: str) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """``companion ARGS`` in a child of its own: what it did, its peak memory (MB), its time (s)."""
    code = ("import resource, subprocess, sys, time; t = time.monotonic(); "
            "p = subprocess.run([sys.executable, '-m', 'companion', *sys.argv[1:]], capture_output=True, text=True); "
            "sys.stdout.write(p.stdout); sys.stderr.write(p.stderr); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, time.monotonic() - t, p.returncode)")
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)
    *out, last = proc.stdout.splitlines()
    peak, seconds, rc = last.split()
    return subprocess.CompletedProcess(args, int(rc), "\n".join(out), proc.stderr), float(peak), float(seconds)


def test_the_header_gives_the_size_of_every_kind_we_decode():
    img = np.zeros((123, 457, 3), np.uint8)
    for ext in (".png", ".jpg", ".bmp", ".tiff", ".webp"):
        assert image_size(cv2.imencode(ext, img)[1].tobytes()) == (457, 123), ext


def test_a_decompression_bomb_is_refused_before_it_is_decoded(bomb):
    from companion.vision.reader import decode_image, read_image_bytes

    data = read_image_bytes(bomb)
    t = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(CompanionError, match=f"{BOMB_SIDE} x {BOMB_SIDE} pixels is too large"):
        decode_image(data, str(bomb))
    assert time.monotonic() - t < 1.0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50 * 1024  # KB: nothing decoded
    assert BOMB_SIDE * BOMB_SIDE > MAX_IMAGE_PIXELS


def test_read_refuses_the_bomb_in_one_line_under_200_mb(bomb):
    proc, peak_mb, _ = _peak_mb("read", str(bomb))
    line = one_line_error(proc)
    assert line == (f"companion: {bomb}: {BOMB_SIDE} x {BOMB_SIDE} pixels is too large for a camera image "
                    f"(at most {MAX_IMAGE_PIXELS // 1_000_000} megapixels)")
    assert peak_mb < 200, peak_mb


def test_replay_photos_and_a_folder_camera_refuse_the_bomb(bomb, tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "01.png").write_bytes(bomb.read_bytes())
    proc, peak_mb, _ = _peak_mb("replay-photos", str(folder))
    assert f"{folder / '01.png'}: {BOMB_SIDE} x {BOMB_SIDE} pixels is too large" in one_line_error(proc)
    assert peak_mb < 200, peak_mb
    from companion.pi.sources import FolderSource

    with pytest.raises(CompanionError, match="pixels is too large"):
        FolderSource(folder).read()


def test_replay_photos_names_the_photo_without_a_board(tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    cv2.imwrite(str(folder / "07.png"), np.full((600, 800, 3), 200, np.uint8))
    line = one_line_error(run("replay-photos", str(folder)))
    assert line.startswith(f"companion: {folder / '07.png'}: ") and "board" in line


def test_lexicon_import_neither_echoes_a_huge_line_nor_prints_control_characters(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    words = tmp_path / "words.txt"
    words.write_bytes(b"HOUSE\n" + b"X" * (30 << 20) + b"\n\x1b[31mRED\nQ\x00I\nA\x07B\n")
    proc = run("lexicon", "import", str(words))
    assert proc.returncode == 2
    assert len(proc.stderr) < 2000, len(proc.stderr)
    assert f"{words}: line 2: a line of {30 << 20:,} bytes is not a word" in proc.stderr
    assert not any(c in proc.stderr for c in "\x1b\x00\x07")
    assert "\\x1b[31mRED" in proc.stderr  # shown escaped
    assert proc.stderr.splitlines()[-1] == f"companion: {words}: 4 bad lines of 5; nothing was imported"


@pytest.mark.parametrize("n", ["0", "-3", "1", "100000"])
def test_lexicon_max_length_out_of_range_is_refused(tmp_path, monkeypatch, n):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    words = tmp_path / "words.txt"
    words.write_text("HOUSE\n")
    line = one_line_error(run("lexicon", "import", "--max-length", n, str(words)))
    assert line == f"companion: --max-length: 2 to 64 letters, not {n}"
    assert one_line_error(run("lexicon", "add", "--max-length", n, "QI")).startswith("companion: --max-length")


def test_house_explode_reads_a_bom_and_refuses_a_huge_file_unread(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    assert run("lexicon", "add", "AE").returncode == 0  # as tests/commands/test_house_cli.py does
    from tests.commands.test_house_cli import PLAY
    from tests.rules.test_house import EXAMPLE_BOARD

    board, play = tmp_path / "board.txt", tmp_path / "play.txt"
    board.write_text(EXAMPLE_BOARD)
    play.write_text(PLAY)
    plain = run("house", "explode", str(board), str(play))
    assert plain.returncode == 0 and plain.stdout.startswith("mover: "), plain.stderr
    board.write_bytes(b"\xef\xbb\xbf" + board.read_bytes())
    play.write_bytes(b"\xef\xbb\xbf" + play.read_bytes())
    with_bom = run("house", "explode", str(board), str(play))
    assert (with_bom.returncode, with_bom.stdout, with_bom.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as f:  # 425 MB, sparse: nothing of it is read
        f.truncate(425 << 20)
    t = time.monotonic()
    line = one_line_error(run("house", "explode", str(huge), str(play)))
    assert line == f"companion: BOARD {huge}: larger than 64 KB, not a board's tiles"
    assert time.monotonic() - t < 20


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e400"])
def test_a_clock_setting_that_is_not_finite(tmp_path, value):
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"[clock]\nstages = [{{ minutes = {value} }}]\n")
    line = one_line_error(run("run", "--config", str(cfg), "--mock"), CONFIG_EXIT)
    assert line.startswith(f"companion: {cfg}: clock.stages[0].minutes: a number, not ")


@pytest.mark.parametrize("size", [[0, 0], [-5, 100], [10**9, 10]])
def test_a_profile_with_an_impossible_image_size(tmp_path, size):
    import json

    img = tmp_path / "x.png"
    cv2.imwrite(str(img), np.zeros((50, 50, 3), np.uint8))
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps({"version": 1, "grid": 15, "image_size": size,
                                   "corners": [[0, 0], [40, 0], [40, 40], [0, 40]]}))
    line = one_line_error(run("read", str(img), "--profile", str(profile)))
    assert line == (f"companion: {profile}: malformed profile (image_size: a width and a height of 1 to 100000 "
                    f"pixels, not {size})")


def test_a_name_with_a_nul_is_refused_and_the_gcg_stays_readable(tmp_path):
    from companion.table.classic import ClassicSession
    from companion.table.session import ActionError

    s = ClassicSession(["Ann", "Bob"], control="tournament", challenge="single", tileset="en")
    for bad in ("A\x00n", "B\x1b[2Job", "x\ny"[:1] + "\x07"):
        with pytest.raises(ActionError, match="control character"):
            s.new_game(0, names=[bad, "Bob"], control="tournament", challenge="single", tileset="en")
    s.play(0, "8D", "HOUSE")
    gcg = tmp_path / "game.gcg"
    gcg.write_text(s.gcg(), encoding="utf-8")
    assert run("gcg", "rescore", str(gcg)).returncode == 0
    cfg = tmp_path / "table.toml"
    cfg.write_text('[game]\nnames = ["A\\u0000n", "Bob"]\n')
    assert "game.names" in one_line_error(run("run", "--config", str(cfg), "--mock"), CONFIG_EXIT)


def test_a_huge_configuration_file_is_refused_unread(tmp_path):
    cfg = tmp_path / "table.toml"
    with open(cfg, "wb") as f:  # 300 MB, sparse
        f.truncate(300 << 20)
    assert one_line_error(run("run", "--config", str(cfg), "--mock"), CONFIG_EXIT) == \
        f"companion: {cfg}: larger than 256 KB: not a configuration file"


def test_an_old_log_with_a_nul_in_a_name_still_exports_a_readable_gcg(tmp_path):
    """Names are refused with control characters, but a game log written before that may hold
    one: the game resumes from it, and its GCG is still one line per pragma and event, readable
    by our own reader (a NUL or a newline in a name made it unreadable)."""
    import json
    import sqlite3

    from companion.core.gcg import parse_gcg
    from companion.table import games
    from companion.table.classic import TableSession
    from companion.table.store import GameStore

    path = tmp_path / "games.db"
    with GameStore(path) as store:
        s = TableSession(store, ["Ann", "Bob"], control="tournament", challenge="single", tileset="en")
        s.play(0, "8D", "HOUSE")
    # As a log written before names were checked: the name as it was stored.
    with sqlite3.connect(path) as db:
        seq, payload = db.execute("SELECT seq, payload FROM events ORDER BY seq LIMIT 1").fetchone()
        start = json.loads(payload)
        names = start["entry"]["event"]["names"]
        assert names[0] == "Ann", start
        names[0] = "A\x00nn\nSmith"
        # The log is append-only; the test steps round its guard to write the old log's name
        # (the store puts the guard back when it opens the file).
        db.execute("DROP TRIGGER events_no_update")
        db.execute("UPDATE events SET payload = ? WHERE seq = ?", (json.dumps(start), seq))
    with GameStore(path) as store:
        text = games.resume(store).gcg()
    assert all(line.isprintable() for line in text.splitlines()), text
    record = parse_gcg(text)
    assert record.players[0].name == "A nn Smith" and record.players[0].nick == "AnnSmith"
    assert record.events[0].nick == "AnnSmith"
    gcg = tmp_path / "old.gcg"
    gcg.write_text(text, encoding="utf-8")
    assert run("gcg", "rescore", str(gcg)).returncode == 0
