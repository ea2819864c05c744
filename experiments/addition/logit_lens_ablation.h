// The logit-lens filter ablation of Zhou et al.: a sublayer's output o at the answer position is
// read in logit space over the number tokens (z = U o, U the number tokens' unembeddings, M x d),
// split over the number axis into low and high frequencies, one band removed, and the change
// put back in the residual stream.
//
// With A = the band's part of U (each column of U filtered over the number axis), the band's
// logits are exactly A o. When U has full row rank (M <= d) o' = o - pinv(U) A o removes the band
// and leaves the other untouched. With more numbers than dimensions both cannot hold; then
// o' = o - pinv(A) A o, the smallest change that removes the band exactly (the other band moves
// a little). Both are o' = o - R o with a d x d matrix R computed once per evaluation.
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

// R (d, d) for removing the low (or high) band of U (M, d), as above.
torch::Tensor bandRemovalMatrix(const torch::Tensor& unembedding, bool removeLow,
                                double cutoffPeriod);

// A hook applying o' = o - R o to every layer's chosen sublayers at the last position.
nn::SublayerHook makeAblationHook(const Ablation& ablation, torch::Tensor removal);

}  // namespace fl::addition
