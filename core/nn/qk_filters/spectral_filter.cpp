#include "core/nn/qk_filters/spectral_filter.h"

#include <cmath>

#include <torch/torch.h>

namespace fl::nn {

SpectralFilterImpl::SpectralFilterImpl(int64_t heads, int64_t trainLength)
    : m_heads(heads), m_trainLength(trainLength) {}

torch::Tensor SpectralFilterImpl::binsInTrainUnits(int64_t length,
                                                   const torch::TensorOptions& options) const {
  return torch::arange(length / 2 + 1, options) *
         (static_cast<double>(m_trainLength) / static_cast<double>(length));
}

torch::Tensor SpectralFilterImpl::forward(const torch::Tensor& x) {
  const int64_t t = x.size(-2);
  auto spectrum = torch::fft::rfft(x, t, /*dim=*/-2);                           // (B, H, T/2+1, D)
  auto phi = response(t).to(x.device(), x.dtype()).unsqueeze(0).unsqueeze(-1);  // (1, H, T/2+1, 1)
  return torch::fft::irfft(spectrum * phi, t, /*dim=*/-2);
}

torch::Tensor FlatSpectralFilterImpl::response(int64_t length) const {
  return torch::ones({m_heads, length / 2 + 1});
}

GaussianBandFilterImpl::GaussianBandFilterImpl(int64_t heads, int64_t trainLength, int64_t centres,
                                               double sigmaBins, std::vector<double> initialBins)
    : SpectralFilterImpl(heads, trainLength), m_sigma(sigmaBins) {
  TORCH_CHECK(static_cast<int64_t>(initialBins.size()) == centres, "need ", centres,
              " initial centres, got ", initialBins.size());
  auto init = torch::tensor(initialBins, torch::kFloat).log().unsqueeze(0).repeat({heads, 1});
  m_logF = register_parameter("log_f", init);
}

torch::Tensor GaussianBandFilterImpl::centres() const { return m_logF.exp(); }

torch::Tensor GaussianBandFilterImpl::periods() const {
  return static_cast<double>(m_trainLength) / centres();
}

torch::Tensor GaussianBandFilterImpl::response(int64_t length) const {
  auto bins = binsInTrainUnits(length, m_logF.options().requires_grad(false));  // (F)
  auto f = centres().unsqueeze(-1);                                             // (H, K, 1)
  auto bumps = torch::exp(-(bins - f).pow(2) / (2.0 * m_sigma * m_sigma));      // (H, K, F)
  auto w = bumps.sum(1);                                                        // (H, F)
  return w / w.norm(2, -1, /*keepdim=*/true).clamp_min(1e-12);
}

RandomSpectralFilterImpl::RandomSpectralFilterImpl(int64_t heads, int64_t trainLength)
    : SpectralFilterImpl(heads, trainLength) {
  const double bins = static_cast<double>(trainLength / 2 + 1);
  m_centre = register_buffer("centre", torch::rand({heads}) * bins);
  m_width = register_buffer("width", 1.0 + torch::rand({heads}) * 7.0);
}

torch::Tensor RandomSpectralFilterImpl::response(int64_t length) const {
  auto bins = binsInTrainUnits(length, m_centre.options());
  auto w =
      torch::exp(-(bins - m_centre.unsqueeze(-1)).pow(2) / (2.0 * m_width.unsqueeze(-1).pow(2)));
  return w / w.norm(2, -1, true).clamp_min(1e-12);
}

}  // namespace fl::nn
