#include "experiments/fourier_head/toy_benchmark_data.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <torch/torch.h>

#include "core/engine/seeding.h"

namespace fl::fourier_head {

ToyBenchmarkData drawToyBenchmarkData(const ToyBenchmarkSettings& s, uint64_t seed,
                                      c10::Device device) {
  auto dataRng = makeStream(seed, "data");
  std::vector<ToySample> samples;
  samples.reserve(static_cast<size_t>(s.samples));
  for (int64_t i = 0; i < s.samples; ++i)
    samples.push_back(drawToySample(s.dataset, s.variance, dataRng));

  std::vector<size_t> order(samples.size());
  std::iota(order.begin(), order.end(), 0);
  auto splitRng = makeStream(seed, "split");
  std::shuffle(order.begin(), order.end(), splitRng);
  const auto testCount = static_cast<size_t>(s.samples - toyTrainSize(s));
  if (testCount == 0 || testCount >= samples.size())
    throw std::invalid_argument("samples x test_fraction leaves an empty train or test split");

  ToyBenchmarkData data;
  std::vector<ToySample> train;
  for (size_t i = 0; i < order.size(); ++i)
    (i < testCount ? data.testSamples : train).push_back(samples[order[i]]);

  auto targets = [&](const std::vector<ToySample>& set) {
    std::vector<int64_t> bins;
    for (const auto& sample : set) bins.push_back(toBin(sample.z, s.bins));
    return torch::tensor(bins, torch::kLong);
  };
  std::vector<float> truePmf;
  for (const auto& sample : data.testSamples)
    for (double p : toyTruePmf(s.dataset, s.variance, sample.x, sample.y, s.bins))
      truePmf.push_back(static_cast<float>(p));

  data.trainInputs = toyModelInputs(train, s.bins).to(device);
  data.trainTargets = targets(train).to(device);
  data.testInputs = toyModelInputs(data.testSamples, s.bins).to(device);
  data.testTargets = targets(data.testSamples).to(device);
  data.testTruePmf = torch::tensor(truePmf, torch::kFloat)
                         .view({static_cast<int64_t>(data.testSamples.size()), s.bins})
                         .to(device);
  return data;
}

torch::Tensor toyModelInputs(const std::vector<ToySample>& samples, int64_t bins) {
  std::vector<float> values;
  values.reserve(samples.size() * 2);
  for (const auto& s : samples) {
    values.push_back(static_cast<float>(toBin(s.x, bins)));
    values.push_back(static_cast<float>(toBin(s.y, bins)));
  }
  return torch::tensor(values, torch::kFloat).view({static_cast<int64_t>(samples.size()), 2});
}

std::vector<int64_t> drawEpochOrder(int64_t trainSize, std::mt19937_64& shuffleRng) {
  std::vector<int64_t> order(static_cast<size_t>(trainSize));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), shuffleRng);
  return order;
}

int64_t toyTrainSize(const ToyBenchmarkSettings& s) {
  return s.samples - std::llround(s.testFraction * static_cast<double>(s.samples));
}

TrialPlan toyBenchmarkPlan(const ToyBenchmarkSettings& s, int64_t trainSize) {
  const int64_t stepsPerEpoch = (trainSize + s.batchSize - 1) / s.batchSize;
  TrialPlan p;
  p.stepsPerEpoch = stepsPerEpoch;
  p.totalSteps = stepsPerEpoch * s.epochs;
  p.logEvery = stepsPerEpoch;  // train/loss: the mean over each epoch
  p.evalEvery = stepsPerEpoch * s.evalEveryEpochs;
  return p;
}

}  // namespace fl::fourier_head
