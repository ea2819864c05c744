// ToyRegressor: the paper's MLP for the toy benchmark, 2 -> 64 -> ReLU -> 32 -> ReLU -> head,
// where the head is any DistributionHead (linear, Fourier or GMM).
#pragma once

#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/pimpl.h>

#include "core/nn/distribution_head.h"

namespace fl::fourier_head {

class ToyRegressorImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kInputs = 2;
  static constexpr int64_t kFeatures = 32;  // width the head sees

  explicit ToyRegressorImpl(std::shared_ptr<nn::DistributionHeadImpl> head);

  nn::HeadOutput forward(const torch::Tensor& inputs);                         // (B, 2) -> logits
  torch::Tensor density(const torch::Tensor& inputs, const torch::Tensor& z);  // (B, Z)
  torch::Tensor features(const torch::Tensor& inputs);                         // (B, 32)
  nn::DistributionHeadImpl& head() { return *m_head; }

 private:
  torch::nn::Sequential m_trunk{nullptr};
  std::shared_ptr<nn::DistributionHeadImpl> m_head;
};
TORCH_MODULE(ToyRegressor);

}  // namespace fl::fourier_head
