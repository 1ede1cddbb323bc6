#!/usr/bin/env bash
# Starts a real OpenSSH server on 127.0.0.1 for the tests of GIT sources over ssh, without touching the system's sshd.
# The binary comes from Debian's `openssh-server` (and `libwrap0`) packages, fetched with `apt-get download` and
# unpacked into .cairn/sshd/pkg, unless the machine has /usr/sbin/sshd already. As root, the server runs as the
# unprivileged user `cairnssh`, the only user it lets in; otherwise as the current user.
# Keys are only those the tests write to <state>/authorized_keys (each restricted with command="git-shell ..."), and
# tests keep their bare repositories under <state>/repos.
# Usage: scripts/sshd-server.sh start|stop|url     start prints ssh://USER@127.0.0.1:PORT<state folder>
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD/.cairn/sshd"
PORT="${CAIRN_TEST_SSHD_PORT:-22222}"
PKG="$ROOT/pkg"
PIDFILE="$ROOT/sshd.pid"

server_user() { if [ "$(id -u)" = "0" ]; then echo cairnssh; else id -un; fi; }
url() { echo "ssh://$(server_user)@127.0.0.1:${PORT}${ROOT}"; }

as_server() {
  if [ "$(id -u)" = "0" ]; then runuser -u cairnssh -- "$@"; else "$@"; fi
}

sshd_binary() {
  if [ -x /usr/sbin/sshd ]; then echo /usr/sbin/sshd; return; fi
  if [ ! -x "$PKG/usr/sbin/sshd" ]; then
    mkdir -p "$ROOT/debs" && chmod a+rwx "$ROOT/debs"
    download() { (cd "$ROOT/debs" && apt-get download openssh-server libwrap0 >/dev/null 2>&1); }
    # A machine whose package lists were never fetched knows no package to download yet.
    download || { [ "$(id -u)" = "0" ] && apt-get update -qq >/dev/null 2>&1 && download; } || {
      echo "could not download openssh-server with apt-get (run apt-get update first, or install openssh-server)" >&2
      exit 1
    }
    for deb in "$ROOT"/debs/*.deb; do dpkg-deb -x "$deb" "$PKG"; done
  fi
  echo "$PKG/usr/sbin/sshd"
}

start() {
  mkdir -p "$ROOT/repos"
  if [ "$(id -u)" = "0" ] && ! id cairnssh >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /bin/sh cairnssh
  fi
  local sshd; sshd="$(sshd_binary)"
  [ -f "$ROOT/host_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C cairn-test-host -f "$ROOT/host_ed25519"
  touch "$ROOT/authorized_keys"
  if [ "$(id -u)" = "0" ]; then
    # The server user reads the binary, the keys and the repositories; tests (as root) write the repositories.
    chmod a+rx "$PWD" "$PWD/.cairn" "$ROOT"; chmod -R a+rX "$PKG" 2>/dev/null || true
    chown cairnssh "$ROOT/host_ed25519" "$ROOT/authorized_keys"; chmod 1777 "$ROOT/repos"
  fi
  cat >"$ROOT/sshd_config" <<EOF
Port $PORT
ListenAddress 127.0.0.1
HostKey $ROOT/host_ed25519
PidFile $PIDFILE
AuthorizedKeysFile $ROOT/authorized_keys
AllowUsers $(server_user)
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitTunnel no
AllowTcpForwarding no
X11Forwarding no
PrintMotd no
EOF
  if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then url; return; fi
  rm -f "$PIDFILE"; touch "$ROOT/sshd.log" "$PIDFILE"; [ "$(id -u)" = "0" ] && chown cairnssh "$ROOT/sshd.log" "$PIDFILE"
  local libs; libs="$(find "$PKG" -name 'libwrap.so.0' -printf '%h' 2>/dev/null | head -1 || true)"
  as_server env LD_LIBRARY_PATH="$libs" "$sshd" -f "$ROOT/sshd_config" -E "$ROOT/sshd.log"
  for _ in $(seq 1 50); do [ -s "$PIDFILE" ] && break; sleep 0.1; done
  [ -s "$PIDFILE" ] || { echo "sshd did not start; see $ROOT/sshd.log" >&2; cat "$ROOT/sshd.log" >&2; exit 1; }
  url
}

stop() {
  [ -f "$PIDFILE" ] || exit 0
  kill "$(cat "$PIDFILE")" 2>/dev/null || true
  rm -f "$PIDFILE"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  url) url ;;
  *) echo "usage: $0 start|stop|url" >&2; exit 2 ;;
esac
