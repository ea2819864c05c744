// The settings of one toy-benchmark run and the model they describe, shared by the single run
// (FourierHeadTrial) and the batched group (BatchedFourierHeadProgram), so both build the same
// model from the same seed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/nn/distribution_head.h"
#include "experiments/fourier_head/toy_datasets.h"
#include "experiments/fourier_head/toy_regressor.h"

namespace fl::fourier_head {

// The GMM head's number of Gaussians in the paper's experiments: 1 on gaussian, 2 on gmm2 and
// beta (what `gaussians = 0` in a config stands for).
int64_t officialGaussians(ToyDataset dataset);

// The settings a trial reads from its validated config.
struct ToyBenchmarkSettings {
  ToyDataset dataset = ToyDataset::Gmm2;
  std::string head = "fourier";
  int64_t frequencies = 12;
  double gamma = 0;
  int64_t gaussians = 2;  // resolved: never 0 here
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

// The run's model, initialised from LibTorch's global generator: call it inside the run's
// SeededScope (the Runner's, or one of your own), with nothing drawn from the generator before.
ToyRegressor makeToyModel(const ToyBenchmarkSettings& s);

}  // namespace fl::fourier_head
