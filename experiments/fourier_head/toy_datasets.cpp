#include "experiments/fourier_head/toy_datasets.h"

#include <algorithm>
#include <cmath>

namespace fl::fourier_head {

namespace {

constexpr double kInputRange = 0.8;
constexpr double kBetaScale = 100.0;
// Beta(a, b) needs a, b > 0; |x| = 0 exactly has probability zero but would be invalid.
constexpr double kMinBetaShape = 1e-3;

double normalPdf(double z, double mean, double variance) {
  const double d = z - mean;
  return std::exp(-0.5 * d * d / variance) / std::sqrt(2.0 * M_PI * variance);
}

double betaShape(double v) { return std::max(kBetaScale * std::abs(v), kMinBetaShape); }

double betaPdf(double u, double a, double b) {
  if (u <= 0.0 || u >= 1.0) return 0.0;
  const double logB = std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b);
  return std::exp((a - 1.0) * std::log(u) + (b - 1.0) * std::log1p(-u) - logB);
}

double drawBeta(double a, double b, std::mt19937_64& rng) {
  std::gamma_distribution<double> ga(a, 1.0);
  std::gamma_distribution<double> gb(b, 1.0);
  const double u = ga(rng);
  const double v = gb(rng);
  return u / (u + v);
}

}  // namespace

std::optional<ToyDataset> parseToyDataset(const std::string& name) {
  if (name == "gaussian") return ToyDataset::Gaussian;
  if (name == "gmm2") return ToyDataset::Gmm2;
  if (name == "beta") return ToyDataset::Beta;
  return std::nullopt;
}

std::string toString(ToyDataset dataset) {
  switch (dataset) {
    case ToyDataset::Gaussian:
      return "gaussian";
    case ToyDataset::Gmm2:
      return "gmm2";
    case ToyDataset::Beta:
      return "beta";
  }
  return "?";
}

std::vector<std::string> toyDatasetNames() { return {"gaussian", "gmm2", "beta"}; }

double drawToyTarget(ToyDataset dataset, double variance, double x, double y,
                     std::mt19937_64& rng) {
  const double sd = std::sqrt(variance);
  switch (dataset) {
    case ToyDataset::Gaussian:
      return std::normal_distribution<double>(y, sd)(rng);
    case ToyDataset::Gmm2: {
      const bool first = std::bernoulli_distribution(0.5)(rng);
      return std::normal_distribution<double>(first ? x : y, sd)(rng);
    }
    case ToyDataset::Beta: {
      const double sign = std::bernoulli_distribution(0.5)(rng) ? 1.0 : -1.0;
      return sign * drawBeta(betaShape(x), betaShape(y), rng);
    }
  }
  return 0.0;
}

ToySample drawToySample(ToyDataset dataset, double variance, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(-kInputRange, kInputRange);
  ToySample s;
  s.x = uniform(rng);
  if (dataset == ToyDataset::Gmm2)
    s.y = uniform(rng);
  else
    s.y = std::normal_distribution<double>(s.x, std::sqrt(variance))(rng);
  s.z = drawToyTarget(dataset, variance, s.x, s.y, rng);
  return s;
}

double toyTrueDensity(ToyDataset dataset, double variance, double x, double y, double z) {
  switch (dataset) {
    case ToyDataset::Gaussian:
      return normalPdf(z, y, variance);
    case ToyDataset::Gmm2:
      return 0.5 * normalPdf(z, x, variance) + 0.5 * normalPdf(z, y, variance);
    case ToyDataset::Beta:
      // Half the mass on each side: the density of s * U is p_U(|z|) / 2.
      return 0.5 * betaPdf(std::abs(z), betaShape(x), betaShape(y));
  }
  return 0.0;
}

int64_t toBin(double v, int64_t bins) {
  const auto index = static_cast<int64_t>(std::floor((v + 1.0) * 0.5 * static_cast<double>(bins)));
  return std::clamp<int64_t>(index, 0, bins - 1);
}

double binCenter(int64_t index, int64_t bins) {
  return -1.0 + (2.0 * static_cast<double>(index) + 1.0) / static_cast<double>(bins);
}

std::vector<double> toyTruePmf(ToyDataset dataset, double variance, double x, double y,
                               int64_t bins) {
  std::vector<double> pmf(static_cast<size_t>(bins));
  double total = 0;
  for (int64_t i = 0; i < bins; ++i) {
    pmf[i] = toyTrueDensity(dataset, variance, x, y, binCenter(i, bins));
    total += pmf[i];
  }
  if (total <= 0) {
    // Every centre underflowed (only conceivable for extreme Beta shapes): no information.
    std::fill(pmf.begin(), pmf.end(), 1.0 / static_cast<double>(bins));
    return pmf;
  }
  for (auto& p : pmf) p /= total;
  return pmf;
}

}  // namespace fl::fourier_head
