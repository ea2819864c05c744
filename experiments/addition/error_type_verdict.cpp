#include "experiments/addition/error_type_verdict.h"

#include <cmath>

#include "core/engine/verdict.h"

namespace fl::addition {

namespace {

std::string percent(double share) {
  return std::to_string(static_cast<int>(std::lround(100 * share))) + "%";
}

struct Pattern {
  const char* key;
  const char* name;  // as the detail names it
  const char* kind;  // what the paper's mistakes are
  double ErrorTypes::*share;
  bool isAblation;
};

}  // namespace

std::optional<Snapshot> errorTypeVerdict(const ErrorVerdictSetting& setting,
                                         const std::vector<AblationErrors>& outcomes) {
  // Modular answers wrap, and with fewer than 30 numbers an error of 10 is most of the range.
  if (setting.modular || setting.numbers < 30) return std::nullopt;
  static const Pattern patterns[] = {
      {"lowpass_removed_mlp", "-low MLP", "off by a nonzero multiple of 10",
       &ErrorTypes::shareMultipleOf10, true},
      {"highpass_removed_attn", "-high attn", "off by less than 6", &ErrorTypes::shareSmall, true},
      {"full", "unablated, from scratch", "off by 1 or 2", &ErrorTypes::shareWithin2, false},
  };
  std::vector<std::string> parts;
  std::vector<float> shares;
  nlohmann::json labels = nlohmann::json::array();
  int judged = 0, alike = 0;
  for (const auto& pattern : patterns) {
    const AblationErrors* outcome = nullptr;
    for (const auto& o : outcomes)
      if (o.key == pattern.key) outcome = &o;
    // The paper's claim about the unablated model is for one trained from scratch.
    if (!outcome || (!pattern.isAblation && !setting.fromScratch)) continue;
    const auto& e = outcome->errors;
    std::string part = std::string(pattern.name) + ": ";
    if (pattern.isAblation && setting.testAccuracy < kAccuracyForAblationPatterns) {
      part += "not judged, the unablated model answers only " + percent(setting.testAccuracy) +
              " of the test problems";
    } else if (!pattern.isAblation && setting.testAccuracy < kAccuracyForScratchPattern) {
      part += "not judged, the model answers only " + percent(setting.testAccuracy) +
              " of the test problems (the paper's GPT-2-small from scratch: 54%)";
    } else if (pattern.isAblation && outcome->removedDirections >= setting.dModel) {
      part += "not judged, its band spans all " + std::to_string(setting.dModel) +
              " dimensions, so the filter removes the whole output";
    } else if (e.wrong < kErrorsJudgedFrom) {
      part += "not judged, " + std::to_string(e.wrong) + " wrong answers";
    } else {
      const double share = e.*pattern.share;
      const bool like = share >= 0.5;
      ++judged;
      alike += like;
      part += percent(share) + " of " + std::to_string(e.wrong) + " wrong answers " + pattern.kind +
              (like ? ", as in the paper" : ", unlike the paper (most)");
      shares.push_back(static_cast<float>(share));
      labels.push_back(pattern.name);
    }
    parts.push_back(part);
  }
  if (judged == 0) return std::nullopt;
  Snapshot s;
  s.name = "errors/verdict";
  s.shape = {static_cast<int64_t>(shares.size())};
  s.data = shares;
  s.axes = {{"pattern", "", {}}};
  s.valueLabel = "share of the wrong answers of the paper's kind";
  s.meta["labels"] = labels;
  // The headline names what it rests on where that is not every pattern: "errors as in paper"
  // over one judged pattern of three read as if all three had been, and "(1 of 3 judged)" beside
  // a model that answers 61% read as its whole verdict, not its from-scratch errors' alone.
  const int considered = static_cast<int>(parts.size());
  std::string judgedNames;
  for (const auto& label : labels)
    judgedNames += (judgedNames.empty() ? "" : ", ") + label.get<std::string>();
  s.meta[kVerdictMetaLabel] =
      std::string(alike == judged ? "errors as in paper"
                  : alike == 0    ? "errors unlike paper"
                                  : "errors partly as in paper") +
      (judged < considered
           ? " (of " + judgedNames + "; " + std::to_string(considered - judged) + " not judged)"
           : "");
  std::string detail = "a " + std::to_string(setting.layers) + "-layer, d " +
                       std::to_string(setting.dModel) +
                       " model (the paper: GPT-2-XL fine-tuned for the ablations, GPT-2-small from "
                       "scratch)";
  for (const auto& part : parts) detail += "; " + part;
  s.meta[kVerdictMetaDetail] = detail;
  s.keep = SnapshotKeep::LatestStep;
  return s;
}

}  // namespace fl::addition
