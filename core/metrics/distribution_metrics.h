// Metrics of predicted distributions over m ordered bins of [-1, 1], as in the Fourier head
// paper (../shared/PAPERS.md section 1). Every function returns one value per row (B), so
// callers choose the mean, a subset or a histogram. Inputs are probabilities (rows sum to 1).
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace fl::metrics {

// KL(truth || predicted) per row from the predicted log-probabilities (e.g. log_softmax of
// logits): a confident model's probabilities underflow to 0 in float32 where its
// log-probabilities are still finite. Bins where truth is 0 contribute 0.
torch::Tensor klDivergence(const torch::Tensor& truth, const torch::Tensor& predictedLogProbs);

// Squared error between the expected bin centre sum_i q_i c_i and the target bin's centre.
torch::Tensor squaredErrorOfExpectation(const torch::Tensor& q, const torch::Tensor& centers,
                                        const torch::Tensor& targetBins);

// Squared error between the most probable bin's centre and the target bin's centre.
torch::Tensor squaredErrorOfArgmax(const torch::Tensor& q, const torch::Tensor& centers,
                                   const torch::Tensor& targetBins);

// s(q) = sum_{sigma=1..S} 6 / (pi^2 sigma^2) * || q - G_sigma * q ||_2 with G_sigma a Gaussian
// filter of standard deviation sigma bins, wrap-around boundary, truncated at radius m - 1.
// Lower is smoother. The filters are built once, as an (S, m, m) stack of I - G_sigma.
class SmoothnessMetric {
 public:
  static constexpr int64_t kMaxBins = 256;  // the (S, m, m) stack stays under 30 MB

  explicit SmoothnessMetric(int64_t bins, int64_t maxSigma = 100);
  torch::Tensor operator()(const torch::Tensor& q) const;  // (B, m) -> (B)

  // The wrapped Gaussian filter G_sigma as an (m, m) matrix in double: row i holds the weights
  // that (G_sigma * q)_i gives to each q_j.
  static torch::Tensor gaussianFilterMatrix(int64_t bins, double sigma);

 private:
  torch::Tensor m_residualOperators;  // (S, m, m): I - G_sigma
  torch::Tensor m_weights;            // (S): 6 / (pi^2 sigma^2)
};

}  // namespace fl::metrics
