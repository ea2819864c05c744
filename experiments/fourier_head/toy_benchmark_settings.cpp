#include "experiments/fourier_head/toy_benchmark_settings.h"

#include <stdexcept>

#include "core/nn/fourier_head.h"
#include "core/nn/gmm_head.h"
#include "core/nn/linear_head.h"

namespace fl::fourier_head {

int64_t officialGaussians(ToyDataset dataset) {
  // toy-example-synthetic/scripts/run_exps_gmm.sh passes --n_gaussians 1 for gaussian and 2
  // for gmm2 and beta.
  return dataset == ToyDataset::Gaussian ? 1 : 2;
}

ToyBenchmarkSettings ToyBenchmarkSettings::fromConfig(const nlohmann::json& c) {
  ToyBenchmarkSettings s;
  s.dataset = parseToyDataset(c.at("dataset").get<std::string>()).value();
  s.head = c.at("head").get<std::string>();
  s.frequencies = c.at("frequencies").get<int64_t>();
  s.gamma = c.at("gamma").get<double>();
  s.gaussians = c.at("gaussians").get<int64_t>();
  if (s.gaussians == 0) s.gaussians = officialGaussians(s.dataset);
  s.bins = c.at("bins").get<int64_t>();
  s.samples = c.at("samples").get<int64_t>();
  s.variance = c.at("variance").get<double>();
  s.testFraction = c.at("test_fraction").get<double>();
  s.epochs = c.at("epochs").get<int64_t>();
  s.batchSize = c.at("batch_size").get<int64_t>();
  s.lr = c.at("lr").get<double>();
  s.evalEveryEpochs = c.at("eval_every").get<int64_t>();
  s.liveSnapshotInputs = c.at("snapshot_inputs").get<int64_t>();
  return s;
}

std::shared_ptr<nn::DistributionHeadImpl> makeHead(const ToyBenchmarkSettings& s) {
  const int64_t in = ToyRegressorImpl::kFeatures;
  if (s.head == "linear") return std::make_shared<nn::LinearHeadImpl>(in, s.bins);
  if (s.head == "fourier")
    return std::make_shared<nn::FourierHeadImpl>(
        nn::FourierHeadOptions(in, s.bins, s.frequencies).gamma(s.gamma));
  if (s.head == "gmm")
    return std::make_shared<nn::GmmHeadImpl>(nn::GmmHeadOptions(in, s.bins, s.gaussians));
  throw std::invalid_argument("unknown head '" + s.head + "'");
}

// The head is built (and initialised) before the trunk: ToyRegressor takes it ready-made.
ToyRegressor makeToyModel(const ToyBenchmarkSettings& s) { return ToyRegressor(makeHead(s)); }

}  // namespace fl::fourier_head
