#include "experiments/fourier_qk/fourier_qk_experiment.h"

#include "core/engine/preset_json.h"
#include "experiments/char_lm/char_lm_checks.h"
#include "experiments/fourier_qk/fourier_qk_settings.h"
#include "experiments/fourier_qk/fourier_qk_trial.h"
#include "experiments/fourier_qk_presets.h"  // generated from presets/*.json
#include "experiments/fourier_qk_studies.h"  // generated from studies/*.json
#include "experiments/common/training_memory.h"
#include "experiments/common/transformer_settings.h"

namespace fl::fourier_qk {

std::string FourierQkExperiment::description() const {
  return "A char-level GPT whose queries and keys are filtered along time before attention: "
         "spectral filters (random, one or several learnable frequencies per head) against "
         "causal time-domain kernels. Every evaluation probes causality directly and compares "
         "ordered with shuffled validation text, so a filter that reads the future is labelled "
         "LEAKS instead of looking like a breakthrough.";
}

std::vector<ParamSpec> FourierQkExperiment::params() const { return fourierQkParams(); }

std::vector<PanelSpec> FourierQkExperiment::panels() const {
  return {
      {"verdict",
       "Leak verdict",
       PanelKind::Verdict,
       {"leak/verdict"},
       "",
       "",
       false,
       "Causality probe: change the tokens from a random position on and watch earlier outputs"},
      {"loss",
       "Loss: ordered and shuffled validation",
       PanelKind::MetricLines,
       {"train/loss", "val/loss", "val/loss_shuffled"},
       "step",
       "cross-entropy (nats)",
       true,
       "A model that uses order loses much more on shuffled text; a small gap signals leakage"},
      {"leak",
       "Leakage probes",
       PanelKind::MetricLines,
       {"leak/gap", "leak/causality", "leak/filter_causality"},
       "step",
       "nats / relative",
       false,
       "leak/gap = shuffled - ordered validation loss; leak/causality = largest change of "
       "earlier log-probabilities when later tokens change (0 when causal); "
       "leak/filter_causality = the same for the Q/K filters alone, relative to their output"},
      {"periods",
       "Learned periods per head (layer 0)",
       PanelKind::MetricLines,
       {"qk/period_h*"},
       "step",
       "tokens per cycle",
       true,
       "train_len / f for each learned centre f"},
      {"response",
       "Filter response |phi| (layer 0)",
       PanelKind::SnapshotCurves,
       {"qk/response"},
       "frequency (cycles per window)",
       "|phi|",
       false,
       "One curve per head"},
      {"periods_by_layer",
       "Learned periods, every layer",
       PanelKind::SnapshotHeatmap,
       {"qk/periods"},
       "head",
       "layer",
       false,
       "Tokens per cycle of every learned centre"},
  };
}

std::vector<Preset> FourierQkExperiment::presets() const {
  return parsePresets(::fl::presets_json::kFourierQk);
}

std::vector<study::StudySpec> FourierQkExperiment::studies() const {
  return parseStudies(name(), ::fl::presets_json::kFourierQkStudies);
}

std::vector<Variant> FourierQkExperiment::comparisonVariants() const {
  return {{"standard", {{"variant", "none"}}},
          {"random", {{"variant", "random"}}},
          {"fourier", {{"variant", "fourier"}}},
          {"multi", {{"variant", "multi"}}},
          {"mexican hat (causal)", {{"variant", "mexican_hat"}}}};
}

std::vector<ConfigIssue> FourierQkExperiment::checkConfig(const nlohmann::json& config) const {
  // No floor clipping here: the position encodings are used as declared.
  auto issues = char_lm::checkModelAndPosition(config, /*clipFloor=*/false);
  if (auto memory = transformer_setup::checkTrainingMemory(config)) issues.push_back(*memory);
  if (auto schedule = transformer_setup::checkSchedule(config)) issues.push_back(*schedule);
  const int64_t trainLength = config.at("train_len").get<int64_t>();
  for (auto& issue : char_lm::checkCorpus(config, trainLength, "train_len"))
    issues.push_back(std::move(issue));
  for (auto& issue : checkFilterSettings(config)) issues.push_back(std::move(issue));
  return issues;
}

std::optional<double> FourierQkExperiment::tokensPerStep(const nlohmann::json& config) const {
  return static_cast<double>(char_lm::CharLmSettings::fromConfig(config).tokensPerStep());
}

std::optional<std::vector<std::string>> FourierQkExperiment::recordedMetrics(
    const nlohmann::json& config) const {
  std::vector<std::string> names{"val/loss", "val/loss_shuffled", "leak/gap", "leak/causality",
                                 "leak/filter_causality"};
  const auto s = FourierQkSettings::fromConfig(config);
  const int64_t k = learnedPeriodsPerHead(s);
  for (int64_t h = 0; h < s.lm.model.heads; ++h)
    for (int64_t c = 0; c < k; ++c) names.push_back(learnedPeriodMetric(h, c, k));
  return names;
}

std::unique_ptr<Trial> FourierQkExperiment::createTrial(const TrialContext& context) const {
  return std::make_unique<FourierQkTrial>(FourierQkSettings::fromConfig(context.config),
                                          context.device, context.seed);
}

}  // namespace fl::fourier_qk
