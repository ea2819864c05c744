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

// How a response is scaled over the training window's bins: L2 (w / ||w||, the author's corrected
// FourierQK and its fixed-bin ladder) or L1 (w / sum w, the author's filter-shape script: the
// narrow/wide bands and the Mexican hat). The scale matters: it multiplies the scores q k^T.
enum class SpectralNorm { L2, L1 };

// w normalised over its last axis (the bins).
torch::Tensor normaliseOverBins(const torch::Tensor& w, SpectralNorm norm);

class SpectralFilterImpl : public QkFilterImpl {
 public:
  SpectralFilterImpl(int64_t heads, int64_t trainLength);

  // (B, H, T, D) -> (B, H, T, D), or (B, H, T, K x D) for a bank of K filters (below).
  torch::Tensor forward(const torch::Tensor& x) override;
  // Both through one FFT pair, with the response computed once.
  std::pair<torch::Tensor, torch::Tensor> forwardPair(const torch::Tensor& qk) override;
  bool claimsCausal() const override { return false; }
  // phi_h on the bins of a window of `length`: (heads, length / 2 + 1); for a bank, the mean of
  // its filters' responses (what a panel draws).
  virtual torch::Tensor response(int64_t length) const = 0;
  // Every filter of the head's bank: (heads, K, length / 2 + 1). A bank of K > 1 filters gives
  // each its own copy of q and k, side by side and scaled by 1 / sqrt(K), so that q k^T is the
  // mean of the K filters' scores: the author's "sum after matmul" (MexHat-K4), where no filter
  // mixes with another's frequencies. Queries and keys come out K times wider than the values.
  virtual torch::Tensor responses(int64_t length) const { return response(length).unsqueeze(1); }
  // The periods (tokens per cycle) the filter learns, (heads, K); undefined when it learns none.
  virtual torch::Tensor learnedPeriods() const { return {}; }

 protected:
  // The filter along the time axis of x: (..., H, T, D), any leading axes.
  torch::Tensor filter(const torch::Tensor& x);
  // Bin positions of a `length` window expressed in train-window bins: b * trainLength / length.
  torch::Tensor binsInTrainUnits(int64_t length, const torch::TensorOptions& options) const;

  int64_t m_heads;
  int64_t m_trainLength;
};

// phi = 1: the identity (a test of the FFT round trip).
class FlatSpectralFilterImpl : public SpectralFilterImpl {
 public:
  FlatSpectralFilterImpl(int64_t heads, int64_t trainLength);
  torch::Tensor response(int64_t length) const override;

 private:
  // (heads, 1) ones, a buffer so the response is made on the module's device: one built on the
  // host would be a pageable copy inside the step, which a CUDA graph cannot record.
  torch::Tensor m_ones;
};

// The author's filter: per head, K Gaussian bumps over frequency bins,
// w(b) = sum_k exp(-(b - f_k)^2 / (2 sigma^2)), normalised over bins (L2 unless told), with
// f_k = exp(log_f_k) learned in log space (no weight decay: log_f is not a weight matrix).
// K = 1 is `fourier`, K > 1 `multi`. With learnCentres false the centres stay at initialBins,
// a buffer rather than a parameter, so bin 0 (DC) is allowed: the author's fixed-bin ladder.
class GaussianBandFilterImpl : public SpectralFilterImpl {
 public:
  GaussianBandFilterImpl(int64_t heads, int64_t trainLength, int64_t centres, double sigmaBins,
                         std::vector<double> initialBins, SpectralNorm norm = SpectralNorm::L2,
                         bool learnCentres = true);
  torch::Tensor response(int64_t length) const override;
  torch::Tensor centres() const;  // (heads, K) in train-window bins
  // Periods in tokens per cycle: trainLength / f (infinite for a centre at DC).
  torch::Tensor periods() const;
  torch::Tensor learnedPeriods() const override;
  bool learnsCentres() const { return m_logF.defined(); }

 private:
  double m_sigma;
  SpectralNorm m_norm;
  torch::Tensor m_logF;         // (heads, K) when learned
  torch::Tensor m_fixedCentre;  // (heads, K) when fixed
};

// The author's admissible ("zero-mean") Mexican hat over frequency, from the filter-shape study
// (paper 5b's MexHat): the Fourier transform of a Ricker wavelet of scale s,
//
//   h(w_b) = (s w_b)^2 exp(-(s w_b)^2 / 2),   w_b = 2 pi b / trainLength (radians per token),
//
// L1-normalised over bins, with s learned in log space per head. h(0) = 0: the filter removes
// each channel's mean over the window (the wavelet has zero mean in time), which is what the
// author calls admissible. It peaks at s w = sqrt(2), i.e. at bin peakBin = trainLength / p for a
// period of p tokens. Like every spectral filter here it reads the whole window: NOT causal.
// With several peak bins it is the author's bank (MexHat-K4: periods 50, 26, 10 and 5 tokens),
// each filter with its own learned scale, their scores averaged after q k^T (responses()).
class SpectralMexicanHatFilterImpl : public SpectralFilterImpl {
 public:
  SpectralMexicanHatFilterImpl(int64_t heads, int64_t trainLength, std::vector<double> peakBins);
  torch::Tensor response(int64_t length) const override;
  torch::Tensor responses(int64_t length) const override;
  torch::Tensor scales() const;  // (heads, K) s, in tokens
  // The author's period of each peak: 2 pi s / sqrt(2) tokens, (heads, K).
  torch::Tensor learnedPeriods() const override;

 private:
  torch::Tensor m_logScale;  // (heads, K), or (heads) for one filter
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
