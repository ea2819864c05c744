// LinearHead: the baseline, a plain linear layer over the bins. Its "density" is the
// piecewise-constant one of its softmax: q_i * m / 2 on bin i.
#pragma once

#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "core/nn/distribution_head.h"

namespace fl::nn {

class LinearHeadImpl : public DistributionHeadImpl {
 public:
  LinearHeadImpl(int64_t inFeatures, int64_t bins);

  HeadOutput forwardRows(const torch::Tensor& h) override;
  torch::Tensor densityRows(const torch::Tensor& h, const torch::Tensor& z) override;
  int64_t bins() const override { return m_bins; }

 private:
  int64_t m_bins;
  torch::nn::Linear m_linear{nullptr};
};
TORCH_MODULE(LinearHead);

}  // namespace fl::nn
