#!/usr/bin/env bash
# Run THERE (the lent GPU machine), after scripts/gpu/fetch_debs.sh HERE: builds the whole lab
# against the machine's own PyTorch (scripts/gpu/build_lab.sh), then on CUDA: the device list,
# each experiment's paper preset (shortened), the frequency study at full length batched, the
# window offscreen launching a comparison on cuda:0 (a picture of its live panels), and the
# transformer benchmark against the GPU's own matmul peak. Everything goes to $OUT (or
# ./gpu-check): device_check.log, gpu.db, window-cuda.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-gpu-check}
mkdir -p "$out"
step() { echo; echo "== $* ($(date +%T))"; }
{
  step build
  time bash scripts/gpu/build_lab.sh > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
  # shellcheck disable=SC1091
  export "$(cat build-gpu/runtime.env)"
  cli=build-gpu/app/fourierlab-cli
  db="$out/gpu.db"
  nvidia-smi --query-gpu=name,memory.total --format=csv || true
  step "device list and a missing device (exit 2 expected)"
  "$cli" run fourier-head --device cuda:7 --set epochs=1 --db "$out/refused.db" || echo "exit $?"
  step "paper presets on cuda, shortened"
  for head in linear fourier gmm; do
    "$cli" run fourier-head --preset paper-$head --set dataset=gmm2 --set epochs=20 --set eval_every=5 \
      --device cuda --db "$db" --json 2>&1 | tail -n 1
  done
  for position in rope fope alibi none; do
    # The zero-shot passkey reads 0 on the built-in text after 300 steps: 100 trials per
    # length, not the preset's 1000, keep the device minutes for training.
    "$cli" run fope --preset paper-60m --set position=$position --set steps=300 --set eval_every=300 \
      --set passkey_samples=100 --device cuda --db "$db" --json 2>&1 | tail -n 1
  done
  for variant in none fourier mexican_hat; do
    "$cli" run fourier-qk --preset paper --set variant=$variant --set steps=300 --set eval_every=300 \
      --set eval_tokens=262144 --device cuda --db "$db" --json 2>&1 | tail -n 1
  done
  for preset in paper paper-rescue; do
    "$cli" run addition --preset $preset --set steps=500 --set eval_every=500 \
      --device cuda --db "$db" --json 2>&1 | tail -n 1
  done
  step "frequency study at full length, batched, on cuda:0 (goal: under 60 s)"
  time "$cli" sweep run fourier-head --study frequencies --device cuda --db "$out/study.db" 2>&1 | tail -n 5
  step "the window offscreen: a comparison on cuda:0"
  QT_QPA_PLATFORM=offscreen timeout 600 build-gpu/app/fourierlab --db "$out/window.db" \
    --start fourier-head --compare --device cuda:0 --screenshot "$out/window-cuda.png" || echo "exit $?"
  step "bench_transformer on cuda"
  build-gpu/bench/bench_transformer 20 0 cuda
} 2>&1 | tee "$out/device_check.log"
