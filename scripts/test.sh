#!/usr/bin/env bash
# Runs the whole suite against a real PostgreSQL. With no DATABASE_URL, a throwaway
# cluster is created with initdb and started with pg_ctl on a private socket directory,
# and stopped (and removed) whatever the tests do. Exit code = the suite's.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python

bash scripts/ensure_system_packages.sh || exit 1

source scripts/pg_cluster.sh
trap pg_cluster_stop EXIT INT TERM

if [ -z "${DATABASE_URL:-}" ]; then
  pg_cluster_start swiss || exit 1
  echo "test database: throwaway PostgreSQL 15 cluster in $PGTMP"
fi

$PY -m pytest --durations=15 "$@"
status=$?
exit $status
