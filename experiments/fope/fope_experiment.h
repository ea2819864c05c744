// Experiment `fope`: length generalisation of position encodings (NoPE, learned, RoPE, ALiBi,
// FoPE) in a small char-level transformer (Hua et al., arXiv 2412.17739; docs/papers.md, "FoPE").
#pragma once

#include "core/engine/experiment.h"

namespace fl::fope {

class FopeExperiment : public Experiment {
 public:
  std::string name() const override { return "fope"; }
  std::string title() const override { return "FoPE: length generalisation"; }
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
  // Perplexity at each evaluation length, the passkey scores where it is tested and, for the
  // rotary encodings, each layer's spectral purity.
  std::optional<std::vector<std::string>> recordedMetrics(
      const nlohmann::json& config) const override;
  std::unique_ptr<Trial> createTrial(const TrialContext& context) const override;
};

}  // namespace fl::fope
