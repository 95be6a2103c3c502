# A throwaway PostgreSQL 15 cluster for the test suite and the benchmarks. Source it:
#
#   source scripts/pg_cluster.sh
#   trap pg_cluster_stop EXIT INT TERM
#   pg_cluster_start swiss || exit 1     # exports DATABASE_URL, PGTMP
#
# The cluster is created with initdb in a private temporary directory, listens on a Unix
# socket in that directory only (no TCP port, so parallel clusters never collide), and
# pg_cluster_stop stops it and removes the directory. PG_CLUSTER_DURABLE=1 keeps
# PostgreSQL's crash-safe defaults (fsync, synchronous commit) for load tests whose
# figures should resemble a real server; the default trades them for speed.

PGBIN=/usr/lib/postgresql/15/bin
[ -x "$PGBIN/initdb" ] || PGBIN="$(dirname "$(command -v initdb 2>/dev/null || echo /usr/bin/initdb)")"

pg_cluster_start() {
  local dbname="${1:-swiss}"
  PGTMP="$(mktemp -d /tmp/swisspg.XXXXXX)"
  AS_PG=""
  if [ "$(id -u)" -eq 0 ]; then
    # initdb refuses to run as root; the cluster belongs to the postgres system user.
    chown postgres "$PGTMP"
    AS_PG="runuser -u postgres --"
  fi
  local opts="-k $PGTMP -c listen_addresses='' -c max_connections=300 -c shared_buffers=256MB"
  if [ "${PG_CLUSTER_DURABLE:-0}" != "1" ]; then
    opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  fi
  $AS_PG "$PGBIN/initdb" -D "$PGTMP/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
    >"$PGTMP/initdb.log" 2>&1 || { cat "$PGTMP/initdb.log"; return 1; }
  $AS_PG "$PGBIN/pg_ctl" -D "$PGTMP/data" -l "$PGTMP/server.log" -w -t 60 start -o "$opts" \
    >/dev/null || { cat "$PGTMP/server.log"; return 1; }
  export PGTMP
  export DATABASE_URL="postgres://postgres@/$dbname?host=$PGTMP"
  $AS_PG "$PGBIN/createdb" -h "$PGTMP" -U postgres "$dbname" || return 1
}

pg_cluster_stop() {
  if [ -n "${PGTMP:-}" ]; then
    $AS_PG "$PGBIN/pg_ctl" -D "$PGTMP/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$PGTMP"
    PGTMP=""
  fi
}
