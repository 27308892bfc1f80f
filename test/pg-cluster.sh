#!/usr/bin/env bash
# A private PostgreSQL cluster for payrec's tests (DESIGN.md "A team's mirror on
# PostgreSQL"): `start DIR` makes one in DIR (initdb as the `postgres` user, which
# PostgreSQL requires when run as root; fsync off: it is scratch data), on a free
# loopback port, and prints its URL (`postgres://postgres@127.0.0.1:PORT/postgres`,
# no password: trust on loopback). `stop DIR` stops it. .ci/run uses it; so can you:
#
#   url=$(bash test/pg-cluster.sh start /tmp/payrec-pg) && export PAYREC_TEST_PG="$url"
#   npx vitest run test/e2e/pg-*.test.ts test/unit/mirror-store-contract.test.ts
#   bash test/pg-cluster.sh stop /tmp/payrec-pg
set -euo pipefail

bin() {
  local found
  found=$(command -v pg_ctl 2>/dev/null || ls -d /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | sort -V | tail -1 || true)
  [ -n "$found" ] || { echo "no PostgreSQL server here: apt-get install postgresql" >&2; exit 3; }
  dirname "$found"
}

# Runs a command as the cluster's owner: `postgres` when we are root (initdb refuses root), else ourselves.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

cmd=${1:-}; dir=${2:-}
[ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
case "$cmd" in
  start)
    b=$(bin)
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && { id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres; chown postgres "$dir"; }
    chmod 700 "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_owner "$b/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    port=$(free_port)
    echo "$port" >"$dir/port"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir/port"
    as_owner "$b/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start \
      -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100" >/dev/null \
      || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    b=$(bin)
    [ -f "$dir/data/postmaster.pid" ] && as_owner "$b/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
