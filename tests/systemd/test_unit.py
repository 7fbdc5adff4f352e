"""The service unit as systemd reads it, and the install script's refusals."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.core.errors import CONFIG_EXIT

ROOT = Path(__file__).parents[2]
UNIT = ROOT / "systemd" / "companion.service"
INSTALLED_COMPANION = "/opt/companion/venv/bin/companion"
ANALYZE = shutil.which("systemd-analyze")


def service_section() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    section = None
    for line in UNIT.read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            out.setdefault(k, []).append(v)
    return out


def test_the_unit_says_what_the_issue_asks():
    s = service_section()
    assert s["Type"] == ["notify"] and s["NotifyAccess"] == ["main"]
    assert int(s["WatchdogSec"][0]) > 0
    assert s["Restart"] == ["on-failure"]
    # A bad configuration is not restarted for ever; a camera that stopped giving frames (2) is.
    assert s["RestartPreventExitStatus"] == [str(CONFIG_EXIT)]
    assert s["User"] == ["companion"]
    assert set(s["SupplementaryGroups"][0].split()) == {"gpio", "video"}
    assert s["StateDirectory"] == ["companion"]
    # The same variable the lexicon store and the tests use for the data directory.
    assert "COMPANION_DATA_DIR=%S/companion" in s["Environment"]
    assert s["ExecStart"] == [f"{INSTALLED_COMPANION} run"]


# systemd's specifiers for a system service, and the settings that make a folder writable under
# ProtectSystem=strict (everything else is read-only to the service).
SPECIFIERS = {"%S": "/var/lib", "%t": "/run", "%C": "/var/cache", "%L": "/var/log"}
WRITABLE = {"StateDirectory": "%S", "RuntimeDirectory": "%t", "CacheDirectory": "%C", "LogsDirectory": "%L"}


def resolve(path: str) -> str:
    for spec, value in SPECIFIERS.items():
        path = path.replace(spec, value)
    return path


def writable_dirs(s: dict[str, list[str]]) -> list[Path]:
    out = [Path(resolve(f"{base}/{name}")) for key, base in WRITABLE.items() for v in s.get(key, []) for name in v.split()]
    out += [Path(resolve(p.lstrip("-"))) for v in s.get("ReadWritePaths", []) for p in v.split()]
    return out


def is_writable(path: str, s: dict[str, list[str]]) -> bool:
    target = Path(resolve(path))
    return target.is_absolute() and any(target == d or d in target.parents for d in writable_dirs(s))


def test_the_unit_works_in_a_folder_it_may_write():
    # lgpio (the pins on a Pi 5) makes its notification pipes in the working directory, or in
    # $LG_WD: under ProtectSystem=strict the default, /, is read-only (gpiozero issue 1106).
    s = service_section()
    assert s["ProtectSystem"] == ["strict"]
    assert len(s.get("WorkingDirectory", [])) == 1 and is_writable(s["WorkingDirectory"][0], s), s.get("WorkingDirectory")
    lg_wd = [v.split("=", 1)[1] for v in s["Environment"] if v.startswith("LG_WD=")]
    assert len(lg_wd) == 1 and is_writable(lg_wd[0], s), lg_wd
    # The check can fail: / and a folder nobody made writable are refused.
    assert not is_writable("/", s) and not is_writable("/opt/companion", s)


def verify(unit_text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "companion.service"
    path.write_text(unit_text)
    return subprocess.run(
        [ANALYZE, "verify", "--man=no", str(path)], capture_output=True, text=True, timeout=120,
        env={**os.environ, "SYSTEMD_LOG_COLOR": "0"},
    )


@pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed here: the unit is not verified")
def test_systemd_analyze_verify_accepts_the_unit(tmp_path):
    # /opt/companion exists on an installed Pi only: verify checks ExecStart's program, so it
    # is pointed at this test's own `companion` (or the interpreter, which surely exists).
    here = Path(sys.executable).parent / "companion"
    program = str(here) if here.exists() else sys.executable
    text = UNIT.read_text().replace(INSTALLED_COMPANION, program)
    proc = verify(text, tmp_path)
    # verify exits 0 on many complaints ("Failed to parse ..., ignoring"): silence is the pass.
    assert proc.returncode == 0 and proc.stdout.strip() == "" and proc.stderr.strip() == "", proc.stderr
    # The check can fail: a typo in the unit, or a program that is not there, is reported.
    assert verify(text.replace("Type=notify", "Type=notfy"), tmp_path).stderr.strip()
    assert verify(text.replace(program, "/nonexistent/companion"), tmp_path).returncode != 0


def test_install_refuses_without_systemd_in_one_line():
    proc = subprocess.run(
        ["sh", str(ROOT / "systemd" / "install.sh")], capture_output=True, text=True, timeout=60,
        env={**os.environ, "COMPANION_SYSTEMD_RUN": "/nonexistent/run/systemd/system"},
    )
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "systemd is not running here" in proc.stderr


def test_install_script_is_valid_shell():
    assert subprocess.run(["sh", "-n", str(ROOT / "systemd" / "install.sh")]).returncode == 0
