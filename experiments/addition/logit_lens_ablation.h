// The logit-lens filter ablation of Zhou et al.: a sublayer's output at the answer position is
// read in logit space over the number tokens (z = U_num o), split over the number axis into
// low and high frequencies, one band removed, and the change put back in the residual stream
// (o' = o - pinv(U_num) z_removed, the smallest change of o that removes that band).
#pragma once

#include <string>
#include <vector>

#include <torch/types.h>

#include "core/nn/transformer/gpt.h"

namespace fl::addition {

struct Ablation {
  std::string key;    // metric suffix: "lowpass_removed_mlp" -> test/acc_lowpass_removed_mlp
  std::string label;  // bar label: "-low MLP"
  bool removeLow = true;
  bool attention = false;
  bool mlp = false;
};

// The paper's Table 1 combinations (attention / MLP x low / high removed) and both modules.
std::vector<Ablation> paperAblations();

// A hook applying `ablation` to every layer's chosen sublayers at the last position.
// `unembedding` is U_num (M, d); `pseudoInverse` its pinv (d, M).
nn::SublayerHook makeAblationHook(const Ablation& ablation, torch::Tensor unembedding,
                                  torch::Tensor pseudoInverse, double cutoffPeriod);

}  // namespace fl::addition
