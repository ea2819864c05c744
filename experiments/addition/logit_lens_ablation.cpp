#include "experiments/addition/logit_lens_ablation.h"

#include <torch/torch.h>

#include "core/analysis/number_spectrum.h"

namespace fl::addition {

std::vector<Ablation> paperAblations() {
  return {
      {"lowpass_removed_mlp", "-low MLP", true, false, true},
      {"highpass_removed_mlp", "-high MLP", false, false, true},
      {"lowpass_removed_attn", "-low attn", true, true, false},
      {"highpass_removed_attn", "-high attn", false, true, false},
      {"lowpass_removed_all", "-low both", true, true, true},
      {"highpass_removed_all", "-high both", false, true, true},
  };
}

torch::Tensor bandRemovalMatrix(const torch::Tensor& unembedding, bool removeLow,
                                double cutoffPeriod) {
  auto u = unembedding.detach().to(torch::kCPU).to(torch::kDouble);  // (M, d)
  auto bands = analysis::splitByPeriod(u.t(), cutoffPeriod);         // over the number axis
  auto a = (removeLow ? bands.low : bands.high).t();                 // (M, d): band logits = A o
  // The orthogonal projector onto A's row space; pinv(A) A is symmetric only up to rounding, so
  // it is symmetrised to keep R R = R and R = R^T to double precision.
  auto r = torch::matmul(at::linalg_pinv(a), a);
  r = 0.5 * (r + r.t());
  return r.to(unembedding.dtype()).to(unembedding.device());
}

nn::SublayerHook makeAblationHook(const Ablation& ablation, torch::Tensor removal) {
  return [=](int64_t, nn::Sublayer which, torch::Tensor out) {
    const bool chosen = which == nn::Sublayer::Attention ? ablation.attention : ablation.mlp;
    if (!chosen) return out;
    const int64_t last = out.size(1) - 1;
    auto o = out.select(1, last);                       // (B, d)
    auto replaced = o - torch::matmul(o, removal.t());  // o - R o
    auto result = out.clone();
    result.select(1, last).copy_(replaced);
    return result;
  };
}

}  // namespace fl::addition
