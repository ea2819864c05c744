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

nn::SublayerHook makeAblationHook(const Ablation& ablation, torch::Tensor unembedding,
                                  torch::Tensor pseudoInverse, double cutoffPeriod) {
  return [=](int64_t, nn::Sublayer which, torch::Tensor out) {
    const bool chosen = which == nn::Sublayer::Attention ? ablation.attention : ablation.mlp;
    if (!chosen) return out;
    const int64_t last = out.size(1) - 1;
    auto o = out.select(1, last);                                   // (B, d)
    auto z = torch::matmul(o, unembedding.t());                     // (B, M): logits per number
    auto bands = analysis::splitByPeriod(z, cutoffPeriod);
    auto removed = ablation.removeLow ? bands.low : bands.high;     // (B, M)
    auto replaced = o - torch::matmul(removed, pseudoInverse.t());  // (B, d)
    auto result = out.clone();
    result.select(1, last).copy_(replaced);
    return result;
  };
}

}  // namespace fl::addition
