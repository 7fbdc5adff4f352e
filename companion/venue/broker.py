"""The broker's side: how to reach it (:class:`BrokerConfig`) and, for the venue's machine, a
Mosquitto set-up (configuration, password file, ACLs) for an event's tables and screens.

The ACLs are the security the venue needs: table ``n``'s account (``table<n>``) may write only
under ``venue/<event>/table/<n>/`` (and read nothing), the screens' account only reads
``venue/<event>/``; anonymous clients are refused.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from pathlib import Path

from companion.core.errors import CompanionError
from companion.table.publish.publisher import BrokerConfig
from companion.table.publish.topics import ROOT, check_event, check_table

SCREEN_USER = "screen"


def table_user(n: int) -> str:
    return f"table{check_table(n)}"


def acl_text(event: str, tables: range) -> str:
    check_event(event)
    lines = [f"# The venue {event!r}: each table writes only its own topics; screens only read.", ""]
    for n in tables:
        lines += [f"user {table_user(n)}", f"topic write {ROOT}/{event}/table/{n}/#", ""]
    lines += [f"user {SCREEN_USER}", f"topic read {ROOT}/{event}/#", ""]
    return "\n".join(lines)


def mosquitto_conf(*, port: int, data_dir: Path, host: str = "127.0.0.1", tls: tuple[Path, Path, Path] | None = None,
                   log_file: Path | None = None, run_as: str | None = None) -> str:
    """A Mosquitto 2 configuration: one listener, passwords and ACLs from ``data_dir``,
    persistence there too (retained games and queued QoS 1 messages survive a restart).
    ``tls``: (CA, certificate, key) files."""
    lines = [
        "# Made by companion (companion/venue/broker.py); see docs/venue.md.",
        "per_listener_settings false",
        "allow_anonymous false",
        f"password_file {data_dir / 'passwords'}",
        f"acl_file {data_dir / 'acl'}",
        "persistence true",
        f"persistence_location {data_dir}/",
        "autosave_interval 1",
        "max_queued_messages 100000",
        "max_inflight_messages 100",
        f"listener {port} {host}",
    ]
    if run_as:
        # Started as root, Mosquitto becomes user "mosquitto" unless told otherwise: a broker of
        # our own stays the user who owns its folder.
        lines.insert(1, f"user {run_as}")
    if tls is not None:
        ca, cert, key = tls
        lines += [f"cafile {ca}", f"certfile {cert}", f"keyfile {key}", "tls_version tlsv1.2"]
    lines.append(f"log_dest file {log_file}" if log_file else "log_dest stderr")
    lines.append("log_type error\nlog_type warning\nlog_type notice")
    return "\n".join(lines) + "\n"


def make_passwords(path: Path, users: dict[str, str]) -> None:
    """The password file for ``users`` (name -> password), hashed by ``mosquitto_passwd``."""
    tool = shutil.which("mosquitto_passwd")
    if tool is None:
        raise CompanionError("mosquitto_passwd: not installed (Debian: apt install mosquitto)")
    path.write_text("")
    os.chmod(path, 0o600)
    for user, password in users.items():
        done = subprocess.run([tool, "-b", str(path), user, password], capture_output=True, text=True)
        if done.returncode != 0:
            raise CompanionError(f"mosquitto_passwd: {done.stderr.strip() or done.stdout.strip()}")


def setup_broker(folder: Path, event: str, tables: int, *, port: int = 1883, host: str = "0.0.0.0",
                 passwords: dict[str, str] | None = None, run_as: str | None = None) -> dict[str, str]:
    """A broker's folder for an event: mosquitto.conf, passwords, acl. Each account's password
    (new random ones unless given), returned so the organiser can hand them out."""
    check_event(event)
    if not 1 <= tables <= 999:
        raise CompanionError(f"tables: from 1 to 999, not {tables}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    users = {table_user(n): secrets.token_urlsafe(12) for n in range(1, tables + 1)}
    users[SCREEN_USER] = secrets.token_urlsafe(12)
    users.update(passwords or {})
    make_passwords(folder / "passwords", users)
    (folder / "acl").write_text(acl_text(event, range(1, tables + 1)))
    (folder / "mosquitto.conf").write_text(mosquitto_conf(port=port, data_dir=folder, host=host, run_as=run_as))
    return users


def free_port(host: str = "127.0.0.1") -> int:
    import socket

    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class LocalBroker:
    """A Mosquitto of our own on the loopback (tests, the benchmark, trying the venue out on one
    machine): the event's accounts and ACLs in ``folder``, started, killed and started again on
    the same port with the same store."""

    def __init__(self, folder: Path, event: str, tables: int, *, port: int | None = None,
                 passwords: dict[str, str] | None = None) -> None:
        self.binary = shutil.which("mosquitto") or next(
            (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.path.exists(p)), None)
        if self.binary is None:
            raise CompanionError("mosquitto: not installed (Debian: apt install mosquitto)")
        self.folder = Path(folder)
        self.port = port or free_port()
        self.event = event
        import pwd

        self.passwords = setup_broker(self.folder, event, tables, port=self.port, host="127.0.0.1", passwords=passwords,
                                      run_as=pwd.getpwuid(os.geteuid()).pw_name)
        self.proc: subprocess.Popen[bytes] | None = None

    def config(self, user: str) -> BrokerConfig:
        return BrokerConfig("127.0.0.1", self.port, user, self.passwords[user])

    def start(self, timeout: float = 10.0) -> "LocalBroker":
        import socket
        import time

        log = open(self.folder / "mosquitto.log", "ab")
        self.proc = subprocess.Popen([self.binary, "-c", str(self.folder / "mosquitto.conf")],
                                     stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        log.close()
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise CompanionError(f"mosquitto exited at once: see {self.folder / 'mosquitto.log'}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise CompanionError(f"mosquitto did not listen on 127.0.0.1:{self.port} within {timeout:g} s")

    def kill(self) -> None:
        """SIGKILL: no goodbye to the clients, nothing saved beyond the last autosave."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def rss_kib(self) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return None
        return rss_kib(self.proc.pid)


def rss_kib(pid: int) -> int | None:
    """A process's resident memory in KiB (Linux), None when it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None
