// Rotary position embedding (RoPE, Su et al.): pair j of a head's dimensions is rotated by the
// angle w_j * t at position t, so a query-key score depends only on the positions' difference.
//
// Pairs follow the GPT-NeoX / LLaMA layout: pair j is (x[j], x[j + D/2]) for head size D.
#pragma once

#include <vector>

#include <torch/types.h>

namespace fl::nn {

// w_j = theta^(-2j / D), j = 0 .. D/2 - 1, from fast (w_0 = 1) to slow.
std::vector<double> ropeFrequencies(int64_t headDim, double theta);

// The floor frequency of a training length: a frequency below 2*pi / L never completes a
// period within the training context (FoPE's "floor frequencies").
double floorFrequency(int64_t trainLength);

// FoPE's clipping: frequencies below the floor become 0 (a constant, no rotation).
std::vector<double> clipFloorFrequencies(std::vector<double> frequencies, int64_t trainLength);

// Rotates pairs of the last dimension of x (..., T, D) by per-position factors `cos` and `sin`
// of shape (T, D/2) or broadcastable to (..., T, D/2): (a, b) -> (a cos - b sin, b cos + a sin).
torch::Tensor rotatePairs(const torch::Tensor& x, const torch::Tensor& cos,
                          const torch::Tensor& sin);

// The angles w_j * t for positions offset .. offset + length - 1: shape (length, D/2), double
// on the CPU (w * t loses digits in float32 once t reaches thousands: take cos and sin first).
torch::Tensor rotaryAngles(const std::vector<double>& frequencies, int64_t length, int64_t offset);

}  // namespace fl::nn
