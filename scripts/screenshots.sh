#!/bin/sh
# Takes the README's screenshots of the lab under Xvfb, at 1280x720 and 1920x1080: a run's
# dashboard, a comparison (also with both docks rolled up to their bars), the study view of
# Table 1 and of the frequency figure, and History; and the README's first picture, the demo
# that scripts/run.sh starts, trained afresh offscreen at 1920x1080 (docs/screenshot-compare.png).
# The studies are shortened (fewer epochs and samples) so they train in a few minutes on two
# cores; the pictures show the layout, not the paper's numbers (those are in the README's
# study section). WORK=folder holding a lab.db with both studies (e.g. a copy of a store where
# they ran at full length) takes its pictures from that store instead. Needs xvfb, x11-utils
# (xdpyinfo) and imagemagick (apt-get install xvfb x11-utils imagemagick) and a build.
#
#   scripts/screenshots.sh            # writes docs/screenshot-*-1280x720.png and -1920x1080.png
#   SIZES=1920x1080 SHOT_DELAY=20 scripts/screenshots.sh   # one size, a shorter wait
set -eu
cd "$(dirname "$0")/.."
CLI=build/app/fourierlab-cli
GUI=build/app/fourierlab
WORK=${WORK:-/tmp/fourierlab-screenshots}
DB=$WORK/lab.db
mkdir -p "$WORK"
if [ ! -f "$DB" ]; then
  "$CLI" sweep run fourier-head --study table1 --set epochs=20 --db "$DB"
  "$CLI" sweep run fourier-head --study frequencies --set epochs=10 --set samples=1000 --db "$DB"
fi
# The runs of Table 1 on gmm2 with seed 1 (the Fourier head at N = 12, gamma 0, and the two
# baselines): one opened alone, the three compared; the studies by name.
# Only Table 1's runs: the frequency study has runs of the same settings (N = 12, gamma 0).
TABLE1_RUNS="SELECT r.id, r.config FROM runs r JOIN study_cells c ON c.run_id = r.id
             JOIN studies s ON s.id = c.study_id WHERE s.name = 'table1'"
query() {
  python3 -c "import json, sqlite3, sys; db = sqlite3.connect(sys.argv[1]); TABLE1_RUNS = sys.argv[2]
$1" "$DB" "$TABLE1_RUNS"
}
ids=$(query '
runs = [(i, json.loads(c)) for i, c in db.execute(TABLE1_RUNS)]
table1 = lambda c: c["head"] != "fourier" or (c.get("frequencies") == 12 and c.get("gamma") == 0)
runs = [(i, c) for i, c in runs if c.get("dataset") == "gmm2" and c.get("seed") == 1 and table1(c)]
print(",".join(str(i) for i, c in sorted(runs, key=lambda r: r[1]["head"] != "fourier")))')
single=${ids%%,*}
# Table 1's gmm2 runs over all four seeds, to draw grouped by setting (each head's mean ± sd).
seeds=$(query '
runs = [(i, json.loads(c)) for i, c in db.execute(TABLE1_RUNS)]
table1 = lambda c: c["head"] != "fourier" or (c.get("frequencies") == 12 and c.get("gamma") == 0)
print(",".join(str(i) for i, c in runs if c.get("dataset") == "gmm2" and table1(c)
               and c.get("samples") == 5000))')
table1=$(query 'print(db.execute("SELECT id FROM studies WHERE name = ?", ("table1",)).fetchone()[0])')
frequencies=$(query 'print(db.execute("SELECT id FROM studies WHERE name = ?", ("frequencies",)).fetchone()[0])')

. scripts/screenshot_shot.sh

settings=
for size in ${SIZES:-1280x720 1920x1080}; do
  shot "$size" dashboard --open "$single"
  shot "$size" compare --open "$ids"
  # The same comparison with both docks rolled up to their bars: the plots take the window.
  settings='[General]\ncollapsedDocks=configure, runs\n'
  shot "$size" compare-docks-rolled-up --open "$ids"
  settings='[General]\ngroupBy=setting\n'
  shot "$size" compare-grouped --open "$seeds"
  settings=
  shot "$size" study-table1 --study "$table1"
  shot "$size" study-frequencies --study "$frequencies"
  shot "$size" history --history
done

# The demo as scripts/run.sh starts it, pictured once its runs have ended (a fresh store each
# time, so its run numbers, and so their colours, are the first user's).
rm -rf "$WORK/demo.db" "$WORK/demo.db.files" "$WORK/config-demo"
XDG_CONFIG_HOME="$WORK/config-demo" QT_QPA_PLATFORM=offscreen "$GUI" --db "$WORK/demo.db" \
  --start fourier-head --preset demo --compare --screenshot docs/screenshot-compare.png
