#!/usr/bin/env bash
# `make bench`: every benchmark, then a summary table.
#
# Pure-Python benchmarks (scoring, pairing, movements, rating) run first; the database ones run against a
# throwaway PostgreSQL 15 cluster (scripts/pg_cluster.sh) that is migrated once and
# removed at the end. With DATABASE_URL already set, that database is used instead.
# BENCH_ONLY="round_close pages" runs a subset; BENCH_OUT keeps the raw figures.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
export PATH="$PWD/.venv/bin:$PATH"

bash scripts/ensure_system_packages.sh || exit 1
source scripts/pg_cluster.sh

KEEP_OUT=1
if [ -z "${BENCH_OUT:-}" ]; then
  BENCH_OUT="$(mktemp -d /tmp/swissbench.XXXXXX)"
  KEEP_OUT=0
fi
export BENCH_OUT
: >"$BENCH_OUT/results.jsonl"

cleanup() {
  pg_cluster_stop
  [ "$KEEP_OUT" = 1 ] || rm -rf "$BENCH_OUT"
}
trap cleanup EXIT INT TERM

wanted() { [ -z "${BENCH_ONLY:-}" ] || [[ " $BENCH_ONLY " == *" $1 "* ]]; }
failed=()
run() {
  local name="$1"
  shift
  wanted "$name" || return 0
  echo
  echo "=== $name: $*"
  "$@" 2>&1 | tee "$BENCH_OUT/$name.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("$name")
}

run scoring $PY bench/bench_scoring.py
run robots $PY bench/bench_robots.py
if [ -f bench/bench_pairing.py ]; then
  run pairing $PY bench/bench_pairing.py
fi
run movements $PY bench/bench_movements.py
run rating $PY bench/bench_rating.py

if [ -z "${DATABASE_URL:-}" ]; then
  # The load test's figures should resemble a real server, so the cluster keeps
  # PostgreSQL's durable defaults (fsync, synchronous commit), unlike the test suite's.
  PG_CLUSTER_DURABLE=1 pg_cluster_start swiss_bench || exit 1
  echo "bench database: throwaway PostgreSQL 15 cluster in $PGTMP (durable settings)"
fi
export DJANGO_SETTINGS_MODULE=config.settings.base DEBUG=false LOG_LEVEL=WARNING
$PY manage.py migrate --noinput -v0 || exit 1

run round_close $PY bench/bench_round_close.py
run movement_close $PY bench/bench_movement_close.py
run pages $PY bench/bench_pages.py
run load $PY bench/bench_load.py
run play $PY bench/bench_play.py
run broadcast $PY bench/bench_broadcast.py
run team_close $PY bench/bench_team_close.py
run club $PY bench/bench_club.py
run club_close $PY bench/bench_club_close.py
# The issue's full-size Swiss-teams event played by robots through the real server (the
# suite plays a smaller one): 12 teams × 5 rounds × 8 boards, checked against the actions.
run team_robots env DJANGO_SETTINGS_MODULE=config.settings.test TEAM_ROBOTS_FULL=1 \
  $PY -m pytest -q -p no:cacheprovider --durations=3 tests/tournaments/teams/test_robot_team_events.py

echo
echo "=== summary ($(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
$PY bench/common.py summary "$BENCH_OUT/results.jsonl"
if [ ${#failed[@]} -gt 0 ]; then
  echo "benchmarks that failed: ${failed[*]}"
  exit 1
fi
