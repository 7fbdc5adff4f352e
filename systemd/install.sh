#!/bin/sh
# Install the companion as a systemd service on a Raspberry Pi (Raspberry Pi OS Bookworm, Lite or
# Desktop, 64-bit, Pi 4 or Pi 5):
#   sudo make install
# Safe to run again: it updates the code and the unit, and keeps the user, the configuration
# (/etc/companion/config.toml) and the state (/var/lib/companion: game log, word lists).
set -eu

PREFIX=/opt/companion
UNIT=/etc/systemd/system/companion.service
CONFIG=/etc/companion/config.toml
STATE=/var/lib/companion
COMMAND=/usr/local/bin/companion
SYSTEMD_RUN=${COMPANION_SYSTEMD_RUN:-/run/systemd/system}  # tests point this elsewhere
# From apt, not pip. Picamera2 is packaged only there (Raspberry Pi OS's archive), built against
# apt's numpy, which the venv then uses (the `pi` extra in pyproject.toml keeps pip from putting
# a numpy 2 over it); lgpio on PyPI is a source package that needs swig and the C library, apt's
# is built. --no-install-recommends keeps Picamera2's preview windows (Qt, OpenGL) off a Lite system.
APT_BASE="python3-venv python3-pip python3-numpy"
APT_PI="python3-picamera2 python3-lgpio"

die() { echo "install: $*" >&2; exit 1; }

[ "$(uname -s)" = Linux ] || die "the service is for Linux with systemd (a Raspberry Pi), not $(uname -s)"
[ -d "$SYSTEMD_RUN" ] || die "systemd is not running here ($SYSTEMD_RUN missing): nothing to install into"
[ "$(id -u)" = 0 ] || die "run as root: sudo make install"
command -v python3 >/dev/null || die "python3 is missing: apt install python3 python3-venv"

SRC=$(cd "$(dirname "$0")/.." && pwd)

# The system's packages. Picamera2 and lgpio are in Raspberry Pi OS's archive only: elsewhere (a
# Debian PC with a webcam) they are skipped with a note, and the camera is camera.source = "device".
if command -v apt-get >/dev/null; then
    apt-get update -qq || echo "install: apt-get update failed; using the package lists already here" >&2
    # shellcheck disable=SC2086  # the lists are words
    apt-get install -y -qq --no-install-recommends $APT_BASE || die "apt-get could not install $APT_BASE"
    for pkg in $APT_PI; do
        if apt-cache show "$pkg" >/dev/null 2>&1; then
            apt-get install -y -qq --no-install-recommends "$pkg" || die "apt-get could not install $pkg"
        else
            echo "install: $pkg is not in this system's apt sources (not Raspberry Pi OS?): skipped" >&2
        fi
    done
else
    echo "install: no apt-get here: install python3-venv, and on a Pi python3-picamera2 and python3-lgpio, yourself" >&2
fi

# The service's own user, in the groups that own the GPIO chips and the camera.
for group in gpio video; do
    getent group "$group" >/dev/null || groupadd --system "$group"
done
if ! id companion >/dev/null 2>&1; then
    useradd --system --user-group --home-dir "$STATE" --no-create-home \
        --shell /usr/sbin/nologin companion
fi
usermod -a -G gpio,video companion

# The code, then a venv that also sees the system's Picamera2, numpy and lgpio.
mkdir -p "$PREFIX/src"
tar -C "$SRC" --exclude=./.venv --exclude=./.git --exclude='*.egg-info' --exclude=__pycache__ \
    --exclude=./.pytest_cache -cf - . | tar -C "$PREFIX/src" -xf -
[ -x "$PREFIX/venv/bin/python" ] || python3 -m venv --system-site-packages "$PREFIX/venv"
"$PREFIX/venv/bin/python" -m pip install -q --upgrade pip
"$PREFIX/venv/bin/python" -m pip install -q "$PREFIX/src[pi]"

# `companion` on everyone's PATH, seeing what the service sees: its configuration and its data
# folder (the game log, the word lists), unless the caller names others.
cat > "$COMMAND" <<EOF
#!/bin/sh
# Written by systemd/install.sh: companion with the service's configuration and data folder.
: "\${COMPANION_CONFIG:=$CONFIG}"
: "\${COMPANION_DATA_DIR:=$STATE}"
export COMPANION_CONFIG COMPANION_DATA_DIR
exec $PREFIX/venv/bin/companion "\$@"
EOF
chmod 0755 "$COMMAND"

# The configuration: the documented defaults the first time, the user's own file ever after;
# checked as the service's user sees the files, with every check `companion run` makes at start.
install -d -o companion -g companion -m 0755 "$STATE"
mkdir -p "$(dirname "$CONFIG")"
[ -f "$CONFIG" ] || "$PREFIX/venv/bin/companion" config example > "$CONFIG"
# A configuration the service would refuse does not stop the install: it is said, to be fixed.
if ! problem=$(runuser -u companion -- env COMPANION_DATA_DIR="$STATE" \
        "$PREFIX/venv/bin/companion" config check --service "$CONFIG" 2>&1 >/dev/null); then
    echo "install: $problem" >&2
    echo "install: the service will not start until $CONFIG is fixed (then: companion config check)" >&2
fi

install -m 0644 "$SRC/systemd/companion.service" "$UNIT"
systemctl daemon-reload
systemctl enable companion.service
echo "installed: try the wiring with 'companion pins test' and aim the camera with 'companion look' (docs/pi.md),"
echo "then 'sudo systemctl start companion' and watch it with 'journalctl -u companion -f'"
