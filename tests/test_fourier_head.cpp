// Tests core/nn/fourier_head.h against the paper's formulas computed independently here, in
// plain double arithmetic with std::complex (docs/papers.md, "Fourier head", steps 1-5).
#include <QtTest>

#include <complex>
#include <random>

#include <torch/torch.h>

#include "core/nn/fourier_head.h"
#include "core/nn/gmm_head.h"
#include "core/nn/linear_head.h"

using fl::nn::FourierHead;
using fl::nn::FourierHeadOptions;
using Complex = std::complex<double>;

namespace {

// The amplitudes a_0..a_N of row `b` from the head's (B, 2(N+1)) output.
std::vector<Complex> amplitudesOf(const torch::Tensor& a, int64_t b, int64_t n) {
  auto values = a.to(torch::kDouble);
  auto acc = values.accessor<double, 2>();
  std::vector<Complex> out;
  for (int64_t j = 0; j <= n; ++j) out.emplace_back(acc[b][j], acc[b][n + 1 + j]);
  return out;
}

// Step 2: c_k = sum_{j=0}^{N-k} a_{j+k} conj(a_j).
std::vector<Complex> autocorrelation(const std::vector<Complex>& a) {
  const size_t n1 = a.size();
  std::vector<Complex> c(n1);
  for (size_t k = 0; k < n1; ++k)
    for (size_t j = 0; j + k < n1; ++j) c[k] += a[j + k] * std::conj(a[j]);
  return c;
}

// Step 3: p(z) = 1/2 + Re(sum_{k>=1} c_k / Re(c_0) exp(i pi k z)).
double paperDensity(const std::vector<Complex>& c, double z) {
  Complex sum = 0;
  for (size_t k = 1; k < c.size(); ++k)
    sum += c[k] / c[0].real() * std::exp(Complex(0, M_PI * static_cast<double>(k) * z));
  return 0.5 + sum.real();
}

FourierHead makeHead(int64_t in, int64_t bins, int64_t n, double gamma, uint64_t seed) {
  torch::manual_seed(seed);
  auto head = FourierHead(FourierHeadOptions(in, bins, n).gamma(gamma).init_scale(1.0));
  head->to(torch::kDouble);
  return head;
}

}  // namespace

class TestFourierHead : public QObject {
  Q_OBJECT

 private slots:
  void densityIsNonNegativeAndIntegratesToOne() {
    // Many random coefficient sets (init_scale 1 gives large, rough amplitudes).
    auto grid = torch::linspace(-1.0, 1.0, 4001, torch::kDouble);
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      const int64_t n = 1 + static_cast<int64_t>(seed % 16);
      auto head = makeHead(5, 50, n, 0.0, seed);
      auto h = torch::randn({8, 5}, torch::kDouble) * 3.0;
      auto p = head->density(h, grid);  // (8, 4001)
      QVERIFY(p.min().item<double>() >= -1e-12);
      auto integral = torch::trapezoid(p, grid, /*dim=*/1);
      QVERIFY2(
          torch::allclose(integral, torch::ones_like(integral), 1e-6, 1e-6),
          qPrintable(QString("seed %1: integral %2").arg(seed).arg(integral[0].item<double>())));
    }
  }

  void densityMatchesThePapersAutocorrelationFormula() {
    const int64_t n = 7;
    auto head = makeHead(4, 30, n, 0.0, 3);
    auto h = torch::randn({5, 4}, torch::kDouble);
    auto grid = torch::linspace(-1.0, 1.0, 101, torch::kDouble);
    auto p = head->density(h, grid);
    auto a = head->amplitudes(h).detach();
    for (int64_t b = 0; b < 5; ++b) {
      auto c = autocorrelation(amplitudesOf(a, b, n));
      for (int64_t g = 0; g < 101; ++g) {
        const double z = grid[g].item<double>();
        QVERIFY(std::abs(p[b][g].item<double>() - paperDensity(c, z)) < 1e-10);
      }
    }
  }

  // Over frequencies 1..16 and batches of 1 to 5 rows (a single row once took another code path
  // in LibTorch's inverse DFT), against the sum written out.
  void coefficientsMatchDirectAutocorrelation() {
    torch::manual_seed(11);
    for (int64_t n = 1; n <= 16; n += 3)
      for (int64_t rows = 1; rows <= 5; rows += 2) {
        auto head = makeHead(3, 20, n, 0.0, 4);
        auto h = torch::randn({rows, 3}, torch::kDouble);
        auto c = head->coefficients(h);  // (rows, N+1, 2)
        auto normalized = head->normalizedCoefficients(h);
        auto a = head->amplitudes(h).detach();
        for (int64_t b = 0; b < rows; ++b) {
          auto expected = autocorrelation(amplitudesOf(a, b, n));
          for (int64_t k = 0; k <= n; ++k) {
            QVERIFY(std::abs(c[b][k][0].item<double>() - expected[k].real()) < 1e-12);
            QVERIFY(std::abs(c[b][k][1].item<double>() - expected[k].imag()) < 1e-12);
            const Complex norm = expected[k] / expected[0].real();
            QVERIFY(std::abs(normalized[b][k][0].item<double>() - norm.real()) < 1e-12);
            QVERIFY(std::abs(normalized[b][k][1].item<double>() - norm.imag()) < 1e-12);
          }
        }
      }
  }

  void forwardReturnsLogOfBinDistributionPlusEpsilon() {
    const int64_t bins = 50;
    auto head = makeHead(6, bins, 12, 0.0, 5);
    auto h = torch::randn({10, 6}, torch::kDouble);
    auto logits = head->forward(h).logits;  // log(q + 1e-5)
    QCOMPARE(logits.sizes().vec(), (std::vector<int64_t>{10, bins}));
    auto q = torch::exp(logits) - 1e-5;
    QVERIFY(q.min().item<double>() >= -1e-12);
    QVERIFY(torch::allclose(q.sum(1), torch::ones({10}, torch::kDouble), 1e-9, 1e-9));
    // q is the density at the bin centres, normalised over bins (step 4). The bin basis is a
    // float buffer (the hot path), density() builds its basis in double: float agreement.
    auto centers = fl::nn::binCenters(bins, torch::kDouble);
    auto p = head->density(h, centers);
    QVERIFY(torch::allclose(q, p / p.sum(1, true), 1e-5, 1e-9));
  }

  void gradientMatchesFiniteDifferences() {
    auto head = makeHead(3, 16, 4, 1e-2, 6);
    auto h = torch::randn({6, 3}, torch::kDouble);
    auto weights = torch::randn({6, 16}, torch::kDouble);
    auto objective = [&]() {
      auto out = head->forward(h);
      return (out.logits * weights).sum() + out.penalty;
    };
    auto params = head->parameters();
    for (auto& p : params) p.mutable_grad() = torch::Tensor();
    objective().backward();
    const double eps = 1e-6;
    for (auto& p : params) {
      auto flat = p.data().view(-1);
      auto grad = p.grad().view(-1);
      for (int64_t i = 0; i < flat.numel(); i += 3) {
        torch::NoGradGuard noGrad;
        const double original = flat[i].item<double>();
        flat[i] = original + eps;
        const double up = objective().item<double>();
        flat[i] = original - eps;
        const double down = objective().item<double>();
        flat[i] = original;
        const double numeric = (up - down) / (2 * eps);
        const double analytic = grad[i].item<double>();
        QVERIFY2(std::abs(numeric - analytic) <= 1e-5 * std::max(1.0, std::abs(numeric)),
                 qPrintable(QString("numeric %1 analytic %2").arg(numeric).arg(analytic)));
      }
    }
  }

  void regulariserMatchesDirectComputation() {
    const int64_t n = 6;
    const double gamma = 1e-3;
    auto head = makeHead(4, 25, n, gamma, 7);
    auto h = torch::randn({9, 4}, torch::kDouble);
    auto penalty = head->forward(h).penalty.item<double>();
    auto a = head->amplitudes(h).detach();
    double sum = 0;
    for (int64_t b = 0; b < 9; ++b) {
      auto c = autocorrelation(amplitudesOf(a, b, n));  // unnormalised
      for (int64_t k = 0; k <= n; ++k)
        sum += 2 * M_PI * M_PI * static_cast<double>(k * k) * std::norm(c[k]);
    }
    const double expected = gamma * 2.0 * sum / 9.0;
    // The weights 2 pi^2 k^2 are a float buffer, so agreement is to float precision.
    QVERIFY2(std::abs(penalty - expected) <= 1e-6 * expected,
             qPrintable(QString("%1 vs %2").arg(penalty).arg(expected)));
  }

  void noPenaltyWithoutGamma() {
    auto head = makeHead(4, 25, 6, 0.0, 8);
    QVERIFY(!head->forward(torch::randn({2, 4}, torch::kDouble)).penalty.defined());
  }

  void initialWeightsAreScaledDownAsInThePaper() {
    torch::manual_seed(9);
    auto reference = torch::nn::Linear(32, 26);
    torch::manual_seed(9);
    auto head = FourierHead(FourierHeadOptions(32, 50, 12));
    auto w = head->named_parameters()["linear.weight"];
    QVERIFY(torch::allclose(w, reference->weight * 0.01));
  }

  // A drop-in for a linear layer: a sequence model's (B, T, d) states work as (B*T, d) rows do,
  // for every head, and so does the penalty (a mean over all rows).
  void everyHeadTakesLeadingDimensionsLikeALinearLayer() {
    torch::manual_seed(11);
    std::vector<std::shared_ptr<fl::nn::DistributionHeadImpl>> heads{
        makeHead(6, 20, 5, 1e-3, 3).ptr(), fl::nn::GmmHead(fl::nn::GmmHeadOptions(6, 20, 4)).ptr(),
        fl::nn::LinearHead(6, 20).ptr()};
    auto h = torch::randn({3, 7, 6}, torch::kDouble);
    auto grid = torch::linspace(-1, 1, 33, torch::kDouble);
    for (auto& head : heads) {
      head->to(torch::kDouble);
      auto sequence = head->forward(h);
      auto rows = head->forward(h.reshape({21, 6}));
      QCOMPARE(sequence.logits.sizes().vec(), (std::vector<int64_t>{3, 7, 20}));
      QVERIFY(torch::allclose(sequence.logits.reshape({21, 20}), rows.logits));
      QCOMPARE(sequence.penalty.defined(), rows.penalty.defined());
      if (rows.penalty.defined()) QVERIFY(torch::allclose(sequence.penalty, rows.penalty));
      auto p = head->density(h, grid);
      QCOMPARE(p.sizes().vec(), (std::vector<int64_t>{3, 7, 33}));
      QVERIFY(torch::allclose(p.reshape({21, 33}), head->density(h.reshape({21, 6}), grid)));
      // One position's density is that position's row's.
      QVERIFY(torch::allclose(p[2][4], head->density(h[2][4].unsqueeze(0), grid)[0]));
    }
  }
};

QTEST_APPLESS_MAIN(TestFourierHead)
#include "test_fourier_head.moc"
