// The `fourier-head` experiment: the Fourier head paper's toy benchmark (docs/papers.md,
// "Fourier head").
// Declares its parameters (with the paper's defaults), its dashboard panels, its presets (with
// the paper's Table 1 as reference values) and the probe inputs x, y.
#pragma once

#include "core/engine/experiment.h"

namespace fl::fourier_head {

class FourierHeadExperiment : public Experiment {
 public:
  std::string name() const override { return "fourier-head"; }
  std::string title() const override { return "Fourier head: toy conditional densities"; }
  std::string description() const override;
  std::vector<ParamSpec> params() const override;
  std::vector<PanelSpec> panels() const override;
  std::vector<Preset> presets() const override;
  std::vector<study::StudySpec> studies() const override;
  // One thread on the CPU: its ops (batch 32, width 64) are too small to split
  // (bench_fourier_head). On an accelerator, as many as the budget gives: a group steps there and
  // evaluates its members on the host side by side (240 in one group of the frequency study).
  int usefulThreads(const nlohmann::json& config) const override;
  // The true densities beside a stored prediction (toyTruthOf): the store leaves them out.
  std::vector<Snapshot> rebuiltSnapshots(const nlohmann::json& config,
                                         const Snapshot& stored) const override;
  std::vector<ProbeInput> probeInputs() const override;
  // Epochs of ceil(train samples / batch_size) steps (the last batch is short, never dropped).
  // No tokens: the model reads coordinates.
  std::optional<double> stepsPerEpoch(const nlohmann::json& config) const override;
  std::vector<Variant> comparisonVariants() const override {
    // The paper's comparison: the linear baseline against Fourier heads of growing N. The
    // paper's N = 12 is shown first: its spectrum and PDF are what the comparison is about.
    return {{"linear", {{"head", "linear"}}},
            {"fourier N=4", {{"head", "fourier"}, {"frequencies", 4}}},
            {"fourier N=12", {{"head", "fourier"}, {"frequencies", 12}}, /*shownFirst=*/true},
            {"fourier N=20", {{"head", "fourier"}, {"frequencies", 20}}}};
  }
  std::optional<SelectionMetric> selectionMetric() const override {
    return SelectionMetric{"test/kl", /*lowerIsBetter=*/true};
  }
  // The same six test metrics for every head and dataset.
  std::optional<std::vector<std::string>> recordedMetrics(
      const nlohmann::json& config) const override;
  std::unique_ptr<Trial> createTrial(const TrialContext& context) const override;
  // Runs whose shapes agree (head, N or G, bins, batch size, epochs, samples, test fraction) on
  // the CPU train as one BatchedFourierHeadProgram (a study's batched group).
  std::string groupDifference(const nlohmann::json& a, const nlohmann::json& b) const override;
  std::optional<std::string> groupKey(const nlohmann::json& config) const override;
  std::unique_ptr<BatchedTrial> createGroup(
      const std::vector<TrialContext>& members) const override;
};

}  // namespace fl::fourier_head
