// Checkpoint pieces every trial writes: FlatAdam's state (which holds the model's parameters,
// see flat_adam.h) and the state of a std::mt19937_64 stream (the data order), so a resumed run
// continues bit for bit.
#pragma once

#include <random>
#include <string>

#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include "core/optim/flat_adam.h"

namespace fl::optim {

void writeOptimizerState(torch::serialize::OutputArchive& archive, const FlatAdam& optimizer);
void readOptimizerState(torch::serialize::InputArchive& archive, FlatAdam& optimizer);

void writeStreamState(torch::serialize::OutputArchive& archive, const std::string& key,
                      const std::mt19937_64& stream);
void readStreamState(torch::serialize::InputArchive& archive, const std::string& key,
                     std::mt19937_64& stream);

}  // namespace fl::optim
