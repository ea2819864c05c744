// Experiment `addition`: watch a small transformer learn a + b with single-token numbers, and
// whether Fourier-feature number embeddings help (Zhou et al., arXiv 2406.03445;
// docs/papers.md, "Addition with Fourier features").
#pragma once

#include "core/engine/experiment.h"

namespace fl::addition {

class AdditionExperiment : public Experiment {
 public:
  std::string name() const override { return "addition"; }
  std::string title() const override { return "Addition with Fourier features"; }
  std::string description() const override;
  std::vector<ParamSpec> params() const override;
  std::vector<PanelSpec> panels() const override;
  std::vector<Preset> presets() const override;
  std::vector<study::StudySpec> studies() const override;
  std::optional<SelectionMetric> selectionMetric() const override {
    return SelectionMetric{"test/acc", false};
  }
  std::vector<Variant> comparisonVariants() const override;
  std::vector<ConfigIssue> checkConfig(const nlohmann::json& config) const override;
  // Nominal epochs of the training pairs (additionStepsPerEpoch); four tokens a problem
  // ("a + b =") times batch_size problems a step.
  std::optional<double> stepsPerEpoch(const nlohmann::json& config) const override;
  std::optional<double> tokensPerStep(const nlohmann::json& config) const override;
  // Accuracy with and without each ablation, the kinds of mistakes made under each, the
  // embedding spectrum's strongest periods and the logit lens's high-frequency shares.
  std::optional<std::vector<std::string>> recordedMetrics(
      const nlohmann::json& config) const override;
  std::unique_ptr<Trial> createTrial(const TrialContext& context) const override;
};

}  // namespace fl::addition
