#include "core/analysis/spectral_purity.h"

#include <cmath>

#include <torch/torch.h>

namespace fl::analysis {

torch::Tensor pairSpectralPurity(const torch::Tensor& x, const std::vector<double>& nominal) {
  TORCH_CHECK(x.dim() == 3 && x.size(-1) % 2 == 0,
              "spectral purity needs (signals, positions, pairs x 2), got ", x.sizes());
  const int64_t pairs = x.size(-1) / 2, length = x.size(1);
  TORCH_CHECK(static_cast<int64_t>(nominal.size()) == pairs, "spectral purity: ", nominal.size(),
              " frequencies for ", pairs, " pairs");
  const auto signal = x.to(torch::kCPU, torch::kDouble);
  // (N, P, T) complex, windowed: a tone between two bins keeps its energy near them.
  auto z =
      torch::complex(signal.narrow(-1, 0, pairs), signal.narrow(-1, pairs, pairs)).transpose(1, 2);
  z = z * torch::hann_window(length, /*periodic=*/true, torch::kDouble);
  const auto power = torch::fft::fft(z, c10::nullopt, -1).abs().pow(2);  // (N, P, T)
  // Bin k's distance round the circle from the bin nearest w T / 2 pi, per pair: that bin and
  // its two neighbours hold 98 % or more of a clean tone's windowed energy wherever it falls.
  const auto centre =
      torch::tensor(nominal, torch::kDouble).mul(static_cast<double>(length) / (2 * M_PI)).round();
  const auto bins = torch::arange(length, torch::kDouble);
  auto distance = torch::remainder(bins.unsqueeze(0) - centre.unsqueeze(1),
                                   static_cast<double>(length));  // (P, T) in [0, T)
  distance = torch::minimum(distance, static_cast<double>(length) - distance);
  const auto near = distance.le(1.0).to(torch::kDouble);
  const auto total = power.sum(-1);                     // (N, P)
  const auto at = (power * near.unsqueeze(0)).sum(-1);  // (N, P)
  const auto has = total.gt(0);
  const auto share = torch::where(has, at / total.clamp_min(1e-300), torch::zeros_like(total));
  const auto counted = has.to(torch::kDouble).sum(0);  // (P)
  return torch::where(counted.gt(0), share.sum(0) / counted.clamp_min(1),
                      torch::full_like(counted, std::nan("")));
}

}  // namespace fl::analysis
