#!/usr/bin/env bash
# Run THERE (the lent GPU machine), after scripts/gpu/prepare_carry.sh HERE, as one device call
# carrying [.debs, .gpu-carry]:
#
#   scripts/gpu/device_check.sh [SECONDS] [CHECK...]
#
# Builds what the checks need against the machine's own PyTorch (scripts/gpu/build_lab.sh, into
# BUILD_DIR, default build-gpu/; a no-op when already built, as on a second call to a warm
# machine), then runs the checks in this order, the most telling first:
#   devices      the device list, and a device that is not there refused (exit 2)
#   graphs       a transformer's training steps replayed as CUDA graphs against its eager steps
#                (tests/test_captured_loss_step.cpp and tests/test_device.cpp on the GPU)
#   throughput   FourierLab and the FourierQK author's script at the paper's shape, side by side,
#                FourierLab's steps as graphs and eager (with the host op profile and the device
#                kernel profile of one step), and the paper's model at a shape whose kernels cost
#                nothing (the host's share of a step)
#   frequencies  the frequency study at full length, batched on cuda (goal: under 60 s)
#   frequencies-cpu  the same batched on the machine's CPU cores, for comparison
#   window       the window, offscreen, launching a comparison on cuda:0; a picture of its panels
#   presets      each experiment's paper preset on cuda, shortened
# A device call lasts 600 s at most and the whole session has 15 minutes of device time, so each
# check has its own time limit and all of them one deadline, SECONDS after the start (default
# 540): a check that would overrun is stopped, one that no longer fits is skipped, and the log
# says which. A check that fails is reported and the next one runs.
#
# Everything goes to $OUT (or ./gpu-check): device_check.log, build.log, window-cuda.png.
# DEVICE (default cuda) trains elsewhere: DEVICE=cpu tries the script itself on a machine
# without a GPU.
set -uo pipefail
cd "$(dirname "$0")/../.."
deadline=$((SECONDS + ${1:-540}))
shift || true
wanted=" ${*:-devices graphs throughput frequencies frequencies-cpu window presets} "
export build=${BUILD_DIR:-build-gpu} out=${OUT:-gpu-check} device=${DEVICE:-cuda}
mkdir -p "$out"
work=/tmp/fourierlab-check  # the stores: only the log and the picture travel back
mkdir -p "$work"

# check NAME LIMIT COMMAND: runs the shell COMMAND for at most LIMIT seconds (fewer when the
# deadline is nearer) and reports how it ended and how long it took.
check() {
  local name=$1 limit=$2 command=$3 left=$((deadline - SECONDS)) start rc
  [[ $wanted == *" ${name%%:*} "* ]] || return 0
  if ((left < 15)); then
    echo "== $name: skipped, ${left} s left before the deadline"
    return 0
  fi
  ((limit <= left)) || limit=$left
  echo
  echo "== $name (at most ${limit} s, $(date +%T))"
  start=$(date +%s.%N)
  timeout -k 10 "$limit" bash -c "$command"
  rc=$?
  echo "-- $name: exit $rc$( ((rc == 124)) && echo ' (stopped at its time limit)') after" \
    "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
}

{
  echo "== machine ($(date -u +%FT%TZ))"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c 'import torch; print("PyTorch", torch.__version__, "CUDA", torch.version.cuda)'
  # The build leaves two minutes for the checks (at least one for itself: a no-op build, when a
  # second call finds build-gpu/ built, takes seconds).
  build_limit=$((deadline - SECONDS - 120))
  ((build_limit >= 60)) || build_limit=60
  echo "== build (at most $build_limit s, $(date +%T))"
  start=$SECONDS
  if ! timeout $build_limit bash scripts/gpu/build_lab.sh fourierlab fourierlab-cli \
    bench_transformer bench_fourier_head bench_group_runner test_captured_loss_step test_device \
    > "$out/build.log" 2>&1; then
    tail -40 "$out/build.log"
    echo "-- build failed after $((SECONDS - start)) s; nothing else can run"
    exit 1
  fi
  echo "-- build: done in $((SECONDS - start)) s"
  grep -h -e "LibTorch [0-9]" -e "CUDA graphs" "$out/build.log" | sed 's/^-- /   /'
  # The lab's programs find Qt in the prefix; the author's script runs on the machine's own
  # Python libraries (without LD_LIBRARY_PATH, which would hand it Debian's older ones).
  set -a
  # shellcheck disable=SC1091
  source "$build/runtime.env"
  set +a
  export cli=$build/app/fourierlab-cli work

  check "devices: the list" 30 '"$cli" devices'
  check "devices: cuda:7 refused (exit 2 expected)" 30 \
    '"$cli" run fourier-head --device cuda:7 --set epochs=1 --db "$work/refused.db"'

  # Each test prints its verdict per function: a SKIP there means the tests saw no GPU.
  check "graphs: captured training steps against eager steps on cuda" 60 \
    '"$build/tests/test_captured_loss_step" && "$build/tests/test_device"'

  check "throughput: FourierLab at the FourierQK paper shape (batch 64, T 256, bf16)" 90 \
    '"$build/bench/bench_transformer" 20 0 "$device" --cases qk-b64/none,qk-b64/fourier \
       --kernels graph,eager --profile'
  check "throughput: the author's script at the same shape (float32)" 120 \
    'env -u LD_LIBRARY_PATH PYTHONUNBUFFERED=1 python3 bench/fourier_qk_author_throughput.py \
       .gpu-carry/train_freq_ablation_fixed.py .gpu-carry/tinyshakespeare.txt'
  check "throughput: the host's share of a step (the paper's model, kernels of next to nothing)" 40 \
    '"$build/bench/bench_transformer" 0 0 "$device" --cases qk-host --kernels graph,eager'

  check "frequencies: a group's step on cuda, 24 and 240 runs per group" 60 \
    '"$build/bench/bench_fourier_head" 1000 --device "$device"'
  # What the group's thread adds to every step on this machine's CPU (the runner, the reporters
  # and the store; no device): to set against the step's graph time above.
  check "frequencies: the host's time per group step around a step that costs nothing" 30 \
    '"$build/bench/bench_group_runner" 240 100'
  # Batched on the device (a CUDA graph per group of equal shapes); the first runs' start lines
  # say how their group steps, the rest of them are left out.
  check "frequencies: the study at full length on cuda, batched (goal under 60 s)" 150 \
    '"$cli" sweep run fourier-head --study frequencies --device "$device" --db "$work/study.db" 2>&1 |
       awk "/ start run /{ if (n++ < 3) print; fflush(); next } { print; fflush() }"'
  # For comparison on the same machine: batched on its CPU cores (the hand-written kernels).
  check "frequencies-cpu: the study at full length, batched on the CPU cores" 120 \
    '"$cli" sweep run fourier-head --study frequencies --device cpu --db "$work/study-cpu.db" 2>&1 |
       grep --line-buffered -E "^(study|batched|budget)|finished, [0-9]+ failed"'

  check "window: a comparison on cuda:0, offscreen (the demo preset, 60 epochs)" 90 \
    'QT_QPA_PLATFORM=offscreen "$build/app/fourierlab" --db "$work/window.db" --start fourier-head \
       --preset demo --compare --device "$device" --screenshot "$out/window-cuda.png"'


  # Shortened presets, the quickest first; each JSON summary holds the run's seconds and metrics.
  check "presets: fourier-head paper-linear, paper-fourier, paper-gmm (20 epochs)" 60 \
    'for head in linear fourier gmm; do
       "$cli" run fourier-head --preset paper-$head --set dataset=gmm2 --set epochs=20 \
         --set eval_every=5 --device "$device" --db "$work/presets.db" --json 2>&1 | tail -n 1
     done'
  check "presets: fourier-qk paper, each filter (300 steps)" 90 \
    'for variant in none fourier mexican_hat; do
       "$cli" run fourier-qk --preset paper --set variant=$variant --set steps=300 \
         --set eval_every=300 --set eval_tokens=262144 --device "$device" --db "$work/presets.db" \
         --json 2>&1 | tail -n 1
     done'
  check "presets: addition paper and paper-rescue (500 steps)" 90 \
    'for preset in paper paper-rescue; do
       "$cli" run addition --preset $preset --set steps=500 --set eval_every=500 --device "$device" \
         --db "$work/presets.db" --json 2>&1 | tail -n 1
     done'
  # The zero-shot passkey reads 0 on the built-in text after 300 steps: 100 trials per length,
  # not the preset's 1000, keep the device minutes for training.
  check "presets: fope paper-60m, each position encoding (300 steps)" 180 \
    'for position in rope fope alibi none; do
       "$cli" run fope --preset paper-60m --set position=$position --set steps=300 \
         --set eval_every=300 --set passkey_samples=100 --device "$device" --db "$work/presets.db" \
         --json 2>&1 | tail -n 1
     done'
  echo
  echo "== done at $(date +%T), $((deadline - SECONDS)) s before the deadline"
} 2>&1 | tee "$out/device_check.log"
