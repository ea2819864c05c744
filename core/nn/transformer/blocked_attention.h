// Memory-lean causal attention for the CPU:
//
//   y = dropout(softmax(scale * q k^T + bias, causal)) v        q, k, v, y: (B, H, T, D)
//
// computed one (batch, head) and one block of query rows at a time, so the T x T scores of a
// layer never exist at once: a block's scores (rows x keys up to its last row) stay in cache,
// keys past the causal limit are never computed, and the backward recomputes each block's
// weights from the saved row log-sum-exps (flash attention's recomputation) instead of keeping
// B x H x T x T weights between forward and backward. The result equals the plain
//   softmax(q k^T * scale + mask) v
// within float rounding (tests/test_blocked_attention.cpp compares outputs and gradients).
//
// Dropout on the attention weights draws its keep mask from a counter-based hash of one seed per
// call and (batch * H + head, query, key) (attention_rows.h), so the backward regenerates
// exactly the forward's mask without storing it, and blocks can be drawn in any order or thread.
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace fl::nn {

struct AttentionDropout {
  double p = 0.0;     // probability of dropping a weight; 0: no dropout
  uint64_t seed = 0;  // the mask is a function of this seed and the weight's position
};

// q, k, v: (B, H, T, D) float on the CPU (any strides). bias: undefined, (T, T) or (H, T, T),
// finite on and below the diagonal (ALiBi); entries above the diagonal are never read, so the
// causal mask plus bias can be passed as it is. Differentiable in q, k and v (not in bias).
// rowBlock: query rows per block; 0 picks rows that keep a block's scores in cache.
torch::Tensor blockedCausalAttention(const torch::Tensor& q, const torch::Tensor& k,
                                     const torch::Tensor& v, double scale,
                                     const torch::Tensor& bias, AttentionDropout dropout = {},
                                     int64_t rowBlock = 0);

// The keep mask blockedCausalAttention applies, as (B, H, T, T) floats 1 (kept) and 0
// (dropped), for reference computations. Entries above the diagonal are 0.
torch::Tensor attentionDropoutKeepMask(const AttentionDropout& dropout, int64_t batch,
                                       int64_t heads, int64_t length);

}  // namespace fl::nn
