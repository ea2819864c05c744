#!/usr/bin/env bash
# The CPU side of the move from Debian's LibTorch 1.13 (+ OpenBLAS) to PyTorch's wheel (2.15,
# MKL inside libtorch_cpu): the same benchmarks from two builds, alternating in one session so
# both see the same machine.
#   bench/libtorch_before_after.sh BEFORE_BUILD AFTER_BUILD [--no-study]
# BEFORE_BUILD: a build of the commit before the move (e.g. a `git worktree` of it, configured
# with -DFOURIERLAB_CORE_ONLY=ON on a machine that has libtorch-dev and libopenblas0-openmp).
set -euo pipefail
BEFORE=$1
AFTER=$2
STUDY=${3:-}
rows() { grep -E "$1" || true; }
for side in before after; do
  build=$BEFORE; [ "$side" = after ] && build=$AFTER
  echo "## $side: $("$build/app/fourierlab-cli" --version 2>&1 | head -n 1)"
  "$build/bench/bench_transformer" 1 1 --cases tiny/rope 2>&1 | sed -n 1,6p
done
for round in 1 2; do
  for side in before after; do
    build=$BEFORE; [ "$side" = after ] && build=$AFTER
    echo "## round $round, $side: bench_fourier_head --batched (us per model-step, single and K runs)"
    "$build/bench/bench_fourier_head" --batched 2>&1 | rows '^  (fourier|linear|gmm) +(single|K=)'
    echo "## round $round, $side: the same with the small products on the wheel's MKL"
    FOURIERLAB_SMALL_GEMM_MKL=1 "$build/bench/bench_fourier_head" --batched 2>&1 |
      rows '^  (fourier|linear|gmm) +(single|K=)'
    for threads in 1 2; do
      echo "## round $round, $side: bench_transformer qk-b64/none, $threads thread(s)"
      "$build/bench/bench_transformer" 2 "$threads" --cases qk-b64/none 2>&1 | rows '^qk-'
    done
  done
done
if [ "$STUDY" != --no-study ]; then
  for side in before after; do
    build=$BEFORE; [ "$side" = after ] && build=$AFTER
    db=$(mktemp -d)/study.db
    echo "## $side: the frequency study at full length (264 runs, batched)"
    /usr/bin/time -f "%e s wall, %M KB peak RSS" "$build/app/fourierlab-cli" sweep run fourier-head \
      --study frequencies --db "$db" 2>&1 | tail -n 3
    rm -rf "$(dirname "$db")"
  done
fi
