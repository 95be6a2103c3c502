#!/usr/bin/env bash
# Runs the whole suite against a real PostgreSQL. With no DATABASE_URL, a throwaway
# cluster is created with initdb and started with pg_ctl on a private socket directory,
# and stopped (and removed) whatever the tests do. Exit code = the suite's.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python

bash scripts/ensure_system_packages.sh || exit 1

# Bytecode is cached (in the __pycache__ directories git ignores) even where the
# environment says not to: each worker, and each server and command the tests start,
# imports the same modules, and pytest rewrites every test module's asserts before
# compiling it. Without the cache that is about 10 s of CPU per worker, every run.
unset PYTHONDONTWRITEBYTECODE

source scripts/pg_cluster.sh
PGTMP=""  # a caller's own cluster (its exported PGTMP) is not this script's to stop
trap pg_cluster_stop EXIT INT TERM

if [ -z "${DATABASE_URL:-}" ]; then
  pg_cluster_start swiss || exit 1
  echo "test database: throwaway PostgreSQL 15 cluster in $PGTMP"
fi

# In parallel by default: TEST_WORKERS (4) pytest-xdist worker processes (4 on this
# 2-core machine: many tests wait on servers, browsers and the database), each with its own
# test database (test_swiss_gw0, …: pytest-django names them), a whole file to a worker
# (a module's browser starts once), the longest files first (tests/support/schedule.py;
# --no-loadscope-reorder keeps that order). Then the few tests that time something against a
# bound (marked `alone`: tests/support/alone.py) run by themselves, so that no other
# worker's busy test lands inside their measurement. TEST_WORKERS=0 runs everything
# serially in this one process.
WORKERS="${TEST_WORKERS:-4}"
if [ "$WORKERS" = "0" ] || [ "$WORKERS" = "1" ]; then
  $PY -m pytest --durations=15 "$@"
  exit $?
fi

# A selection on the command line (paths, node ids) is run as given; else the whole suite.
ALONE_FILES=$($PY tests/support/alone.py)
for arg in "$@"; do
  case "$arg" in
    -*) ;;
    *) if [ -e "${arg%%::*}" ]; then ALONE_FILES=""; fi ;;
  esac
done

$PY -m pytest --durations=15 -n "$WORKERS" --dist loadfile --no-loadscope-reorder -m "not alone" "$@"
status=$?
echo "--- the tests that time something, by themselves"
# shellcheck disable=SC2086  # the files are words
$PY -m pytest --durations=5 -m alone "$@" $ALONE_FILES
alone=$?
[ "$alone" -eq 5 ] && alone=0  # none in this selection
[ "$status" -eq 0 ] && status=$alone
exit $status
