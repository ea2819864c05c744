#!/usr/bin/env bash
# The README's before/after table ("The papers' shapes"): bench_transformer at the FourierQK
# paper's shapes with every CPU speed-up off ("before": plain T x T attention, LibTorch's GELU
# and dropout, no block cache: the code path as it was) and on ("after"), alternating in one
# session so both see the same machine.
#   bench/transformer_before_after.sh [build-dir]
set -euo pipefail
BUILD=${1:-build}
BENCH="$BUILD/bench/bench_transformer"
before() { FOURIERLAB_BLOCK_CACHE=0 FOURIERLAB_FUSED_OPS=0 "$BENCH" "$@" --kernels plain; }
after() { "$BENCH" "$@" --kernels blocked; }
rows() { grep -E '^(qk|60m|tiny|small)-' || true; }

after 1 1 --cases tiny/rope 2>&1 | sed -n 1,9p  # the machine, its BLAS and the header
echo "# before = plain attention, LibTorch GELU/dropout, no block cache; after = all on"
for threads in 1 2; do
  for c in qk-b8/none qk-b64/none; do
    steps=5
    [ "$c" = qk-b64/none ] && steps=2
    echo "## $c, $threads thread(s), $steps timed steps"
    echo -n "before "; before "$steps" "$threads" --cases "$c" 2>&1 | rows
    echo -n "after  "; after "$steps" "$threads" --cases "$c" 2>&1 | rows
  done
done
for threads in 1 2; do
  echo "## after only, $threads thread(s)"
  for c in qk-b8/fourier qk-b8/gaussian qk-b64/fourier qk-b64/gaussian 60m-b4/rope 60m-b4/fope; do
    after 2 "$threads" --cases "$c" 2>&1 | rows
  done
done
