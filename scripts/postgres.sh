#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback, for a shared Pulumi backend (state of many stacks and machines).
#
#   scripts/postgres.sh start    starts one; prints its backend URL on stdout and its folder on stderr
#   scripts/postgres.sh stop DIR stops it and removes its folder (data, socket, log)
#
# Debian's postgresql package is installed when no server is found. The data directory lives in a fresh
# temporary folder; nothing outside it is touched. As root the server runs as the `postgres` user
# (PostgreSQL refuses to run as root), which must be able to reach that folder: a private TMPDIR (0700, as
# the test suite's own is) is passed over for /tmp.
set -euo pipefail
log() { printf 'postgres: %s\n' "$*" >&2; }

bindir() {
  local d
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && { echo "$d"; return; }; done
  command -v initdb >/dev/null 2>&1 && dirname "$(command -v initdb)"
}

as_owner() { # run as the server's owner
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
start)
  bin=$(bindir || true)
  if [ -z "$bin" ]; then
    [ "$(id -u)" = 0 ] || { log "no PostgreSQL server found: install it with sudo apt-get install -y postgresql"; exit 1; }
    log "installing Debian's postgresql package"
    bash "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh" postgresql
    bin=$(bindir)
  fi
  parent=${TMPDIR:-/tmp}
  if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$parent"; then parent=/tmp; fi
  dir=$(mktemp -d "$parent/prb-postgres.XXXXXX")
  chmod 755 "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  as_owner "$bin/initdb" -D "$dir/data" -U pulumi -A trust --no-sync >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >&2
  as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U pulumi pulumi
  url="postgres://pulumi@127.0.0.1:$port/pulumi?sslmode=disable"
  # The CLI creates its table on the first open of the backend with CREATE TABLE IF NOT EXISTS, which
  # PostgreSQL does not serialise: several first opens at once (a wave of CI jobs on a new backend) fail with
  # "duplicate key value violates unique constraint pg_type_typname_nsp_index". One open here, before anyone
  # else, lets the CLI lay out its own table.
  pulumi=$(bash "$(dirname "${BASH_SOURCE[0]}")/engine.sh")
  PULUMI_HOME="$dir/home" PULUMI_SKIP_UPDATE_CHECK=1 "$pulumi" login --non-interactive "$url" >/dev/null 2>"$dir/login.log" \
    || { cat "$dir/login.log" >&2; exit 1; }
  log "running in $dir"
  echo "$dir" >&2
  echo "$url"
  ;;
stop)
  dir=${2:?usage: scripts/postgres.sh stop DIR}
  case "$dir" in "${TMPDIR:-/tmp}"/prb-postgres.* | /tmp/prb-postgres.*) ;; *) log "refusing to remove $dir: not a folder this script made"; exit 1;; esac
  bin=$(bindir)
  [ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
  rm -rf "$dir"
  ;;
*)
  echo "usage: scripts/postgres.sh start | stop DIR" >&2; exit 2;;
esac
