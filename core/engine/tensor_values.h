// Tensor -> the plain float vectors snapshots carry (a device sync point).
#pragma once

#include <vector>

#include <torch/types.h>

namespace fl {

std::vector<float> toFloatVector(const torch::Tensor& t);

}  // namespace fl
