// Checkpoint pieces every trial writes: FlatAdam's state (which holds the model's parameters,
// see flat_adam.h), the state of a std::mt19937_64 stream (the data order) and of a LibTorch
// generator (dropout masks), so a resumed run continues bit for bit.
#pragma once

#include <random>
#include <string>

#include <ATen/core/Generator.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include "core/optim/flat_adam.h"

namespace fl::optim {

void writeOptimizerState(torch::serialize::OutputArchive& archive, const FlatAdam& optimizer);
void readOptimizerState(torch::serialize::InputArchive& archive, FlatAdam& optimizer);
// The same entries from and into a plain state: a trainer that keeps FlatAdam's arithmetic in
// its own buffers (a batched group's member) writes checkpoints a FlatAdam can load, and back.
void writeOptimizerState(torch::serialize::OutputArchive& archive, const FlatAdam::State& state);
FlatAdam::State readOptimizerState(torch::serialize::InputArchive& archive);

void writeStreamState(torch::serialize::OutputArchive& archive, const std::string& key,
                      const std::mt19937_64& stream);
void readStreamState(torch::serialize::InputArchive& archive, const std::string& key,
                     std::mt19937_64& stream);

void writeGeneratorState(torch::serialize::OutputArchive& archive, const std::string& key,
                         const at::Generator& generator);
// Leaves the generator as it is when the checkpoint predates the key.
void readGeneratorState(torch::serialize::InputArchive& archive, const std::string& key,
                        at::Generator& generator);

// Throws std::runtime_error naming `key` unless `tensor`, read from a checkpoint, is a dense
// tensor whose sizes, strides and offset stay inside its storage. LibTorch's loader takes them
// from the file as they are: a damaged file would have a copy or data_ptr() read past the end.
void checkLoadedTensor(const torch::Tensor& tensor, const std::string& key);

}  // namespace fl::optim
