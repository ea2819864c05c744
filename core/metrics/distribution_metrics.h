// Metrics of predicted distributions over m ordered bins of [-1, 1], as in the Fourier head
// paper (docs/papers.md, "Fourier head", metrics). Every function returns one value per row
// (B), so callers choose the mean, a subset or a histogram. Inputs are probabilities (rows sum
// to 1).
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace fl::metrics {

// KL(truth || predicted) per row from the predicted log-probabilities (e.g. log_softmax of
// logits): a confident model's probabilities underflow to 0 in float32 where its
// log-probabilities are still finite. Bins where truth is 0 contribute 0. Exact; FourierLab
// records it as `test/kl_exact`.
torch::Tensor klDivergence(const torch::Tensor& truth, const torch::Tensor& predictedLogProbs);

// The paper's KL, as its official code computes it: KLDivLoss of log(q + floor) against the
// truth, i.e. sum_i t_i (log t_i - log(q_i + 1e-10)) per row (batchmean is the mean of these).
// The floor caps the penalty of a bin the head gives ~0 mass (-log 1e-10 = 23 nats) where the
// exact KL is unbounded: it lowers the linear head's KL, not the Fourier head's. The paper's
// tables use it, so `test/kl` does.
constexpr double kPaperKlFloor = 1e-10;
torch::Tensor klDivergenceWithFloor(const torch::Tensor& truth, const torch::Tensor& q,
                                    double floor = kPaperKlFloor);

// Squared error between the expected bin centre sum_i q_i c_i and the target bin's centre.
// Exact; recorded as `test/mse_expected_exact`.
torch::Tensor squaredErrorOfExpectation(const torch::Tensor& q, const torch::Tensor& centers,
                                        const torch::Tensor& targetBins);

// The paper's "MSE (mean)", as its official code computes it: the expected bin index
// sum_i i q_i rounded to the nearest bin (halves to even, as torch.round), that bin's centre
// against the target bin's centre. Recorded as `test/mse_expected`.
torch::Tensor squaredErrorOfRoundedExpectation(const torch::Tensor& q, const torch::Tensor& centers,
                                               const torch::Tensor& targetBins);

// Squared error between the most probable bin's centre and the target bin's centre.
torch::Tensor squaredErrorOfArgmax(const torch::Tensor& q, const torch::Tensor& centers,
                                   const torch::Tensor& targetBins);

// s(q) = sum_{sigma=1..S} 6 / (pi^2 sigma^2) * || q - G_sigma * q ||_2 with G_sigma a Gaussian
// filter of standard deviation sigma bins, wrap-around boundary, truncated at radius m - 1.
// Lower is smoother. G_sigma wraps around, so I - G_sigma is circulant and each norm is a
// weighted sum of q's power spectrum (Parseval): per row one DFT and one (m, S) product, about
// 3 m^2 multiply-adds instead of the S m^2 of filtering (a batched group scores K x 1000 rows
// per evaluation). tests/test_distribution_metrics.cpp checks it against the definition.
class SmoothnessMetric {
 public:
  static constexpr int64_t kMaxBins = 256;

  explicit SmoothnessMetric(int64_t bins, int64_t maxSigma = 100);
  torch::Tensor operator()(const torch::Tensor& q) const;  // (B, m) -> (B)

  // The wrapped Gaussian filter G_sigma as an (m, m) matrix in double: row i holds the weights
  // that (G_sigma * q)_i gives to each q_j.
  static torch::Tensor gaussianFilterMatrix(int64_t bins, double sigma);

 private:
  torch::Tensor m_dft;      // (m, 2m): cos and sin of 2 pi f j / m
  torch::Tensor m_gain;     // (m, S): |DFT of (I - G_sigma)'s first column|^2 / m
  torch::Tensor m_weights;  // (S): 6 / (pi^2 sigma^2)
};

}  // namespace fl::metrics
