#include "core/nn/qk_filters/causal_kernel_filter.h"

#include <cmath>
#include <numeric>

#include <torch/torch.h>

namespace fl::nn {

std::optional<CausalKernel> parseCausalKernel(const std::string& name) {
  if (name == "gaussian") return CausalKernel::Gaussian;
  if (name == "mexican_hat") return CausalKernel::MexicanHat;
  if (name == "causal_morlet") return CausalKernel::Morlet;
  return std::nullopt;
}

std::vector<double> causalKernelTaps(CausalKernel kind, int64_t length, double scale) {
  TORCH_CHECK(length >= 1 && scale > 0, "a causal kernel needs length >= 1 and scale > 0");
  std::vector<double> g(static_cast<size_t>(length));
  for (int64_t tau = 0; tau < length; ++tau) {
    const double u = static_cast<double>(tau) / scale;
    const double envelope = std::exp(-0.5 * u * u);
    switch (kind) {
      case CausalKernel::Gaussian:
        g[tau] = envelope;
        break;
      case CausalKernel::MexicanHat:
        g[tau] = (1.0 - u * u) * envelope;
        break;
      case CausalKernel::Morlet:
        g[tau] = std::cos(5.0 * u) * envelope;
        break;  // w0 = 5
    }
  }
  if (kind != CausalKernel::Gaussian && length > 1) {
    // Admissible wavelets have zero mean; the one-sided shapes need it enforced.
    const double mean = std::accumulate(g.begin(), g.end(), 0.0) / static_cast<double>(length);
    for (auto& v : g) v -= mean;
  }
  double norm = 0;
  for (double v : g) norm += v * v;
  norm = std::sqrt(norm);
  for (auto& v : g) v /= norm > 0 ? norm : 1.0;
  return g;
}

CausalKernelFilterImpl::CausalKernelFilterImpl(CausalKernel kind, int64_t length, double scale) {
  m_taps =
      register_buffer("taps", torch::tensor(causalKernelTaps(kind, length, scale), torch::kFloat));
  m_weight = register_buffer("weight", m_taps.flip(0).view({1, 1, length}));
}

torch::Tensor CausalKernelFilterImpl::forward(const torch::Tensor& x) {
  const int64_t b = x.size(0), h = x.size(1), t = x.size(2), d = x.size(3);
  const int64_t taps = m_weight.size(-1);
  // (B, H, T, D) -> (B H D, 1, T); left padding only: output t sees inputs t-L+1 .. t.
  auto series = x.permute({0, 1, 3, 2}).reshape({b * h * d, 1, t});
  series = torch::constant_pad_nd(series, {taps - 1, 0});
  auto y = torch::conv1d(series, m_weight.to(x.dtype()));
  return y.view({b, h, d, t}).permute({0, 1, 3, 2});
}

torch::Tensor CausalKernelFilterImpl::response(int64_t length) const {
  auto padded = torch::zeros({length});
  const int64_t n = std::min<int64_t>(length, m_taps.numel());
  padded.narrow(0, 0, n).copy_(m_taps.narrow(0, 0, n).to(torch::kCPU));
  return torch::fft::rfft(padded).abs();
}

}  // namespace fl::nn
