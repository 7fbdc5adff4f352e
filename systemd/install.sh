#!/bin/sh
# Install the companion as a systemd service on a Raspberry Pi (Raspberry Pi OS Bookworm):
#   sudo make install
# Safe to run again: it updates the code and the unit, and keeps the user, the configuration
# (/etc/companion/config.toml) and the state (/var/lib/companion: game log, word lists).
set -eu

PREFIX=/opt/companion
UNIT=/etc/systemd/system/companion.service
CONFIG=/etc/companion/config.toml
SYSTEMD_RUN=${COMPANION_SYSTEMD_RUN:-/run/systemd/system}  # tests point this elsewhere

die() { echo "install: $*" >&2; exit 1; }

[ "$(uname -s)" = Linux ] || die "the service is for Linux with systemd (a Raspberry Pi), not $(uname -s)"
[ -d "$SYSTEMD_RUN" ] || die "systemd is not running here ($SYSTEMD_RUN missing): nothing to install into"
[ "$(id -u)" = 0 ] || die "run as root: sudo make install"
command -v python3 >/dev/null || die "python3 is missing: apt install python3 python3-venv"

SRC=$(cd "$(dirname "$0")/.." && pwd)

# The service's own user, in the groups that own the GPIO chips and the camera.
for group in gpio video; do
    getent group "$group" >/dev/null || groupadd --system "$group"
done
if ! id companion >/dev/null 2>&1; then
    useradd --system --user-group --home-dir /var/lib/companion --no-create-home \
        --shell /usr/sbin/nologin companion
fi
usermod -a -G gpio,video companion

# The code, then a venv that also sees the system's Picamera2 (python3-picamera2 from apt).
mkdir -p "$PREFIX/src"
tar -C "$SRC" --exclude=./.venv --exclude=./.git --exclude='*.egg-info' --exclude=__pycache__ -cf - . \
    | tar -C "$PREFIX/src" -xf -
[ -x "$PREFIX/venv/bin/python" ] || python3 -m venv --system-site-packages "$PREFIX/venv"
"$PREFIX/venv/bin/python" -m pip install -q --upgrade pip
"$PREFIX/venv/bin/python" -m pip install -q "$PREFIX/src[pi]"

# The configuration: the documented defaults the first time, the user's own file ever after.
mkdir -p "$(dirname "$CONFIG")"
[ -f "$CONFIG" ] || "$PREFIX/venv/bin/companion" config example > "$CONFIG"
"$PREFIX/venv/bin/companion" config check "$CONFIG" >/dev/null

install -m 0644 "$SRC/systemd/companion.service" "$UNIT"
systemctl daemon-reload
systemctl enable companion.service
echo "installed: start it with 'sudo systemctl start companion', watch it with 'journalctl -u companion -f'"
