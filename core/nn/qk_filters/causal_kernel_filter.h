// Causal time-domain Q/K filters: y[t] = sum_{tau = 0}^{L-1} g[tau] x[t - tau], zero before the
// sequence starts. Output t reads only positions <= t, so the model stays causal; the kernel
// shapes follow the FourierQK follow-up: Gaussian, Mexican hat (zero-mean, "admissible") and
// a causal Morlet (zero-mean). Kernels are fixed and L2-normalised.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

#include "core/nn/transformer/qk_filter.h"

namespace fl::nn {

enum class CausalKernel { Gaussian, MexicanHat, Morlet };

std::optional<CausalKernel> parseCausalKernel(
    const std::string& name);  // gaussian, mexican_hat, causal_morlet

// g[tau], tau = 0 .. length-1 (tau = lag into the past), with scale `scale` in tokens.
std::vector<double> causalKernelTaps(CausalKernel kind, int64_t length, double scale);

class CausalKernelFilterImpl : public QkFilterImpl {
 public:
  CausalKernelFilterImpl(CausalKernel kind, int64_t length, double scale);
  torch::Tensor forward(const torch::Tensor& x) override;  // (B, H, T, D)
  bool claimsCausal() const override { return true; }
  // |G(b)| on the bins of a `length` window: (length / 2 + 1).
  torch::Tensor response(int64_t length) const;
  const torch::Tensor& taps() const { return m_taps; }  // (L), lag order

 private:
  torch::Tensor m_taps;
  torch::Tensor m_weight;  // (1, 1, L) for conv1d: the taps reversed
};

}  // namespace fl::nn
