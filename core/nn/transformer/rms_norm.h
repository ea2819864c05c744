// RMSNorm (Zhang & Sennrich): x / rms(x) * g, no mean subtraction and no bias.
#pragma once

#include <torch/nn/module.h>
#include <torch/types.h>

namespace fl::nn {

class RmsNormImpl : public torch::nn::Module {
 public:
  explicit RmsNormImpl(int64_t dim, double eps = 1e-6);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  double m_eps;
  torch::Tensor m_weight;
};
TORCH_MODULE(RmsNorm);

}  // namespace fl::nn
