// Spectral Q/K filters (FourierQK; docs/papers.md, "FourierQK"): along the time axis,
//
//   x~ = irfft( rfft_t(x) * phi_h(b), n = T )      per head h, frequency bin b = 0 .. T/2
//
// The rfft spans the whole window, so every output position mixes past AND future positions:
// these filters are not causal, whatever the attention mask does afterwards. That is the point
// the lab makes visible (experiments/fourier_qk's leakage probes).
//
// Responses are defined on the bins of the training window (train_len) and rescaled in
// frequency for other lengths, so a centre at bin f always means a period of train_len / f.
#pragma once

#include <vector>

#include <torch/types.h>

#include "core/nn/transformer/qk_filter.h"

namespace fl::nn {

class SpectralFilterImpl : public QkFilterImpl {
 public:
  SpectralFilterImpl(int64_t heads, int64_t trainLength);

  torch::Tensor forward(const torch::Tensor& x) override;  // (B, H, T, D)
  bool claimsCausal() const override { return false; }
  // phi_h on the bins of a window of `length`: (heads, length / 2 + 1).
  virtual torch::Tensor response(int64_t length) const = 0;

 protected:
  // Bin positions of a `length` window expressed in train-window bins: b * trainLength / length.
  torch::Tensor binsInTrainUnits(int64_t length, const torch::TensorOptions& options) const;

  int64_t m_heads;
  int64_t m_trainLength;
};

// phi = 1: the identity (a test of the FFT round trip).
class FlatSpectralFilterImpl : public SpectralFilterImpl {
 public:
  using SpectralFilterImpl::SpectralFilterImpl;
  torch::Tensor response(int64_t length) const override;
};

// The author's filter: per head, K Gaussian bumps over frequency bins,
// w(b) = sum_k exp(-(b - f_k)^2 / (2 sigma^2)), L2-normalised over bins, with f_k = exp(log_f_k)
// learned in log space (no weight decay: log_f is a vector). K = 1 is `fourier`, K > 1 `multi`.
class GaussianBandFilterImpl : public SpectralFilterImpl {
 public:
  GaussianBandFilterImpl(int64_t heads, int64_t trainLength, int64_t centres, double sigmaBins,
                         std::vector<double> initialBins);
  torch::Tensor response(int64_t length) const override;
  torch::Tensor centres() const;  // (heads, K) in train-window bins
  // Periods in tokens per cycle: trainLength / f.
  torch::Tensor periods() const;

 private:
  double m_sigma;
  torch::Tensor m_logF;  // (heads, K)
};

// `random`: a fixed, untrained Morlet-like spectral filter: a Gaussian bump (a Morlet wavelet's
// spectrum) at a random centre with a random width per head, L2-normalised.
class RandomSpectralFilterImpl : public SpectralFilterImpl {
 public:
  RandomSpectralFilterImpl(int64_t heads, int64_t trainLength);  // draws from torch's generator
  torch::Tensor response(int64_t length) const override;

 private:
  torch::Tensor m_centre;  // (heads) in train-window bins
  torch::Tensor m_width;   // (heads)
};

}  // namespace fl::nn
