// Which parameters AdamW decays: weight matrices only (names ending in "weight", 2-D or more),
// never norms, biases, FoPE coefficients or FourierQK's log-frequencies (decay would pull every
// learned centre towards bin 1).
#pragma once

#include <string>
#include <vector>

#include <torch/ordered_dict.h>
#include <torch/types.h>

namespace fl::optim {

struct DecaySelection {
  std::vector<torch::Tensor> parameters;
  std::vector<bool> decay;  // one per parameter, for FlatAdam
};

DecaySelection decayWeightMatricesOnly(const torch::OrderedDict<std::string, torch::Tensor>& named);

}  // namespace fl::optim
