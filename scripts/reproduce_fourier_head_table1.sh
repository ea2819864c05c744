#!/usr/bin/env bash
# Reproduces the Fourier head paper's Table 1 with fourierlab-cli: three heads x three datasets
# x seeds (default: the paper's 1 2 3 42), two runs at a time, then prints a Markdown table of
# mean ± std (KL, MSE) and mean (smoothness) beside the paper's figures. The runs are recorded
# in their own store ($DB, default $OUT_DIR/table1.db), not the user's default one.
#   scripts/reproduce_fourier_head_table1.sh [build-dir] [seeds...]
set -euo pipefail
build=${1:-build}
shift || true
seeds=${*:-1 2 3 42}
cli="$build/app/fourierlab-cli"
out=${OUT_DIR:-$(mktemp -d)}
mkdir -p "$out"
db=${DB:-$out/table1.db}
echo "runs recorded in $db; JSON summaries in $out" >&2
jobs=()
for dataset in gaussian gmm2 beta; do
  for preset in paper-linear paper-gmm paper-fourier; do
    for seed in $seeds; do
      jobs+=("$dataset $preset $seed")
    done
  done
done
printf '%s\n' "${jobs[@]}" | xargs -P 2 -L 1 bash -c '
  "$0" run fourier-head --preset "$2" --set dataset="$1" --set seed="$3" --device cpu --threads 1 --json --db "'"$db"'" \
    2>/dev/null | tail -n 1 > "'"$out"'/$1-$2-$3.json"' "$cli"
python3 - "$out" <<'PY'
import json, glob, os, statistics, sys
runs = [json.load(open(f)) for f in glob.glob(os.path.join(sys.argv[1], "*.json"))]
paper = {("gaussian","linear"):0.170,("gaussian","gmm"):0.026,("gaussian","fourier"):0.116,
         ("gmm2","linear"):0.238,("gmm2","gmm"):0.030,("gmm2","fourier"):0.146,
         ("beta","linear"):0.234,("beta","gmm"):0.407,("beta","fourier"):0.191}
def fmt(values):
    values = [v if v is not None else float("nan") for v in values]  # JSON null = NaN/inf
    if len(values) < 2: return f"{values[0]:.3f}"
    return f"{statistics.mean(values):.3f} ± {statistics.stdev(values):.3f}"
print("| dataset | head | KL | paper KL | MSE (argmax) | MSE (expected) | smoothness | seconds/run | runs |")
print("|---|---|---|---|---|---|---|---|---|")
for d in ["gaussian", "gmm2", "beta"]:
    for h in ["linear", "gmm", "fourier"]:
        rs = [r for r in runs if r["config"]["dataset"] == d and r["config"]["head"] == h and r["status"] == "finished"]
        if not rs: continue
        m = lambda k: [r["metrics"][k] for r in rs]
        print(f"| {d} | {h} | {fmt(m('test/kl'))} | {paper[(d,h)]:.3f} | {fmt(m('test/mse_argmax'))} | "
              f"{fmt(m('test/mse_expected'))} | {statistics.mean(m('test/smoothness')):.3f} | "
              f"{statistics.mean([r['seconds'] for r in rs]):.1f} | {len(rs)} |")
PY
echo "per-run JSON summaries: $out" >&2
