#!/usr/bin/env bash
# A study on the one-node Slurm cluster (scripts/slurm/local-cluster.sh) with its array tasks
# training cell by cell (--batch off) and batched (--batch auto: each task gets whole groups of
# cells whose shapes agree), one after the other on the same cluster: the wall time from
# submission until every task has ended, and what each task's log says it trained.
#   bench/slurm_batch_before_after.sh [build-dir] [tasks] [epochs]
set -euo pipefail
BUILD=${1:-build}
TASKS=${2:-2}
EPOCHS=${3:-50}
CLI=$(realpath "$BUILD/app/fourierlab-cli")
WORK=$(mktemp -d /tmp/fl-slurm-bench.XXXXXX)
export FOURIERLAB_SLURM_DIR=$WORK/cluster
eval "$(scripts/slurm/local-cluster.sh start)"
trap 'scripts/slurm/local-cluster.sh stop >/dev/null 2>&1 || true' EXIT

for batch in off auto; do
  db=$WORK/$batch.db
  start=$(date +%s.%N)
  "$CLI" sweep run fourier-head --study table1 --set epochs="$EPOCHS" --slurm --tasks "$TASKS" \
    --cpus-per-task 1 --batch "$batch" --db "$db" >/dev/null 2>"$WORK/$batch.submit"
  until "$CLI" sweep status 1 --db "$db" --json 2>/dev/null | python3 -c '
import json, sys
tasks = json.load(sys.stdin)["jobs"][0]["tasks"]
sys.exit(0 if tasks and all(t["state"] in ("done", "failed") for t in tasks) else 1)'; do
    sleep 1
  done
  end=$(date +%s.%N)
  "$CLI" sweep collect 1 --db "$db" >/dev/null 2>&1
  finished=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
    "SELECT count(*) FROM runs WHERE status = '"'finished'"'").fetchone()[0])' "$db")
  printf '%-5s %d tasks: %6.1f s from submission to the last task ended, %s runs finished\n' \
    "$batch" "$TASKS" "$(echo "$end - $start" | bc)" "$finished"
  grep -h "^task " "$db".slurm/*/job-1/logs/task-*.out | sed 's/^/      /' || true
done
