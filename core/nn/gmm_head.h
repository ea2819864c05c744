// GmmHead: the paper's Gaussian-mixture baseline head. G Gaussians with means tanh(linear(h)),
// one learned standard deviation per Gaussian (through softplus, initialised at the bin width
// 2/m), equal weights; evaluated at the bin centres and normalised over bins.
#pragma once

#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "core/nn/distribution_head.h"

namespace fl::nn {

struct GmmHeadOptions {
  GmmHeadOptions(int64_t in_features, int64_t bins, int64_t gaussians)
      : in_features_(in_features), bins_(bins), gaussians_(gaussians) {}
  TORCH_ARG(int64_t, in_features);
  TORCH_ARG(int64_t, bins);
  // G: number of mixture components.
  TORCH_ARG(int64_t, gaussians);
};

class GmmHeadImpl : public DistributionHeadImpl {
 public:
  explicit GmmHeadImpl(GmmHeadOptions options);

  HeadOutput forwardRows(const torch::Tensor& h) override;  // no penalty
  torch::Tensor densityRows(const torch::Tensor& h, const torch::Tensor& z) override;
  int64_t bins() const override { return m_options.bins(); }

  torch::Tensor means(const torch::Tensor& h);  // (B, G) in (-1, 1)
  torch::Tensor stddevs() const;                 // (G)

 private:
  GmmHeadOptions m_options;
  torch::nn::Linear m_linear{nullptr};
  torch::Tensor m_rawStd;   // parameter (G): softplus^-1 of the standard deviations
  torch::Tensor m_centers;  // buffer (m)
};
TORCH_MODULE(GmmHead);

}  // namespace fl::nn
