// The logit-lens filter ablation of Zhou et al. (Section 3.2): a sublayer's output o at the answer
// position is read in logit space over the number tokens (z = W_U o, W_U the number tokens'
// unembeddings, M x d), split over the number axis into low and high frequencies, and one band
// removed by projecting o ORTHOGONALLY onto the null space of B F W_U (F the DFT along the number
// axis, B the 0/1 mask of the removed frequencies):
//
//   o' = o - pinv(B F W_U) (B F W_U) o  =  o - pinv(A) A o,
//
// where A = F^-1 B F W_U is the band's part of W_U (each column filtered over the number axis);
// the two agree because F is invertible, so B F W_U and A have the same row space. o' is the
// point closest to o whose logits have no energy in the band. The other band's logits move too
// (by as much as the two bands' directions in the residual stream overlap): the paper's filter
// removes a subspace of o, it does not edit the logits. When the band spans as many directions
// as o has (e.g. the high band of 199 numbers, 160 real frequencies, in d = 128) R is the
// identity and the sublayer's output is removed whole. R = pinv(A) A (d x d, symmetric and
// idempotent) is computed once per evaluation and applied as o' = o - R o.
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

// R = pinv(A) A (d, d) for removing the low (or high) band of W_U (M, d), as above.
torch::Tensor bandRemovalMatrix(const torch::Tensor& unembedding, bool removeLow,
                                double cutoffPeriod);

// A hook applying o' = o - R o to every layer's chosen sublayers at the last position.
nn::SublayerHook makeAblationHook(const Ablation& ablation, torch::Tensor removal);

}  // namespace fl::addition
