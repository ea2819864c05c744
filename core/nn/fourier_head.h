// FourierHead (Gillman et al., ICLR 2025; docs/papers.md, "Fourier head"): a drop-in replacement
// for a linear classification head over m ordered bins of [-1, 1] whose output is a smooth
// density given by a Fourier series with N frequencies.
//
// The paper builds the series from the autocorrelation c_k = sum_j a_{j+k} conj(a_j) of N+1
// complex amplitudes a (the output of a linear layer), normalised by Re(c_0):
//   p(z) = 1/2 + Re( sum_{k=1..N} c_k / c_0 * exp(i pi k z) ).
// By the Wiener-Khinchin identity that is exactly |A(z)|^2 / (2 c_0) with
// A(z) = sum_j a_j exp(i pi j z) and c_0 = sum_j |a_j|^2, which is how forward() evaluates it:
// one matrix product with a fixed cos/sin basis, no (N+1)^2 autocorrelation on the hot path
// (and no c_0 at all there: normalising over the bins cancels it).
// The autocorrelation is still computed, for the regulariser and the spectrum plots;
// tests/test_fourier_head.cpp checks both routes agree.
#pragma once

#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "core/nn/distribution_head.h"

namespace fl::nn {

struct FourierHeadOptions {
  FourierHeadOptions(int64_t in_features, int64_t bins, int64_t frequencies)
      : in_features_(in_features), bins_(bins), frequencies_(frequencies) {}
  // Width of the input h.
  TORCH_ARG(int64_t, in_features);
  // m: number of ordered bins of [-1, 1].
  TORCH_ARG(int64_t, bins);
  // N: highest frequency of the series (N+1 complex amplitudes).
  TORCH_ARG(int64_t, frequencies);
  // gamma: weight of the smoothness regulariser (paper: 0 or 1e-6).
  TORCH_ARG(double, gamma) = 0.0;
  // The paper divides the linear layer's initial weights and biases by 100.
  TORCH_ARG(double, init_scale) = 0.01;
};

class FourierHeadImpl : public DistributionHeadImpl {
 public:
  explicit FourierHeadImpl(FourierHeadOptions options);

  // logits = log(q + 1e-5) with q the density at the bin centres, normalised over bins;
  // penalty = gamma * 2 * mean_batch(sum_k 2 pi^2 k^2 |c_k|^2) when gamma > 0.
  HeadOutput forwardRows(const torch::Tensor& h) override;
  torch::Tensor densityRows(const torch::Tensor& h, const torch::Tensor& z) override;
  int64_t bins() const override { return m_options.bins(); }

  // (B, 2(N+1)): real parts then imaginary parts of a_0..a_N.
  torch::Tensor amplitudes(const torch::Tensor& h);
  // (B, N+1, 2): the unnormalised autocorrelation coefficients c_k as (re, im).
  torch::Tensor coefficients(const torch::Tensor& h);
  // (B, N+1, 2): c_k / Re(c_0), so index 0 is (1, 0).
  torch::Tensor normalizedCoefficients(const torch::Tensor& h);
  // The regulariser for amplitudes a, without gamma: 2 * mean_batch(sum_k 2 pi^2 k^2 |c_k|^2).
  torch::Tensor smoothnessPenalty(const torch::Tensor& a);

  const FourierHeadOptions& options() const { return m_options; }

 private:
  torch::Tensor autocorrelation(const torch::Tensor& a) const;
  // |A(z)|^2 for amplitudes a (B, 2(N+1)) and a basis built by fourierBasis(z): (B, Z).
  torch::Tensor squaredMagnitude(const torch::Tensor& a, const torch::Tensor& basis) const;
  torch::Tensor fourierBasis(const torch::Tensor& z) const;

  FourierHeadOptions m_options;
  torch::nn::Linear m_linear{nullptr};
  torch::Tensor m_binBasis;  // buffer (2(N+1), 2m): the basis at the bin centres
  // buffer ((N+1)^2, N+1): sums the k-th diagonal of the amplitudes' pair products; the
  // batched device step's autocorrelation, kept as matrix products a CUDA graph records
  torch::Tensor m_lagSelector;
  torch::Tensor m_penaltyWeights;  // buffer (N+1): 2 pi^2 k^2
};
TORCH_MODULE(FourierHead);

}  // namespace fl::nn
