#!/usr/bin/env bash
# A throwaway PostgreSQL for sample-service's integration tests and benchmark.
#
#   tools/postgres.sh up     start it (installing Debian's postgresql first if initdb/pg_ctl are missing)
#   tools/postgres.sh url    print its JDBC URL, for DATABASE_URL
#   tools/postgres.sh down   stop it and delete its data directory
#
# It listens on 127.0.0.1 only, on a free port, with its data under $PG_WORK_DIR
# (default <repo>/.work/postgres, ignored by git). PostgreSQL refuses to run as root, so as root the
# server runs as the `postgres` user (created by the Debian package) or a `danki-pg` system user; when
# that user cannot reach $PG_WORK_DIR (a clone under /root), the data goes to a mktemp dir in /tmp,
# still removed by `down`.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=SCRIPTDIR/free-port.sh
source "$REPO/tools/free-port.sh"
WORK_DIR="${PG_WORK_DIR:-$REPO/.work/postgres}"
STATE="$WORK_DIR/state.env"
DB_NAME=danki
DB_USER=danki
START_TIMEOUT_SECONDS=60

die() { echo "postgres.sh: $*" >&2; exit 1; }

# Newest Debian-packaged server binaries, else whatever is on PATH.
find_bin_dir() {
  local dir
  dir="$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1 || true)"
  if [[ -n "$dir" && -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then echo "$dir"; return; fi
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then dirname "$(command -v initdb)"; return; fi
  echo ""
}

install_postgres() {
  [[ $(id -u) -eq 0 ]] || die "initdb/pg_ctl not found and not root: install Debian's postgresql package"
  echo "postgres.sh: installing Debian's postgresql (apt-get)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
}

# The user the server runs as: ourselves, or a non-root user when we are root.
server_user() {
  if [[ $(id -u) -ne 0 ]]; then id -un; return; fi
  if id postgres >/dev/null 2>&1; then echo postgres; return; fi
  id danki-pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin danki-pg
  echo danki-pg
}

as_server_user() {
  local user="$1"; shift
  if [[ "$user" == "$(id -un)" ]]; then "$@"; else runuser -u "$user" -- "$@"; fi
}

is_running() {
  [[ -f "$STATE" ]] || return 1
  # shellcheck disable=SC1090
  source "$STATE"
  as_server_user "$PG_USER" "$PG_BIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1
}

cmd_up() {
  if is_running; then echo "postgres.sh: already running on 127.0.0.1:$PG_PORT" >&2; return; fi
  local bin user port data
  bin="$(find_bin_dir)"
  if [[ -z "$bin" ]]; then install_postgres; bin="$(find_bin_dir)"; fi
  [[ -n "$bin" ]] || die "postgresql installed, but initdb/pg_ctl still not found"
  user="$(server_user)"
  port="$(free_port)"
  rm -rf "$WORK_DIR"
  mkdir -p "$WORK_DIR"
  # the server's own directory: under WORK_DIR, unless the server user cannot reach it (a repo under /root)
  local server_dir="$WORK_DIR/server"
  mkdir -p "$server_dir"
  chown "$user" "$server_dir"
  chmod 700 "$server_dir"
  if ! as_server_user "$user" test -w "$server_dir"; then
    server_dir="$(mktemp -d /tmp/danki-postgres.XXXXXX)"
    chown "$user" "$server_dir"
  fi
  data="$server_dir/data"
  as_server_user "$user" "$bin/initdb" -D "$data" -U "$DB_USER" -A trust -E UTF8 --no-sync >"$WORK_DIR/initdb.log" 2>&1 \
    || die "initdb failed, see $WORK_DIR/initdb.log"
  printf 'PG_BIN=%q\nPG_USER=%q\nPG_PORT=%q\nPG_DATA=%q\nPG_SERVER_DIR=%q\n' "$bin" "$user" "$port" "$data" "$server_dir" >"$STATE"
  # loopback only; no fsync: the data is thrown away; enough connections for a 64-connection pool plus tests
  as_server_user "$user" "$bin/pg_ctl" -D "$data" -l "$server_dir/server.log" -w -t "$START_TIMEOUT_SECONDS" \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $server_dir -c fsync=off -c synchronous_commit=off -c max_connections=200" \
    start >/dev/null || die "server did not start, see $server_dir/server.log"
  as_server_user "$user" "$bin/createdb" -h 127.0.0.1 -p "$port" -U "$DB_USER" "$DB_NAME"
  echo "postgres.sh: PostgreSQL $("$bin/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$port, data in $data" >&2
}

cmd_url() {
  is_running || die "not running: run 'tools/postgres.sh up' first"
  echo "jdbc:postgresql://127.0.0.1:$PG_PORT/$DB_NAME?user=$DB_USER"
}

cmd_down() {
  if [[ -f "$STATE" ]]; then
    # shellcheck disable=SC1090
    source "$STATE"
    as_server_user "$PG_USER" "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w stop >/dev/null 2>&1 || true
    # a server directory outside WORK_DIR is one of ours from mktemp
    [[ "${PG_SERVER_DIR:-}" == /tmp/danki-postgres.* ]] && rm -rf "$PG_SERVER_DIR"
  fi
  rm -rf "$WORK_DIR"
  echo "postgres.sh: stopped, $WORK_DIR removed" >&2
}

case "${1:-}" in
  up) cmd_up ;;
  url) cmd_url ;;
  down) cmd_down ;;
  *) die "usage: tools/postgres.sh up|url|down" ;;
esac
