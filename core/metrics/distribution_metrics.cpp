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
  const auto m = static_cast<double>(bins);
  // I - G_sigma is circulant: (I - G) q is the circular convolution of q with its first column
  // c, so by Parseval ||(I - G) q||^2 = (1/m) sum_f |c^(f)|^2 |q^(f)|^2 with ^ the DFT over the
  // m bins. gain[f][sigma] = |c^(f)|^2 / m, in double from the filter itself.
  auto identity = torch::eye(bins, torch::kDouble);
  auto gain = torch::zeros({bins, maxSigma}, torch::kDouble);
  auto gains = gain.accessor<double, 2>();
  std::vector<double> weights;
  for (int64_t sigma = 1; sigma <= maxSigma; ++sigma) {
    auto column = (identity - gaussianFilterMatrix(bins, static_cast<double>(sigma))).select(1, 0);
    auto c = column.accessor<double, 1>();
    for (int64_t f = 0; f < bins; ++f) {
      double re = 0, im = 0;
      for (int64_t r = 0; r < bins; ++r) {
        const double angle = 2.0 * M_PI * static_cast<double>(f * r) / m;
        re += c[r] * std::cos(angle);
        im -= c[r] * std::sin(angle);
      }
      gains[f][sigma - 1] = (re * re + im * im) / m;
    }
    weights.push_back(6.0 / (M_PI * M_PI * static_cast<double>(sigma * sigma)));
  }
  // The DFT of a row as one product: [cos | sin](2 pi f j / m), (m, 2m).
  auto dft = torch::zeros({bins, 2 * bins}, torch::kDouble);
  auto d = dft.accessor<double, 2>();
  for (int64_t j = 0; j < bins; ++j)
    for (int64_t f = 0; f < bins; ++f) {
      const double angle = 2.0 * M_PI * static_cast<double>(f * j) / m;
      d[j][f] = std::cos(angle);
      d[j][bins + f] = std::sin(angle);
    }
  m_dft = dft.to(torch::kFloat);
  m_gain = gain.to(torch::kFloat);
  m_weights = torch::tensor(weights, torch::kDouble).to(torch::kFloat);
}

torch::Tensor SmoothnessMetric::operator()(const torch::Tensor& q) const {
  auto dft = m_dft.to(q.device()).to(q.dtype());    // (m, 2m)
  auto gain = m_gain.to(q.device()).to(q.dtype());  // (m, S)
  auto w = m_weights.to(q.device()).to(q.dtype());  // (S)
  const int64_t m = q.size(1);
  // In blocks of rows, so that no intermediate grows with a 200,000-row test set.
  constexpr int64_t kRowsPerBlock = 16384;
  std::vector<torch::Tensor> blocks;
  for (int64_t start = 0; start < q.size(0); start += kRowsPerBlock) {
    auto rows = q.narrow(0, start, std::min(kRowsPerBlock, q.size(0) - start));
    auto spectrum = torch::matmul(rows, dft).pow(2);                   // (b, 2m): Re^2, Im^2
    auto power = spectrum.narrow(1, 0, m) + spectrum.narrow(1, m, m);  // (b, m): |q^(f)|^2
    // Every term is >= 0, so the float sum cancels nothing (the residual (I - G) q did).
    auto norms = torch::matmul(power, gain).clamp_min(0).sqrt();  // (b, S)
    blocks.push_back(torch::matmul(norms, w));                    // (b)
  }
  return blocks.empty() ? torch::zeros({0}, q.options()) : torch::cat(blocks);  // (B)
}

}  // namespace fl::metrics
