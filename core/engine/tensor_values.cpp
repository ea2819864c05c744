#include "core/engine/tensor_values.h"

namespace fl {

std::vector<float> toFloatVector(const torch::Tensor& t) {
  auto c = t.detach().to(torch::kCPU).to(torch::kFloat).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

}  // namespace fl
