// StudySpec: a paper's whole sweep as one declared object. An experiment, a base config (preset
// + overrides), axes and seeds; optionally several arms (e.g. the Fourier head over N and gamma,
// beside the linear and GMM baselines without those axes), the paper's reference values, and
// how to read it (the table's rows and columns, the figures' axes).
//
// The same object comes from a study file (--study-file), a built-in study (beside an
// experiment's presets, e.g. experiments/fourier_head/studies/table1.json) or the command line
// (--grid / --zip / --seeds). JSON, with axes in the order they are written:
//
//   {"name": "frequencies", "experiment": "fourier-head", "preset": "", "set": {"epochs": 500},
//    "grid": {"dataset": ["gaussian", "gmm2", "beta"]},
//    "seeds": [1, 2, 3, 42],
//    "arms": [{"name": "fourier", "set": {"head": "fourier"},
//              "grid": {"frequencies": [2, 4, 6], "gamma": [0, 1e-6]}},
//             {"name": "linear", "set": {"head": "linear"}}],
//    "zip": [{"frequencies": [2, 4], "gaussians": [1, 2]}],   // axes that vary together
//    "references": {"source": "...", "stat": "last",
//                   "rows": [{"where": {"dataset": "gmm2", "head": "linear"},
//                             "values": {"test/kl": [0.238, 0.032]}}]},
//    "claims": [{"text": "...", "metric": "val/ppl@256", "over": "val/ppl@64",
//                "better": "lower", "a": {"position": "fope"}, "b": {"position": "rope"}}],
//    "table": {"rows": "dataset", "cols": "head", "metrics": ["test/kl"]},
//    "figures": [{"x": "frequencies", "metrics": ["test/kl"], "group": "gamma",
//                 "panel": "dataset", "band": "half", "x_title": "...", "y_titles": {...}}]}
//
// Torch-free: the GUI's widgets read specs too.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace fl::study {

// A parameter and the values it takes in the study.
struct Axis {
  std::string key;
  std::vector<nlohmann::json> values;
};

// Axes that vary together: setting i takes the i-th value of every axis (equal lengths).
struct ZipGroup {
  std::vector<Axis> axes;
};

// One part of a study, with its own overrides and axes on top of the study's own.
struct StudyArm {
  std::string name;
  nlohmann::json overrides = nlohmann::json::object();
  std::vector<Axis> grid;
  std::vector<ZipGroup> zips;
};

// A published mean and, when the paper gives one, its spread.
struct ReferenceValue {
  double mean = 0;
  std::optional<double> std;
  std::optional<int> seeds;  // how many seeds the paper's mean is over (references.seeds)
};

// The published figures for the cells whose config has every `where` value.
struct ReferenceRow {
  nlohmann::json where = nlohmann::json::object();
  std::map<std::string, ReferenceValue> values;  // metric -> value
};

struct StudyReferences {
  std::string source;
  // "last": a run's final value is compared; "min": its best (lowest) value, for papers that
  // report the best evaluation.
  std::string stat = "last";
  // The paper's seed count behind every value, when it says (its means are judged as means of
  // that many runs: core/study/agreement.h).
  std::optional<int> seeds;
  std::vector<ReferenceRow> rows;
};

// What a paper says about two of its settings, to be judged over seeds: "FoPE's perplexity at
// 4x the training length is lower than RoPE's". `a` and `b` pick the settings by axis values;
// `over` judges the per-run ratio metric / over instead (growth from the training length);
// `bMetric` reads another metric on side b ("accuracy without the MLPs' low frequencies is lower
// than without attention's high ones", both sides the same runs). "similar" claims the two
// means differ by at most `within`.
struct StudyClaim {
  std::string text;
  std::string metric;
  std::string over;
  std::string better;  // "lower", "higher" or "similar": what the claim says of a against b
  nlohmann::json a = nlohmann::json::object();
  nlohmann::json b = nlohmann::json::object();
  std::string bMetric;  // empty: side b reads `metric` too
  double within = 0;    // for "similar": the largest difference the claim allows

  const std::string& metricOfB() const { return bMetric.empty() ? metric : bMetric; }
};

struct TableLayout {
  std::string rows;  // an axis; empty: every axis but `cols`
  std::string cols;  // an axis; empty: one value column
  std::vector<std::string> metrics;
};

// The x of a figure drawn against the number in its metrics' names: with x "@", a metric stands
// for its family (val/ppl@64 or val/ppl@* for val/ppl@64, @128, ...), drawn against the number
// after the '@' (the evaluation length): FoPE's perplexity against length, one line per
// encoding. With any other x, a family (val/ppl@*) is refused: it is many metrics.
inline constexpr const char* kMetricSuffixX = "@";

struct FigureLayout {
  std::string name;
  std::string title;
  std::string x;  // the axis on the horizontal axis, or kMetricSuffixX
  std::vector<std::string> metrics;
  std::string group;          // one line per value of this axis ("" : one line)
  std::string panel;          // one row of panels per value of this axis ("" : one row)
  std::string band = "half";  // std | half | minmax | none
  std::string xTitle;
  std::map<std::string, std::string> yTitles;  // metric -> axis title with units
  // metric -> the least and greatest values it can take (a KL: 0 and +inf, an accuracy: 0 and
  // 1): a band or error bar of mean ± std reaching past them is cut there, as the run panels cut
  // theirs.
  std::map<std::string, std::pair<double, double>> yBounds;
  bool logX = false;
  bool categoricalX = false;  // equal spacing in the order given (e.g. gamma = 0, 1e-6, 1e-5)
  nlohmann::json where = nlohmann::json::object();  // only cells with these axis values
};

struct StudySpec {
  std::string name;
  std::string title;
  std::string description;
  std::string experiment;
  std::string preset;
  nlohmann::json overrides = nlohmann::json::object();  // "set"
  std::vector<Axis> grid;
  std::vector<ZipGroup> zips;
  std::vector<StudyArm> arms;  // empty: the study is one arm
  std::vector<int64_t> seeds;  // empty: the config's own seed
  std::optional<StudyReferences> references;
  std::vector<StudyClaim> claims;
  std::optional<TableLayout> table;
  std::vector<FigureLayout> figures;

  nlohmann::ordered_json toJson() const;
  // Throws std::invalid_argument naming the field: "grid.dataset: must be a non-empty array".
  static StudySpec fromJson(const nlohmann::ordered_json& j);
  static StudySpec fromText(const std::string& jsonText);  // parse errors say line and column
};

// Number of runs the spec expands to (arms x grid x zips x seeds), without expanding it.
// Saturates instead of overflowing, so a huge product is still refused cleanly.
uint64_t countRuns(const StudySpec& spec);

// What a study sets on its base config and what it varies, in one line, so that two studies of
// one name (Table 1 at the paper's settings, and shortened to try it) read apart in a list:
// "preset tiny, steps=100 eval_tokens=2048, grid head=linear,fourier, seeds 1, 2"; "" when it
// sets nothing.
std::string settingsText(const StudySpec& spec);

}  // namespace fl::study
