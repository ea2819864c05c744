#include "core/nn/fourier_head.h"

#include <cmath>

#include <torch/torch.h>

namespace fl::nn {

FourierHeadImpl::FourierHeadImpl(FourierHeadOptions options) : m_options(std::move(options)) {
  TORCH_CHECK(m_options.frequencies() >= 1, "FourierHead needs at least one frequency");
  TORCH_CHECK(m_options.bins() >= 2, "FourierHead needs at least two bins");
  const int64_t n1 = m_options.frequencies() + 1;
  m_linear = register_module("linear", torch::nn::Linear(m_options.in_features(), 2 * n1));
  {
    torch::NoGradGuard noGrad;
    m_linear->weight.mul_(m_options.init_scale());
    m_linear->bias.mul_(m_options.init_scale());
  }
  m_binBasis =
      register_buffer("bin_basis", fourierBasis(binCenters(m_options.bins())).to(torch::kFloat));

  // m_lagSelector[p * n1 + q][k] = 1 when p - q == k: a product with the flattened outer
  // product u_p u_q sums its k-th lower diagonal, i.e. sum_j u_{j+k} u_j.
  auto selector = torch::zeros({n1 * n1, n1});
  for (int64_t p = 0; p < n1; ++p)
    for (int64_t q = 0; q <= p; ++q) selector[p * n1 + q][p - q] = 1.0;
  m_lagSelector = register_buffer("lag_selector", selector);

  auto k = torch::arange(n1, torch::kDouble);
  m_penaltyWeights =
      register_buffer("penalty_weights", (2.0 * M_PI * M_PI * k * k).to(torch::kFloat));
}

torch::Tensor FourierHeadImpl::fourierBasis(const torch::Tensor& z) const {
  // Rows 0..N act on the real parts u, rows N+1..2N+1 on the imaginary parts v:
  //   Re A(z) = sum_j u_j cos(pi j z) - v_j sin(pi j z)
  //   Im A(z) = sum_j u_j sin(pi j z) + v_j cos(pi j z)
  const int64_t n1 = m_options.frequencies() + 1;
  // On z's device: a CPU basis times a CUDA z is an error, not a silent copy.
  auto j = torch::arange(n1, z.options().dtype(torch::kDouble)).unsqueeze(1);  // (N+1, 1)
  auto angle = M_PI * j * z.to(torch::kDouble).unsqueeze(0);                   // (N+1, Z)
  auto c = torch::cos(angle);
  auto s = torch::sin(angle);
  auto top = torch::cat({c, s}, /*dim=*/1);      // (N+1, 2Z)
  auto bottom = torch::cat({-s, c}, /*dim=*/1);  // (N+1, 2Z)
  return torch::cat({top, bottom}, /*dim=*/0);   // (2(N+1), 2Z), double
}

torch::Tensor FourierHeadImpl::amplitudes(const torch::Tensor& h) { return m_linear(h); }

torch::Tensor FourierHeadImpl::squaredMagnitude(const torch::Tensor& a,
                                                const torch::Tensor& basis) const {
  const int64_t zCount = basis.size(1) / 2;
  auto reIm = torch::matmul(a, basis.to(a.dtype()));               // (B, 2Z): Re A(z) then Im A(z)
  return reIm.pow(2).view({a.size(0), 2, zCount}).sum(/*dim=*/1);  // (B, Z): |A(z)|^2
}

HeadOutput FourierHeadImpl::forwardRows(const torch::Tensor& h) {
  auto a = amplitudes(h);  // (B, 2(N+1))
  // p(z) = |A(z)|^2 / (2 c_0); the normalisation over bins cancels 2 c_0, so skip it here.
  auto s = squaredMagnitude(a, m_binBasis);         // (B, m)
  auto q = s / s.sum(/*dim=*/1, /*keepdim=*/true);  // categorical over bins
  HeadOutput out;
  out.logits = torch::log(q + 1e-5);
  if (m_options.gamma() > 0) out.penalty = m_options.gamma() * smoothnessPenalty(a);
  return out;
}

torch::Tensor FourierHeadImpl::densityRows(const torch::Tensor& h, const torch::Tensor& z) {
  auto a = amplitudes(h);
  auto c0 = a.pow(2).sum(/*dim=*/1, /*keepdim=*/true);  // (B, 1): sum_j |a_j|^2
  return squaredMagnitude(a, fourierBasis(z).to(h.device())) / (2.0 * c0);
}

torch::Tensor FourierHeadImpl::autocorrelation(const torch::Tensor& a) const {
  const int64_t n1 = m_options.frequencies() + 1;
  // c_k = sum_j a_{j+k} conj(a_j), a = u + i v, by the correlation theorem: the inverse DFT of
  // |DFT(a)|^2, zero-padded to 2(N+1) so no lag k <= N wraps around. On the test set's 1000
  // rows at N = 12 it takes a seventh of the time of the (N+1)^2 pair products summed along
  // their diagonals, and less at a training batch of 32 too (forward and backward), with the
  // same values to float rounding (tests/test_fourier_head.cpp checks it against the sum).
  auto complexAmplitudes =
      torch::complex(a.narrow(1, 0, n1).contiguous(), a.narrow(1, n1, n1).contiguous());
  auto spectrum = torch::fft::fft(complexAmplitudes, 2 * n1, /*dim=*/1);
  auto power = torch::view_as_real(spectrum).pow(2).sum(/*dim=*/2);  // |DFT(a)|^2, (B, 2(N+1))
  auto lags = torch::fft::ifft(power, /*n=*/c10::nullopt, /*dim=*/1).narrow(1, 0, n1);
  // resolve_conj: for some shapes (a single row) LibTorch hands the inverse DFT of a real input
  // back as a lazily conjugated view, which view_as_real refuses.
  return torch::view_as_real(lags.resolve_conj().contiguous());  // (B, N+1, 2)
}

torch::Tensor FourierHeadImpl::coefficients(const torch::Tensor& h) {
  return autocorrelation(amplitudes(h));
}

torch::Tensor FourierHeadImpl::normalizedCoefficients(const torch::Tensor& h) {
  auto c = coefficients(h);                                   // (B, N+1, 2)
  auto c0 = c.select(2, 0).narrow(1, 0, 1).clamp_min(1e-30);  // (B, 1) Re(c_0)
  return c / c0.unsqueeze(2);
}

torch::Tensor FourierHeadImpl::smoothnessPenalty(const torch::Tensor& a) {
  auto c = autocorrelation(a);               // (B, N+1, 2)
  auto magnitude2 = (c * c).sum(/*dim=*/2);  // (B, N+1): |c_k|^2
  auto weighted = (magnitude2 * m_penaltyWeights.to(a.dtype())).sum(/*dim=*/1);  // (B)
  return 2.0 * weighted.mean();
}

}  // namespace fl::nn
