// Spectral purity: FoPE's "spectrum damage" (Hua et al., arXiv 2412.17739) measured. RoPE gives
// each dimension pair of the queries and keys one frequency along positions; linear layers,
// activations and a finite training length spread that frequency into others. For one pair's
// signal z_t = a_t + i b_t over positions t = 0 .. T-1 and the angular frequency w (radians per
// position) its encoding gives it, the purity is the share of the Hann-windowed DFT's energy
// sum_k |Z_k|^2 in the bin nearest w T / 2 pi and its two neighbours (round the circle):
//   a clean single frequency reads ~1 (0.98 to 1, by where w falls between two bins),
//   white noise reads its bandwidth, 3 / T,
//   a mixture of tones reads the share of its power at w.
//
//   torch::Tensor purity = pairSpectralPurity(rotatedQueries, encoding->pairFrequencies());
#pragma once

#include <vector>

#include <torch/types.h>

namespace fl::analysis {

// x: (N, T, D) real, D = 2P, pair p made of x[..., p] and x[..., p + P] (RoPE's half split);
// `nominal`: P angular frequencies. Returns (P) double: each pair's purity, the mean over the N
// signals (heads, queries and keys) that have any energy; NaN for a pair none of them has.
torch::Tensor pairSpectralPurity(const torch::Tensor& x, const std::vector<double>& nominal);

}  // namespace fl::analysis
