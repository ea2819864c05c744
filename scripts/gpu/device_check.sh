#!/usr/bin/env bash
# Run THERE, after scripts/gpu/build_core.sh: the Fourier head's toy benchmark on CUDA (its
# densities on a fine grid and the probe run on the device too), one short pass over the
# transformer experiments on CUDA (a few hundred steps each, the papers' shapes), then the throughput benchmark against the
# GPU's own matmul peak. Everything it prints goes to $OUT (or ./gpu-check) as well.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-gpu-check}
mkdir -p "$out"
cli=build-gpu/app/fourierlab-cli
db="$out/gpu.db"
{
  nvidia-smi --query-gpu=name,memory.total --format=csv || true
  for head in linear fourier gmm; do
    "$cli" run fourier-head --set head=$head --set dataset=gmm2 --set epochs=20 --set eval_every=5 \
      --device cuda --db "$db" --json 2>&1 | tail -n 1
  done
  for position in rope fope alibi none; do
    "$cli" run fope --preset paper-60m --set position=$position --set steps=300 --set eval_every=300 \
      --device cuda --db "$db" --json 2>&1 | tail -n 1
  done
  for variant in none fourier multi mexican_hat; do
    "$cli" run fourier-qk --preset paper --set variant=$variant --set steps=300 --set eval_every=300 \
      --set eval_tokens=262144 --device cuda --db "$db" --json 2>&1 | tail -n 1
  done
  for init in random fourier; do
    "$cli" run addition --preset paper --set embedding_init=$init --set steps=500 --set eval_every=500 \
      --device cuda --db "$db" --json 2>&1 | tail -n 1
  done
  build-gpu/bench/bench_transformer 20 0 cuda
} 2>&1 | tee "$out/device_check.log"
