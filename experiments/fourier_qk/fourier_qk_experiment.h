// Experiment `fourier-qk`: spectral filtering of queries and keys before attention (Zeris,
// 2026; docs/papers.md, "FourierQK"), with a built-in leakage detector that labels every run
// causal or LEAKS.
#pragma once

#include "core/engine/experiment.h"

namespace fl::fourier_qk {

class FourierQkExperiment : public Experiment {
 public:
  std::string name() const override { return "fourier-qk"; }
  std::string title() const override { return "FourierQK: spectral Q/K filters and leakage"; }
  std::string description() const override;
  std::vector<ParamSpec> params() const override;
  std::vector<PanelSpec> panels() const override;
  std::vector<Preset> presets() const override;
  std::vector<study::StudySpec> studies() const override;
  std::optional<SelectionMetric> selectionMetric() const override {
    return SelectionMetric{"val/loss", true};
  }
  std::vector<Variant> comparisonVariants() const override;
  std::vector<ConfigIssue> checkConfig(const nlohmann::json& config) const override;
  // Windows drawn at random from the corpus: tokens, but no epochs.
  std::optional<double> tokensPerStep(const nlohmann::json& config) const override;
  // The loss with and without the order, the leakage probes and, for filters that learn where
  // they pass, their periods.
  std::optional<std::vector<std::string>> recordedMetrics(
      const nlohmann::json& config) const override;
  std::unique_ptr<Trial> createTrial(const TrialContext& context) const override;
};

}  // namespace fl::fourier_qk
