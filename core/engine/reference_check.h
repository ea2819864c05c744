// Compares a finished run's metrics with the published figures a preset carries
// (Preset::reference): {"source": "...", "by": "dataset", "values": {"gmm2": {"test/kl":
// [mean, std]}}}. "by" names the config key that selects the row; "stat": "min" compares the
// best (lowest) value the run reached instead of its last, for papers that report the best
// evaluation; "seeds" is how many runs the paper's means are over, where it says.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/param_spec.h"

namespace fl {

struct ReferenceVerdict {
  std::string preset;  // whose reference, when found through checkAgainstPresets
  std::string metric;
  double paperMean = 0;
  std::optional<double> paperStd;  // absent when the paper gives no spread
  double value = 0;
  // |value - mean| <= oneRunBound; without a spread, no verdict.
  std::optional<bool> withinSpread;
  double bound = 0;
  // "test/kl 0.179 vs paper 0.146 ± 0.033: within the paper's spread (|Δ| 0.033 <= 0.074)"
  std::string text;
};

// How far one run may sit from a paper's mean of `paperSeeds` runs and still read as one of its
// runs: 2 SE of the difference, SE = std * sqrt(1 + 1/n), the run's own spread taken as the
// paper's (the rule a study's table uses, with one run of ours); with the seed count unknown,
// 2 std. Within mean ± std alone, a faithful run was called outside about a third of the time.
double oneRunBound(double paperStd, std::optional<int> paperSeeds);

// The version of the rule and the words of a verdict against the paper: raised whenever either
// changes, so that a store's verdicts written by an older build are judged again
// (core/engine/paper_verdict_restate.h). 2: 2 SE of one run, "(|Δ| 0.033 <= 0.074)" with
// figuresApart's places.
inline constexpr int kPaperVerdictRuleVersion = 2;

// `last` holds each metric's final value, `lowest` its minimum (used by "stat": "min"; falls
// back to `last` when a metric is missing there).
std::vector<ReferenceVerdict> checkAgainstReference(
    const nlohmann::json& reference, const nlohmann::json& config,
    const std::map<std::string, double>& last, const std::map<std::string, double>& lowest = {});

// Does `config` train what a preset with these overrides trains? Every parameter must equal
// the preset's value (its override or the default) except `rowKey` (the reference's "by"),
// the run settings (seed, device, checkpoints) and the evaluation settings.
// `files`: paperFiles of the preset's reference.
bool isPresetConfig(const std::vector<ParamSpec>& specs, const nlohmann::json& presetOverrides,
                    const std::string& rowKey, const nlohmann::json& config,
                    const nlohmann::json& files = nlohmann::json::object());

// The files a reference's numbers were measured on, named by content: "files": {"corpus":
// {"name": "TinyShakespeare", "digest": "<fileDigest of it>"}}. A run's file parameter departs
// unless its file has that digest ("corpus none given (the paper's TinyShakespeare)"): the
// paper's default (no corpus, the built-in text) had been taken as the paper's data, and a run
// on TinyShakespeare itself departed by its path. Empty where the reference names none.
nlohmann::json paperFiles(const nlohmann::json& reference);

// The parameters in which `config` departs from the paper's complete `paperConfig`, as
// "epochs 3 (the paper's 500)", in declaration order; the run and evaluation settings, `rowKey`
// and a parameter neither config uses (ParamSpec::condition) never depart. Empty: the paper's
// experiment. The one rule for runs and studies; `whose` names the reference ("the study's" for
// a study's own declared settings).
std::vector<std::string> departuresFromPaper(
    const std::vector<ParamSpec>& specs, const nlohmann::json& paperConfig,
    const std::string& rowKey, const nlohmann::json& config,
    const std::string& whose = "the paper's",
    const nlohmann::json& files = nlohmann::json::object());

// How `config`'s evaluation settings (eval_tokens, passkey_samples, ...) differ from
// `referenceConfig`'s, in the same words. They change how precisely a run is measured, not
// what it trains: named beside a verdict, they never withhold it.
std::vector<std::string> evaluationDifferences(const std::vector<ParamSpec>& specs,
                                               const nlohmann::json& referenceConfig,
                                               const nlohmann::json& config,
                                               const std::string& whose);

// The verdicts' texts joined with "; " (empty when none).
std::string joinVerdicts(const std::vector<ReferenceVerdict>& verdicts);

// The published figures, for showing before a run: "Expected (<source>):" then one line per
// row, e.g. "gmm2: test/kl 0.146 ± 0.033, test/smoothness 0.038".
std::string describeReference(const nlohmann::json& reference);

}  // namespace fl
