#include "core/nn/gmm_head.h"

#include <cmath>

#include <torch/torch.h>

namespace fl::nn {

GmmHeadImpl::GmmHeadImpl(GmmHeadOptions options) : m_options(std::move(options)) {
  TORCH_CHECK(m_options.gaussians() >= 1, "GmmHead needs at least one Gaussian");
  m_linear =
      register_module("linear", torch::nn::Linear(m_options.in_features(), m_options.gaussians()));
  // softplus(x) = 2/m  <=>  x = log(exp(2/m) - 1): each Gaussian starts one bin wide.
  const double width = 2.0 / static_cast<double>(m_options.bins());
  m_rawStd = register_parameter("raw_std",
                                torch::full({m_options.gaussians()}, std::log(std::expm1(width))));
  m_centers = register_buffer("centers", binCenters(m_options.bins()));
}

torch::Tensor GmmHeadImpl::means(const torch::Tensor& h) { return torch::tanh(m_linear(h)); }

torch::Tensor GmmHeadImpl::stddevs() const { return torch::softplus(m_rawStd); }

torch::Tensor GmmHeadImpl::densityRows(const torch::Tensor& h, const torch::Tensor& z) {
  auto mu = means(h).unsqueeze(2);                           // (B, G, 1)
  auto sigma = stddevs().view({1, -1, 1});                   // (1, G, 1)
  auto x = z.to(h.dtype()).to(h.device()).view({1, 1, -1});  // (1, 1, Z)
  auto standardised = (x - mu) / sigma;
  auto pdf = torch::exp(-0.5 * standardised * standardised) / (sigma * std::sqrt(2.0 * M_PI));
  return pdf.mean(/*dim=*/1);  // (B, Z): equal weights
}

HeadOutput GmmHeadImpl::forwardRows(const torch::Tensor& h) {
  auto p = densityRows(h, m_centers);  // (B, m), not normalised over the bins (see the header)
  return {torch::log(p + kDensityFloor), torch::Tensor()};
}

}  // namespace fl::nn
