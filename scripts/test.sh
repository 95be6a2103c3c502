#!/usr/bin/env bash
# Runs the whole suite against a real PostgreSQL. With no DATABASE_URL, a throwaway
# cluster is created with initdb and started with pg_ctl on a private socket directory,
# and stopped (and removed) whatever the tests do. Exit code = the suite's.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python

bash scripts/ensure_system_packages.sh || exit 1

PGBIN=/usr/lib/postgresql/15/bin
[ -x "$PGBIN/initdb" ] || PGBIN="$(dirname "$(command -v initdb)")"

cleanup() {
  if [ -n "${PGTMP:-}" ]; then
    $AS_PG "$PGBIN/pg_ctl" -D "$PGTMP/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$PGTMP"
  fi
}
trap cleanup EXIT INT TERM

if [ -z "${DATABASE_URL:-}" ]; then
  PGTMP="$(mktemp -d /tmp/swisspg.XXXXXX)"
  AS_PG=""
  if [ "$(id -u)" -eq 0 ]; then
    # initdb refuses to run as root; the cluster belongs to the postgres system user.
    chown postgres "$PGTMP"
    AS_PG="runuser -u postgres --"
  fi
  $AS_PG "$PGBIN/initdb" -D "$PGTMP/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
    >"$PGTMP/initdb.log" 2>&1 || { cat "$PGTMP/initdb.log"; exit 1; }
  $AS_PG "$PGBIN/pg_ctl" -D "$PGTMP/data" -l "$PGTMP/server.log" -w -t 60 start -o \
    "-k $PGTMP -c listen_addresses='' -c max_connections=300 -c fsync=off \
     -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=256MB" \
    >/dev/null || { cat "$PGTMP/server.log"; exit 1; }
  export DATABASE_URL="postgres://postgres@/swiss?host=$PGTMP"
  $AS_PG "$PGBIN/createdb" -h "$PGTMP" -U postgres swiss
  echo "test database: throwaway PostgreSQL 15 cluster in $PGTMP"
fi

$PY -m pytest "$@"
status=$?
exit $status
