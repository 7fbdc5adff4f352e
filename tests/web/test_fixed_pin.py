"""The organiser's PIN: fixed in the configuration as a salted hash (`companion config pin`), or
new at each start and then shown where the organiser is: the console and the page of a browser
on the device itself, never a phone's."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from companion.core.errors import CONFIG_EXIT

from companion.cli import main
from companion.table.config import EXAMPLE, parse_config
from companion.core.errors import CompanionError
from companion.web.app import create_app
from companion.web.auth import Auth
from companion.core.pin_hash import hash_pin, is_pin_hash, verify_pin

from .conftest import PIN


@pytest.fixture
def config_pin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """`companion config pin PATH ARGS` with ``stdin`` piped in (not a terminal: read, not asked)."""

    def run(path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = main(["config", "pin", str(path), *args])
        out = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out.out, out.err)

    return run


def test_a_pin_hash_checks_its_pin_only():
    a, b = hash_pin("271828"), hash_pin("271828")
    assert a != b and is_pin_hash(a)  # salted: the same PIN never makes the same line
    assert verify_pin("271828", a) and verify_pin("271828", b)
    assert not verify_pin("271829", a) and not verify_pin("", a) and not verify_pin("271828", "271828")
    assert not is_pin_hash("scrypt$16385$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAA")  # N not a power of 2
    assert not is_pin_hash("271828") and not is_pin_hash("")


def test_config_pin_writes_the_hash_and_keeps_the_rest(config_pin, tmp_path: Path):
    path = tmp_path / "config.toml"
    path.write_text(EXAMPLE)
    proc = config_pin(path, stdin="654321\n")
    assert proc.returncode == 0, proc.stderr
    assert "654321" not in proc.stdout and "654321" not in path.read_text()
    cfg = parse_config(path.read_text())
    assert verify_pin("654321", cfg.web.pin_hash)
    # Only the pin_hash line changed.
    before, after = EXAMPLE.splitlines(), path.read_text().splitlines()
    assert len(before) == len(after) and [i for i, (x, y) in enumerate(zip(before, after)) if x != y] == [
        before.index('pin_hash = ""')]
    # Again: the line replaced, not added; then --random, then --clear.
    assert config_pin(path, stdin="111111\n").returncode == 0
    assert path.read_text().count("pin_hash") == EXAMPLE.count("pin_hash")
    assert verify_pin("111111", parse_config(path.read_text()).web.pin_hash)
    proc = config_pin(path, "--random")
    shown = proc.stdout.split("PIN is now ", 1)[1].split()[0]
    assert len(shown) == 6 and verify_pin(shown, parse_config(path.read_text()).web.pin_hash)
    assert config_pin(path, "--clear").returncode == 0
    assert path.read_text() == EXAMPLE


def test_config_pin_adds_the_web_table_where_there_is_none(config_pin, tmp_path: Path):
    path = tmp_path / "config.toml"
    path.write_text('# mine\n[camera]\nsource = "synthetic"\n')
    assert config_pin(path, stdin="123123\n").returncode == 0
    text = path.read_text()
    assert text.startswith('# mine\n[camera]\nsource = "synthetic"\n\n[web]\npin_hash = "scrypt$')
    assert verify_pin("123123", parse_config(text).web.pin_hash)


@pytest.mark.parametrize("stdin, said", [("12345\n", "a PIN is 6 digits"), ("12345a\n", "a PIN is 6 digits"),
                                         ("\n", "a PIN is 6 digits")])
def test_config_pin_refuses_a_bad_pin_and_changes_nothing(config_pin, tmp_path: Path, stdin: str, said: str):
    path = tmp_path / "config.toml"
    path.write_text(EXAMPLE)
    proc = config_pin(path, stdin=stdin)
    assert proc.returncode == 2 and said in proc.stderr and proc.stderr.count("\n") == 1
    assert path.read_text() == EXAMPLE


def test_a_broken_configuration_is_not_edited(config_pin, tmp_path: Path):
    path = tmp_path / "config.toml"
    path.write_text("[web]\nport = 99999\n")
    proc = config_pin(path, stdin="123456\n")
    assert proc.returncode == CONFIG_EXIT and "web.port" in proc.stderr
    assert path.read_text() == "[web]\nport = 99999\n"


def test_a_pin_hash_that_is_not_one_is_one_line():
    with pytest.raises(CompanionError) as e:
        parse_config('[web]\npin_hash = "123456"', "cfg.toml")
    assert str(e.value).startswith("cfg.toml: web.pin_hash: not a PIN hash")


def test_the_fixed_pin_logs_in_and_no_page_is_told_a_pin(hub, clock):
    auth = Auth(pin_hash=hash_pin("424242"), now=clock.seconds)
    assert auth.pin is None
    assert not auth.try_pin("10.0.0.9", "000000").ok and auth.try_pin("10.0.0.9", "424242").ok
    client = create_app(hub, auth=auth).test_client()
    assert "device_pin" not in client.get("/api/session", environ_base={"REMOTE_ADDR": "127.0.0.1"}).get_json()


@pytest.mark.parametrize("address, shown", [("127.0.0.1", True), ("::1", True), ("127.0.0.53", True),
                                            ("192.168.1.20", False), ("10.0.0.5", False), ("fe80::1", False)])
def test_the_days_pin_is_shown_to_a_browser_on_the_device_only(app, address: str, shown: bool):
    got = app.test_client().get("/api/session", environ_base={"REMOTE_ADDR": address}).get_json()
    assert got.get("device_pin") == (PIN if shown else None)
    # Not a header's say: a phone claiming to be the device is still a phone.
    spoof = app.test_client().get("/api/session", headers={"X-Forwarded-For": "127.0.0.1", "Host": "localhost"},
                                  environ_base={"REMOTE_ADDR": "192.168.1.20"}).get_json()
    assert "device_pin" not in spoof
