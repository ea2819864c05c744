// GELU and dropout for float CPU tensors as one vectorised pass each, forward and backward.
//
// LibTorch 1.13's CPU gelu_backward runs at ~16 ns per element (its forward at ~1): at the
// FourierQK paper's batch 64 x T 256 the MLP's six backward GELUs took 13% of a step. Dropout
// through bernoulli_ draws each element from mt19937 and then multiplies twice: 4% more.
// Here the GELU derivative is Phi(x) + x phi(x) with one exp per element (erf from
// Abramowitz-Stegun 7.1.26, |error| < 1.5e-7), and the dropout mask is a counter-based hash
// of (seed, element index): nothing is stored for the backward, which redraws it, and the
// result does not depend on the thread count.
//
// Other devices and dtypes take LibTorch's own ops; FOURIERLAB_FUSED_OPS=0 does everywhere
// (bench_transformer measures both).
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace fl::nn {

// Exact (erf) GELU, as torch::gelu(x).
torch::Tensor fusedGelu(const torch::Tensor& x);

// x with each element kept (and scaled by 1 / (1 - p)) or zeroed, decided by (seed, index).
// p in [0, 1).
torch::Tensor hashedDropout(const torch::Tensor& x, double p, uint64_t seed);

// Whether the fused paths are on (FOURIERLAB_FUSED_OPS is not 0).
bool fusedOpsEnabled();

}  // namespace fl::nn
