#include "core/nn/qk_filters/spectral_filter.h"

#include <cmath>

#include <torch/torch.h>

namespace fl::nn {

torch::Tensor normaliseOverBins(const torch::Tensor& w, SpectralNorm norm) {
  if (norm == SpectralNorm::L1) return w / w.sum(-1, /*keepdim=*/true).clamp_min(1e-8);
  return w / w.norm(2, -1, /*keepdim=*/true).clamp_min(1e-12);
}

SpectralFilterImpl::SpectralFilterImpl(int64_t heads, int64_t trainLength)
    : m_heads(heads), m_trainLength(trainLength) {}

torch::Tensor SpectralFilterImpl::binsInTrainUnits(int64_t length,
                                                   const torch::TensorOptions& options) const {
  return torch::arange(length / 2 + 1, options) *
         (static_cast<double>(m_trainLength) / static_cast<double>(length));
}

torch::Tensor SpectralFilterImpl::forward(const torch::Tensor& x) { return filter(x); }

std::pair<torch::Tensor, torch::Tensor> SpectralFilterImpl::forwardPair(const torch::Tensor& qk) {
  auto y = filter(qk);
  return {y[0], y[1]};
}

torch::Tensor SpectralFilterImpl::filter(const torch::Tensor& x) {
  // x: (..., H, T, D), any leading axes (B; or 2, B for q and k together).
  const int64_t t = x.size(-2);
  auto spectrum = torch::fft::rfft(x, t, /*dim=*/-2);  // (..., H, T/2+1, D)
  auto bank = responses(t).to(x.device(), x.dtype());  // (H, K, T/2+1)
  const int64_t k = bank.size(1);
  if (k == 1) {
    auto phi = bank.select(1, 0).unsqueeze(-1);  // (H, T/2+1, 1)
    return torch::fft::irfft(spectrum * phi, t, /*dim=*/-2);
  }
  // (..., H, 1, F, D) x (H, K, F, 1) -> K filtered copies (..., H, K, T, D) -> (..., H, T, K D).
  auto filtered = torch::fft::irfft(spectrum.unsqueeze(-3) * bank.unsqueeze(-1), t, /*dim=*/-2);
  auto sizes = x.sizes().vec();
  sizes.back() *= k;
  return filtered.transpose(-3, -2).reshape(sizes) / std::sqrt(static_cast<double>(k));
}

FlatSpectralFilterImpl::FlatSpectralFilterImpl(int64_t heads, int64_t trainLength)
    : SpectralFilterImpl(heads, trainLength),
      m_ones(register_buffer("ones", torch::ones({heads, 1}))) {}

torch::Tensor FlatSpectralFilterImpl::response(int64_t length) const {
  return m_ones.expand({m_heads, length / 2 + 1});
}

GaussianBandFilterImpl::GaussianBandFilterImpl(int64_t heads, int64_t trainLength, int64_t centres,
                                               double sigmaBins, std::vector<double> initialBins,
                                               SpectralNorm norm, bool learnCentres)
    : SpectralFilterImpl(heads, trainLength), m_sigma(sigmaBins), m_norm(norm) {
  TORCH_CHECK(static_cast<int64_t>(initialBins.size()) == centres, "need ", centres,
              " initial centres, got ", initialBins.size());
  auto init = torch::tensor(initialBins, torch::kFloat).unsqueeze(0).repeat({heads, 1});
  if (!learnCentres) {
    m_fixedCentre = register_buffer("centre", init);
    return;
  }
  // A learned centre lives in log space: bin 0 (DC) has no logarithm.
  TORCH_CHECK(init.min().item<double>() > 0, "a learned centre must start above bin 0, got ",
              init.min().item<double>());
  m_logF = register_parameter("log_f", init.log());
}

torch::Tensor GaussianBandFilterImpl::centres() const {
  return learnsCentres() ? m_logF.exp() : m_fixedCentre;
}

torch::Tensor GaussianBandFilterImpl::periods() const {
  return static_cast<double>(m_trainLength) / centres();
}

torch::Tensor GaussianBandFilterImpl::learnedPeriods() const {
  return learnsCentres() ? periods() : torch::Tensor();
}

torch::Tensor GaussianBandFilterImpl::response(int64_t length) const {
  const auto f = centres();
  auto bins = binsInTrainUnits(length, f.options().requires_grad(false));  // (F)
  auto bumps =
      torch::exp(-(bins - f.unsqueeze(-1)).pow(2) / (2.0 * m_sigma * m_sigma));  // (H, K, F)
  return normaliseOverBins(bumps.sum(1), m_norm);                                // (H, F)
}

SpectralMexicanHatFilterImpl::SpectralMexicanHatFilterImpl(int64_t heads, int64_t trainLength,
                                                           std::vector<double> peakBins)
    : SpectralFilterImpl(heads, trainLength) {
  TORCH_CHECK(!peakBins.empty(), "the Mexican hat needs at least one peak");
  std::vector<double> logScales;
  for (const double peakBin : peakBins) {
    TORCH_CHECK(peakBin > 0, "the Mexican hat's peak must lie above bin 0, got ", peakBin);
    // The author's initial scale for a period p: s = sqrt(2) p / (2 pi), with p = T / peakBin.
    logScales.push_back(
        std::log(std::sqrt(2.0) * static_cast<double>(trainLength) / (2.0 * M_PI * peakBin)));
  }
  auto init = torch::tensor(logScales, torch::kFloat).unsqueeze(0).repeat({heads, 1});
  // One filter keeps the (heads) shape its checkpoints have always had.
  m_logScale = register_parameter("log_scale", peakBins.size() == 1 ? init.squeeze(1) : init);
}

torch::Tensor SpectralMexicanHatFilterImpl::scales() const {
  return m_logScale.dim() == 1 ? m_logScale.exp().unsqueeze(-1) : m_logScale.exp();
}

torch::Tensor SpectralMexicanHatFilterImpl::learnedPeriods() const {
  return 2.0 * M_PI / std::sqrt(2.0) * scales();
}

torch::Tensor SpectralMexicanHatFilterImpl::responses(int64_t length) const {
  auto omega = binsInTrainUnits(length, m_logScale.options().requires_grad(false)) *
               (2.0 * M_PI / static_cast<double>(m_trainLength));  // (F) radians per token
  auto sw2 = (scales().unsqueeze(-1) * omega).pow(2);              // (H, K, F)
  return normaliseOverBins(sw2 * torch::exp(-0.5 * sw2), SpectralNorm::L1);
}

torch::Tensor SpectralMexicanHatFilterImpl::response(int64_t length) const {
  return responses(length).mean(1);
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
  return normaliseOverBins(w, SpectralNorm::L2);
}

}  // namespace fl::nn
