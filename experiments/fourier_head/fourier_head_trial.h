// FourierHeadTrial: one run of the toy benchmark. Generates the seeded data set, trains the
// paper's MLP with the chosen head with Adam, and evaluates KL, both MSEs and smoothness on the
// test split, with PDF and spectrum snapshots for the live plots.
#pragma once

#include <memory>
#include <random>
#include <vector>


#include "core/engine/experiment.h"
#include "core/metrics/distribution_metrics.h"
#include "core/optim/flat_adam.h"
#include "experiments/fourier_head/toy_datasets.h"
#include "experiments/fourier_head/toy_regressor.h"

namespace fl::fourier_head {

// The settings a trial reads from its validated config.
struct ToyBenchmarkSettings {
  ToyDataset dataset = ToyDataset::Gmm2;
  std::string head = "fourier";
  int64_t frequencies = 12;
  double gamma = 0;
  int64_t gaussians = 12;
  int64_t bins = 50;
  int64_t samples = 5000;
  double variance = 0.01;
  double testFraction = 0.2;
  int64_t epochs = 500;
  int64_t batchSize = 32;
  double lr = 1e-3;
  int64_t evalEveryEpochs = 10;
  int64_t liveSnapshotInputs = 8;

  static ToyBenchmarkSettings fromConfig(const nlohmann::json& config);
};

std::shared_ptr<nn::DistributionHeadImpl> makeHead(const ToyBenchmarkSettings& s);

class FourierHeadTrial : public Trial {
 public:
  FourierHeadTrial(const ToyBenchmarkSettings& settings, c10::Device device, uint64_t seed);

  TrialPlan plan() const override;
  double trainStep(int64_t stepIndex) override;
  void evaluate(int64_t stepsDone, bool final, EvalReport& out) override;
  std::vector<Snapshot> probe(const std::map<std::string, double>& inputs) override;
  bool supportsCheckpoints() const override { return true; }
  void saveCheckpoint(const std::string& path) const override;
  void loadCheckpoint(const std::string& path) override;

  static constexpr int64_t kGridPoints = 401;  // the fine grid for continuous densities

 private:
  // Inputs as the model sees them: the bin indices of x and y, as floats (the paper's choice).
  torch::Tensor modelInputs(const std::vector<ToySample>& samples) const;
  // `prefix`/true, /pred (bin probabilities) and /true_grid, /pred_grid (densities on the
  // fine grid) for the given samples, whose model inputs, predictions and true PMFs are given.
  std::vector<Snapshot> pdfSnapshots(const std::string& prefix,
                                     const std::vector<ToySample>& samples,
                                     const torch::Tensor& inputs, const torch::Tensor& q,
                                     const torch::Tensor& truePmf);
  Snapshot spectrumSnapshot(const torch::Tensor& features);

  ToyBenchmarkSettings m_settings;
  c10::Device m_device;
  std::mt19937_64 m_shuffleRng;

  std::vector<ToySample> m_testSamples;
  torch::Tensor m_trainInputs;   // (Ntr, 2) float, on device
  torch::Tensor m_trainTargets;  // (Ntr) long, on device
  torch::Tensor m_testInputs;    // (Nte, 2)
  torch::Tensor m_testTargets;   // (Nte)
  torch::Tensor m_testTruePmf;   // (Nte, m)
  torch::Tensor m_centers;       // (m)
  torch::Tensor m_grid;          // (kGridPoints) on [-1, 1], CPU
  torch::Tensor m_permutation;   // this epoch's order of the training set, on device

  ToyRegressor m_model{nullptr};
  std::unique_ptr<optim::FlatAdam> m_optimizer;
  metrics::SmoothnessMetric m_smoothness;
  int64_t m_stepsPerEpoch = 0;
};

}  // namespace fl::fourier_head
