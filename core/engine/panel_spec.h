// PanelSpec: a plot an experiment declares for its dashboard. The GUI builds the dashboard from
// these declarations, so a new experiment needs no GUI code; `series` names the metric keys or
// snapshot names that feed the panel.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace fl {

enum class PanelKind {
  MetricLines,       // one curve per metric key over steps
  SnapshotCurves,    // rows of 1-D/2-D snapshots drawn as curves over their last axis
  SnapshotBars,      // a 1-D snapshot as bars (e.g. |c_k| per frequency)
  SnapshotHeatmap,   // a 2-D snapshot as an image (e.g. coefficient matrices)
  HeatmapOverSteps,  // a 1-D snapshot stacked over steps: step x index (spectrum evolution)
  Probe,             // the interactive probe: sliders for the inputs, curves for the answer
  Verdict,           // a judgement in words from the latest snapshot's meta (e.g. LEAKS)
};

std::string toString(PanelKind kind);

// Series conventions the dashboard understands:
// - a MetricLines series ending in '*' is a prefix: "val/ppl@*" shows every key that starts
//   with "val/ppl@" (their number depends on the config, e.g. one per evaluation length);
// - a snapshot's meta may carry "row_labels" (one name per leading row: a curve per row is drawn
//   in SnapshotCurves, a selector offered in SnapshotHeatmap), "labels" (category names for the
//   last axis, e.g. ablation bars), "x_marks" ([{"at", "label"}]: dashed lines at named places
//   of the x axis in SnapshotCurves and SnapshotHeatmap, e.g. the paper's periods) and, for
//   Verdict panels, "verdict" (short text), "ok" (bool) and "detail" (a sentence).
struct PanelSpec {
  std::string id;
  std::string title;
  PanelKind kind = PanelKind::MetricLines;
  std::vector<std::string> series;
  std::string xLabel;
  std::string yLabel;
  bool logY = false;
  std::string help;
  // MetricLines series drawn only when the reader asks (the panel's context menu): a variant
  // that doubles every curve and legend row (test/kl_exact beside test/kl) without saying
  // more most of the time.
  std::vector<std::string> onRequest = {};
  // Bounds the value axis never leaves (an accuracy is 0..1): a flat curve at 0 reads as 0,
  // not as the middle of -1..1. Both NaN: the data decide.
  double yFloor = std::numeric_limits<double>::quiet_NaN();
  double yCeiling = std::numeric_limits<double>::quiet_NaN();
  // SnapshotCurves: what the legend calls each of `series`, in order ("accuracy", "95% low"),
  // where a snapshot's name would say it at length; empty: the names themselves.
  std::vector<std::string> seriesLabels = {};
  // MetricLines: a value that holds until the next sample (a count of runs) is drawn as steps;
  // a sloped line between 1 and 2 read as 1.5 runs halfway.
  bool stepwise = false;
};

}  // namespace fl
