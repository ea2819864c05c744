// The data of one toy-benchmark run, drawn from the run's seed, and the order it is trained
// in: shared by the single run and a member of a batched group, so a member trains on exactly
// the samples, split and shuffles its single run would.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include <c10/core/Device.h>
#include <torch/types.h>

#include "core/engine/experiment.h"
#include "experiments/fourier_head/toy_benchmark_settings.h"

namespace fl::fourier_head {

struct ToyBenchmarkData {
  std::vector<ToySample> testSamples;
  torch::Tensor trainInputs;   // (Ntr, 2) float: the bin indices of x and y (the paper's inputs)
  torch::Tensor trainTargets;  // (Ntr) long: the bin of z
  torch::Tensor testInputs;    // (Nte, 2)
  torch::Tensor testTargets;   // (Nte)
  torch::Tensor testTruePmf;   // (Nte, m)

  int64_t trainSize() const { return trainInputs.size(0); }
};

// Samples, split and tensors from the seed's "data" and "split" streams (never from the
// model's generator, so changing the model never changes the data).
ToyBenchmarkData drawToyBenchmarkData(const ToyBenchmarkSettings& s, uint64_t seed,
                                      c10::Device device);

// Inputs as the model sees them: the bin indices of x and y, as floats (the paper's choice).
torch::Tensor toyModelInputs(const std::vector<ToySample>& samples, int64_t bins);  // (n, 2)

// One epoch's order of the `trainSize` training samples, the next draw of the run's "shuffle"
// stream.
std::vector<int64_t> drawEpochOrder(int64_t trainSize, std::mt19937_64& shuffleRng);

// The training split's size: the samples less round(samples x test_fraction) held out for the
// test, as drawToyBenchmarkData splits them (known from the settings alone, before any draw).
int64_t toyTrainSize(const ToyBenchmarkSettings& s);

// Steps, logging and evaluation of a run: epochs of ceil(trainSize / batch) steps.
TrialPlan toyBenchmarkPlan(const ToyBenchmarkSettings& s, int64_t trainSize);

}  // namespace fl::fourier_head
