// The checkpoint of one toy-benchmark run: FlatAdam's state (which holds the model's
// parameters), the shuffle stream and this epoch's order. One format for the single run and a
// batched group's member, so either resumes the other's checkpoint.
#pragma once

#include <random>
#include <string>

#include <c10/core/Device.h>

#include "core/optim/flat_adam.h"

namespace fl::fourier_head {

struct ToyCheckpoint {
  optim::FlatAdam::State optimizer;  // parameters, moments, step count (= steps taken)
  std::mt19937_64 shuffleRng;
  torch::Tensor permutation;  // (Ntr) long: this epoch's order; undefined before the first step
};

// Writes atomically; throws FileWriteError when it cannot (see optim::saveArchive).
void saveToyCheckpoint(const ToyCheckpoint& checkpoint, const std::string& path);
ToyCheckpoint loadToyCheckpoint(const std::string& path, c10::Device device);

}  // namespace fl::fourier_head
