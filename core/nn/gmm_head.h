// GmmHead: the paper's Gaussian-mixture baseline head, as the official code writes it. G
// Gaussians with means tanh(linear(h)), one learned standard deviation per Gaussian (through
// softplus, initialised at the bin width 2/m), equal weights; the mixture's density evaluated at
// the bin centres, and log(density + 1e-5) returned as the logits WITHOUT normalising over the
// bins first (unlike the Fourier head): the softmax of the cross-entropy and of the evaluation
// normalises, so the 1e-5 floor is in density units (about 1e-5 / 25 in probability at m = 50).
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
  static constexpr double kDensityFloor = 1e-5;  // added to the density before the log

  explicit GmmHeadImpl(GmmHeadOptions options);

  HeadOutput forwardRows(const torch::Tensor& h) override;  // no penalty
  torch::Tensor densityRows(const torch::Tensor& h, const torch::Tensor& z) override;
  int64_t bins() const override { return m_options.bins(); }

  torch::Tensor means(const torch::Tensor& h);  // (B, G) in (-1, 1)
  torch::Tensor stddevs() const;                // (G)

 private:
  GmmHeadOptions m_options;
  torch::nn::Linear m_linear{nullptr};
  torch::Tensor m_rawStd;   // parameter (G): softplus^-1 of the standard deviations
  torch::Tensor m_centers;  // buffer (m)
};
TORCH_MODULE(GmmHead);

}  // namespace fl::nn
