#include "core/metrics/distribution_metrics.h"

#include <algorithm>

#include <cmath>

#include <torch/torch.h>

namespace fl::metrics {

torch::Tensor klDivergence(const torch::Tensor& truth, const torch::Tensor& predictedLogProbs) {
  // xlogy(t, t) is 0 where t is 0, and so is t * log q there: empty true bins add nothing.
  auto crossTerm = torch::where(truth > 0, truth * predictedLogProbs, torch::zeros_like(truth));
  return (torch::xlogy(truth, truth) - crossTerm).sum(/*dim=*/1);
}

torch::Tensor klDivergenceWithFloor(const torch::Tensor& truth, const torch::Tensor& q,
                                    double floor) {
  return klDivergence(truth, (q + floor).log());
}

torch::Tensor squaredErrorOfExpectation(const torch::Tensor& q, const torch::Tensor& centers,
                                        const torch::Tensor& targetBins) {
  auto c = centers.to(q.dtype()).to(q.device());
  auto expected = (q * c.unsqueeze(0)).sum(/*dim=*/1);  // (B)
  auto target = c.index_select(0, targetBins);          // (B)
  return (expected - target).pow(2);
}

torch::Tensor squaredErrorOfRoundedExpectation(const torch::Tensor& q, const torch::Tensor& centers,
                                               const torch::Tensor& targetBins) {
  auto c = centers.to(q.dtype()).to(q.device());
  auto index = torch::arange(q.size(1), q.options());
  auto expectedIndex = (q * index.unsqueeze(0)).sum(/*dim=*/1);  // (B)
  // Rounding can only reach a valid bin (q sums to 1), but float sums may overshoot by an ulp.
  auto bin = expectedIndex.round().clamp(0, q.size(1) - 1).to(torch::kLong);
  return (c.index_select(0, bin) - c.index_select(0, targetBins)).pow(2);
}

torch::Tensor squaredErrorOfArgmax(const torch::Tensor& q, const torch::Tensor& centers,
                                   const torch::Tensor& targetBins) {
  auto c = centers.to(q.dtype()).to(q.device());
  auto predicted = c.index_select(0, q.argmax(/*dim=*/1));
  auto target = c.index_select(0, targetBins);
  return (predicted - target).pow(2);
}

torch::Tensor SmoothnessMetric::gaussianFilterMatrix(int64_t bins, double sigma) {
  const int64_t radius = bins - 1;
  std::vector<double> taps(2 * radius + 1);
  double total = 0;
  for (int64_t d = -radius; d <= radius; ++d) {
    taps[d + radius] = std::exp(-0.5 * static_cast<double>(d * d) / (sigma * sigma));
    total += taps[d + radius];
  }
  auto g = torch::zeros({bins, bins}, torch::kDouble);
  auto acc = g.accessor<double, 2>();
  for (int64_t i = 0; i < bins; ++i)
    for (int64_t d = -radius; d <= radius; ++d) {
      const int64_t j = ((i - d) % bins + bins) % bins;  // wrap-around boundary
      acc[i][j] += taps[d + radius] / total;
    }
  return g;
}

SmoothnessMetric::SmoothnessMetric(int64_t bins, int64_t maxSigma) {
  TORCH_CHECK(bins >= 2 && bins <= kMaxBins, "smoothness metric supports 2..", kMaxBins,
              " bins, got ", bins);
  auto identity = torch::eye(bins, torch::kDouble);
  std::vector<torch::Tensor> ops;
  std::vector<double> weights;
  for (int64_t sigma = 1; sigma <= maxSigma; ++sigma) {
    ops.push_back(identity - gaussianFilterMatrix(bins, static_cast<double>(sigma)));
    weights.push_back(6.0 / (M_PI * M_PI * static_cast<double>(sigma * sigma)));
  }
  m_residualOperators = torch::stack(ops).to(torch::kFloat);
  m_weights = torch::tensor(weights, torch::kDouble).to(torch::kFloat);
}

torch::Tensor SmoothnessMetric::operator()(const torch::Tensor& q) const {
  auto ops = m_residualOperators.to(q.device()).to(q.dtype());  // (S, m, m)
  auto w = m_weights.to(q.device()).to(q.dtype());              // (S)
  // In blocks of rows: the (rows, S, m) residual of a 200,000-row test set would need GBs.
  constexpr int64_t kRowsPerBlock = 4096;
  std::vector<torch::Tensor> blocks;
  for (int64_t start = 0; start < q.size(0); start += kRowsPerBlock) {
    auto rows = q.narrow(0, start, std::min(kRowsPerBlock, q.size(0) - start));
    auto residual = torch::einsum("smn,bn->bsm", {ops, rows});  // (b, S, m)
    auto norms = residual.pow(2).sum(/*dim=*/2).sqrt();         // (b, S)
    blocks.push_back((norms * w.unsqueeze(0)).sum(/*dim=*/1));  // (b)
  }
  return blocks.empty() ? torch::zeros({0}, q.options()) : torch::cat(blocks);  // (B)
}

}  // namespace fl::metrics
