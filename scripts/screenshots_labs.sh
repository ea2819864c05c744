#!/bin/sh
# Takes the README's pictures of the three transformer labs under Xvfb at 1920x1080, each a
# comparison of the `tiny` preset's runs opened from the store: fope (RoPE, FoPE, ALiBi, NoPE),
# fourier-qk (standard attention, `multi`, a Mexican-hat kernel) and addition (random against
# Fourier number embeddings). The runs are the README's comparison tables', trained by
# scripts/compare_transformer_labs.sh on CORPUS (TinyShakespeare for the README's): about 20
# minutes on two cores the first time, into WORK/labs.db; later calls reuse that store. Each
# picture shows the run the caption is about (FoPE, multi, Fourier embeddings), the others
# overlaid. Needs xvfb, x11-utils, imagemagick and a build, as scripts/screenshots.sh does.
#
# It also takes the logit-lens panels of a tiny rescued addition model (Fourier number
# embeddings, frozen, as the paper's rescue; trained once into the same store, about 3 minutes)
# from a tall screen, cut to those two rows: docs/screenshot-addition-lens.png.
#
#   scripts/screenshots_labs.sh PATH/TO/tinyshakespeare.txt   # docs/screenshot-{fope,fourier-qk,addition}-1920x1080.png
set -eu
cd "$(dirname "$0")/.."
corpus=${1:?usage: scripts/screenshots_labs.sh CORPUS}
GUI=build/app/fourierlab
WORK=${WORK:-/tmp/fourierlab-screenshots-labs}
DB=$WORK/labs.db
mkdir -p "$WORK"
if [ ! -f "$DB" ]; then
  DB=$DB QK_VARIANTS="none multi mexican_hat" OUT_DIR=$WORK/summaries \
    bash scripts/compare_transformer_labs.sh build all "$corpus" | tee "$WORK/tables.md"
fi
runs_of() {  # EXPERIMENT KEY=VALUE: its finished runs' ids, comma-separated, the one whose
  # setting KEY is VALUE first (the window shows the first run's panels, the others overlaid)
  python3 -c "import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
key, value = sys.argv[3].split('=')
runs = db.execute('SELECT id, config FROM runs WHERE experiment = ? AND status = \'finished\'',
                  (sys.argv[2],)).fetchall()
runs.sort(key=lambda r: (str(json.loads(r[1]).get(key)) != value, r[0]))
print(','.join(str(i) for i, _ in runs))" "$DB" "$1" "$2"
}

. scripts/screenshot_shot.sh

settings=
for size in ${SIZES:-1920x1080}; do
  shot "$size" fope --open "$(runs_of fope position=fope)"
  shot "$size" fourier-qk --open "$(runs_of fourier-qk variant=multi)"
  shot "$size" addition --open "$(runs_of addition embedding_init=fourier)"
done

# The lens panels are the dashboard's second and third rows: on a 1920 x 2600 screen every row
# is drawn, and the picture is cut to those two (the Configure dock and the first row left out).
rescue=$(runs_of addition embedding_frozen=True | cut -d, -f1)
frozen=$(python3 -c "import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute('SELECT json_extract(config, \'$.embedding_frozen\') FROM runs WHERE id = ?',
                 (int(sys.argv[2]),)).fetchone()[0])" "$DB" "$rescue")
if [ "$frozen" != 1 ]; then
  build/app/fourierlab-cli run addition --preset tiny --set embedding_init=fourier \
    --set embedding_frozen=true --name "tiny rescue" --db "$DB" --threads 1 >/dev/null
  rescue=$(runs_of addition embedding_frozen=True | cut -d, -f1)
fi
shot 1920x2600 addition-lens-tall --open "$rescue"
convert docs/screenshot-addition-lens-tall-1920x2600.png -crop 1566x760+342+488 +repage \
  docs/screenshot-addition-lens.png
rm docs/screenshot-addition-lens-tall-1920x2600.png
echo docs/screenshot-addition-lens.png
