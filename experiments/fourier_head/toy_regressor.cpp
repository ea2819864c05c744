#include "experiments/fourier_head/toy_regressor.h"

#include <torch/torch.h>

namespace fl::fourier_head {

ToyRegressorImpl::ToyRegressorImpl(std::shared_ptr<nn::DistributionHeadImpl> head) {
  m_trunk = register_module(
      "trunk", torch::nn::Sequential(torch::nn::Linear(kInputs, 64), torch::nn::ReLU(),
                                     torch::nn::Linear(64, kFeatures), torch::nn::ReLU()));
  m_head = register_module("head", std::move(head));
}

torch::Tensor ToyRegressorImpl::features(const torch::Tensor& inputs) {
  return m_trunk->forward(inputs);
}

nn::HeadOutput ToyRegressorImpl::forward(const torch::Tensor& inputs) {
  return m_head->forward(features(inputs));
}

torch::Tensor ToyRegressorImpl::density(const torch::Tensor& inputs, const torch::Tensor& z) {
  return m_head->density(features(inputs), z);
}

}  // namespace fl::fourier_head
