#!/usr/bin/env bash
# Runs the three transformer comparisons with fourierlab-cli at the `tiny` size (CPU minutes
# each) and prints a Markdown table per experiment:
#   fope        RoPE / FoPE / ALiBi / NoPE: perplexity and passkey accuracy at 1, 2, 4, 8 x train_len
#   fourier-qk  every Q/K filter: validation loss, shuffled gap, causality probe, learned periods
#   addition    random vs Fourier number embeddings: accuracy, top periods, filter ablations
# Runs go into a database (default build/compare.db) so the GUI can browse and overlay them.
#   scripts/compare_transformer_labs.sh [build-dir] [fope|fourier-qk|addition|all] [corpus]
# corpus: a UTF-8 text file (e.g. TinyShakespeare, see the README's Data section); empty =
# built-in text. QK_VARIANTS="none multi" runs only those fourier-qk variants (default: all seven).
set -euo pipefail
build=${1:-build}
part=${2:-all}
corpus=${3:-}
cli="$build/app/fourierlab-cli"
db=${DB:-$build/compare.db}
out=${OUT_DIR:-$(mktemp -d)}
mkdir -p "$out"
preset=${PRESET:-tiny}
threads=${THREADS:-2}
extra=()
for assignment in ${EXTRA_SETS:-}; do extra+=(--set "$assignment"); done

run() {  # run NAME EXPERIMENT --set ...
  local name=$1 experiment=$2
  shift 2
  "$cli" run "$experiment" --preset "$preset" --set corpus="$corpus" "$@" "${extra[@]}" \
    --db "$db" --threads "$threads" --tag compare --json 2>/dev/null | tail -n 1 > "$out/$name.json"
}

if [[ $part == fope || $part == all ]]; then
  for position in rope fope alibi none; do run "fope-$position" fope --set position=$position; done
fi
if [[ $part == fourier-qk || $part == all ]]; then
  for variant in ${QK_VARIANTS:-none random fourier multi gaussian mexican_hat causal_morlet}; do
    run "qk-$variant" fourier-qk --set variant=$variant
  done
fi
if [[ $part == addition || $part == all ]]; then
  corpus_backup=$corpus; corpus=""  # addition has no corpus
  for init in random fourier; do
    "$cli" run addition --preset "$preset" --set embedding_init=$init "${extra[@]}" --db "$db" \
      --threads "$threads" --tag compare --json 2>/dev/null | tail -n 1 > "$out/addition-$init.json"
  done
  corpus=$corpus_backup
fi

python3 - "$out" <<'PY'
import json, glob, os, sys
runs = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    text = open(f).read().strip()
    if text: runs[os.path.basename(f)[:-5]] = json.loads(text)
def g(r, k, fmt="{:.3f}"):
    v = r["metrics"].get(k)
    return "-" if v is None else fmt.format(v)
fope = {k: r for k, r in runs.items() if k.startswith("fope-")}
if fope:
    any_run = next(iter(fope.values()))
    t = any_run["config"]["train_len"]
    lengths = [t * int(f) for f in any_run["config"]["eval_factors"].split(",")]
    print("| position | " + " | ".join(f"ppl@{l}" for l in lengths) + " | " +
          " | ".join(f"passkey@{l}" for l in lengths) + " | seconds |")
    print("|---" * (2 * len(lengths) + 2) + "|")
    for k, r in fope.items():
        print(f"| {r['config']['position']} | " + " | ".join(g(r, f"val/ppl@{l}", "{:.2f}") for l in lengths) +
              " | " + " | ".join(g(r, f"passkey/acc@{l}", "{:.2f}") + " (" + g(r, f"passkey/digit_acc@{l}", "{:.2f}") + ")"
                                 for l in lengths) + f" | {r['seconds']:.0f} |")
    print()
qk = {k: r for k, r in runs.items() if k.startswith("qk-")}
if qk:
    print("| variant | val/loss | shuffled | leak/gap | leak/causality | verdict | learned periods (layer 0) | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for k, r in qk.items():
        verdict = r.get("verdicts", {}).get("leak/verdict", {}).get("verdict", "?")
        periods = sorted((v for m, v in r["metrics"].items() if m.startswith("qk/period_h")), reverse=True)
        print(f"| {r['config']['variant']} | {g(r,'val/loss')} | {g(r,'val/loss_shuffled')} | {g(r,'leak/gap')} | "
              f"{g(r,'leak/causality','{:.2g}')} | {verdict} | {', '.join(f'{p:.0f}' for p in periods) or '-'} | {r['seconds']:.0f} |")
    print()
add = {k: r for k, r in runs.items() if k.startswith("addition-")}
if add:
    keys = ["test/acc", "test/acc_lowpass_removed_mlp", "test/acc_highpass_removed_mlp",
            "test/acc_lowpass_removed_attn", "test/acc_highpass_removed_attn",
            "test/acc_lowpass_removed_all", "test/acc_highpass_removed_all"]
    print("| embeddings | train/acc | " + " | ".join(k.replace("test/acc_", "") if k != "test/acc" else "test/acc" for k in keys) +
          " | top periods | seconds |")
    print("|---" * (len(keys) + 4) + "|")
    for k, r in add.items():
        tops = [r["metrics"].get(f"spectrum/top{i}_period") for i in range(1, 6)]
        print(f"| {r['config']['embedding_init']} | {g(r,'train/acc')} | " + " | ".join(g(r, key) for key in keys) +
              " | " + ", ".join(f"{p:.3g}" for p in tops if p is not None) + f" | {r['seconds']:.0f} |")
PY
echo "per-run JSON summaries: $out; runs stored in $db" >&2
