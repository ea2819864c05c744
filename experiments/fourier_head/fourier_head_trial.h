// FourierHeadTrial: one run of the toy benchmark. Generates the seeded data set, trains the
// paper's MLP with the chosen head with Adam, and evaluates KL, both MSEs and smoothness on the
// test split, with PDF and spectrum snapshots for the live plots. Its data, model, evaluation
// and checkpoint are the toy_benchmark_* pieces, which a batched group's members share
// (batched_fourier_head_program.h).
#pragma once

#include <memory>
#include <random>
#include <vector>

#include "core/engine/experiment.h"
#include "core/optim/flat_adam.h"
#include "experiments/fourier_head/toy_benchmark_data.h"
#include "experiments/fourier_head/toy_benchmark_evaluation.h"
#include "experiments/fourier_head/toy_benchmark_settings.h"

namespace fl::fourier_head {

class FourierHeadTrial : public Trial {
 public:
  // Builds the model from LibTorch's global generator: construct it inside the run's
  // SeededScope (the Runner does).
  FourierHeadTrial(const ToyBenchmarkSettings& settings, c10::Device device, uint64_t seed);

  TrialPlan plan() const override;
  StepLoss trainStep(int64_t stepIndex) override;
  void evaluate(int64_t stepsDone, bool final, EvalReport& out) override;
  std::vector<Snapshot> probe(const std::map<std::string, double>& inputs) override;
  bool supportsCheckpoints() const override { return true; }
  void saveCheckpoint(const std::string& path) const override;
  void loadCheckpoint(const std::string& path) override;

  static constexpr int64_t kGridPoints = ToyEvaluation::kGridPoints;

  // The model's parameters, flat in FlatAdam's order (what a checkpoint's "parameters" holds).
  torch::Tensor flatParameters() const { return m_optimizer->state().parameters; }

 private:
  ToyBenchmarkSettings m_settings;
  c10::Device m_device;
  std::mt19937_64 m_shuffleRng;
  ToyBenchmarkData m_data;
  ToyEvaluation m_evaluation;
  torch::Tensor m_permutation;  // this epoch's order of the training set, on device

  ToyRegressor m_model{nullptr};
  std::unique_ptr<optim::FlatAdam> m_optimizer;
  int64_t m_stepsPerEpoch = 0;
};

}  // namespace fl::fourier_head
