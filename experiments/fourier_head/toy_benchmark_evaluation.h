// The evaluation of a toy-benchmark run: test metrics, PDF and spectrum snapshots, the probe.
// Shared by the single run and a batched group's members (through each member's own model), so
// a member's report is a single run's: same names, order, shapes and, at equal parameters,
// values.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/experiment.h"
#include "core/metrics/distribution_metrics.h"
#include "experiments/fourier_head/toy_benchmark_data.h"

namespace fl::fourier_head {

// A model's predictions for its test inputs.
struct ToyTestPredictions {
  torch::Tensor features;  // (Nte, 32): what the head sees
  torch::Tensor logQ;      // (Nte, m): log-probabilities over the bins
  torch::Tensor q;         // (Nte, m)
};
// Under NoGradGuard, in eval mode.
ToyTestPredictions predictTestSet(ToyRegressorImpl& model, const torch::Tensor& testInputs);

// The truth a prediction snapshot is drawn against, computed from the inputs its meta names:
// `prefix`/true (bin probabilities) for `prefix`/pred, `prefix`/true_grid (the density at the
// same grid points) for `prefix`/pred_grid. What a run emits and what a reader of its store
// rebuilds (the store leaves truths out). Null for any other snapshot, or one whose meta does
// not name an input per row.
std::optional<Snapshot> toyTruthOf(const ToyBenchmarkSettings& s, const Snapshot& prediction);

// Everything an evaluation needs besides the run: the bin centres, the fine grid and the
// smoothness filters, shared by all runs with `bins` bins.
class ToyEvaluation {
 public:
  static constexpr int64_t kGridPoints = 401;  // the fine grid for continuous densities

  ToyEvaluation(int64_t bins, c10::Device device);

  // The names metricRows gives its metrics, in its order.
  static const std::vector<std::string>& metricNames();

  // The test metrics, one value per test row (R), in the order a run reports them. Rows of
  // several runs may be stacked: every metric is row-wise.
  std::vector<std::pair<std::string, torch::Tensor>> metricRows(const torch::Tensor& truePmf,
                                                                const torch::Tensor& logQ,
                                                                const torch::Tensor& q,
                                                                const torch::Tensor& targets) const;

  // The snapshots of one run's evaluation: pdf/* for its first test inputs and, for the Fourier
  // head, spectrum/abs_c (kept at every step for the heatmap over training). At the end the bin
  // probabilities cover every test input, up to a cap (the exports recompute the paper's
  // metrics from them), the fine-grid densities the first ones still; the store keeps only the
  // latest pdf/* predictions and none of the truths, which follow from the inputs.
  void appendSnapshots(EvalReport& out, const ToyBenchmarkSettings& s, ToyRegressorImpl& model,
                       const ToyBenchmarkData& data, const ToyTestPredictions& predictions,
                       bool final) const;

  // The model's density for inputs "x", "y" (0 when absent) beside the true one.
  std::vector<Snapshot> probe(const ToyBenchmarkSettings& s, ToyRegressorImpl& model,
                              const std::map<std::string, double>& inputs) const;

  const torch::Tensor& centers() const { return m_centers; }

 private:
  // `prefix`/true, /pred (bin probabilities) for the given samples, whose model inputs and
  // predictions are given, and /true_grid, /pred_grid (densities on the fine grid) for the
  // first `gridRows` of them.
  std::vector<Snapshot> pdfSnapshots(const std::string& prefix, const ToyBenchmarkSettings& s,
                                     ToyRegressorImpl& model, const std::vector<ToySample>& samples,
                                     const torch::Tensor& inputs, const torch::Tensor& q,
                                     int64_t gridRows) const;
  Snapshot spectrumSnapshot(const ToyBenchmarkSettings& s, ToyRegressorImpl& model,
                            const torch::Tensor& features) const;

  c10::Device m_device;
  torch::Tensor m_centers;  // (m), on the device
  torch::Tensor m_grid;     // (kGridPoints) on [-1, 1], CPU
  metrics::SmoothnessMetric m_smoothness;
};

}  // namespace fl::fourier_head
