// Tests core/metrics/distribution_metrics.h against plain-double computations of the paper's
// definitions (docs/papers.md, "Fourier head", metrics) on small known inputs.
#include <QtTest>

#include <random>

#include <torch/torch.h>

#include "core/metrics/distribution_metrics.h"
#include "core/nn/distribution_head.h"

namespace {

std::vector<double> randomPmf(int64_t m, std::mt19937& rng, bool withZeros = false) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> p(static_cast<size_t>(m));
  double total = 0;
  for (auto& v : p) {
    v = (withZeros && u(rng) < 0.3) ? 0.0 : u(rng);
    total += v;
  }
  for (auto& v : p) v /= total;
  return p;
}

torch::Tensor rows(const std::vector<std::vector<double>>& r) {
  std::vector<torch::Tensor> out;
  for (const auto& v : r) out.push_back(torch::tensor(v, torch::kDouble));
  return torch::stack(out);
}

// s(q) straight from the definition: wrap-around Gaussian filter, radius m - 1.
double directSmoothness(const std::vector<double>& q) {
  const int m = static_cast<int>(q.size());
  double s = 0;
  for (int sigma = 1; sigma <= 100; ++sigma) {
    std::vector<double> w;
    double total = 0;
    for (int d = -(m - 1); d <= m - 1; ++d) {
      w.push_back(std::exp(-0.5 * d * d / double(sigma * sigma)));
      total += w.back();
    }
    double norm2 = 0;
    for (int i = 0; i < m; ++i) {
      double filtered = 0;
      for (int d = -(m - 1); d <= m - 1; ++d)
        filtered += w[d + m - 1] / total * q[((i - d) % m + m) % m];
      norm2 += (q[i] - filtered) * (q[i] - filtered);
    }
    s += 6.0 / (M_PI * M_PI * sigma * sigma) * std::sqrt(norm2);
  }
  return s;
}

}  // namespace

class TestDistributionMetrics : public QObject {
  Q_OBJECT

 private slots:
  void klMatchesDefinitionAndIgnoresEmptyTrueBins() {
    std::mt19937 rng(1);
    std::vector<std::vector<double>> t, q;
    for (int i = 0; i < 5; ++i) {
      t.push_back(randomPmf(12, rng, /*withZeros=*/true));
      q.push_back(randomPmf(12, rng));
    }
    auto kl = fl::metrics::klDivergence(rows(t), torch::log(rows(q)));
    for (int i = 0; i < 5; ++i) {
      double expected = 0;
      for (int j = 0; j < 12; ++j)
        if (t[i][j] > 0) expected += t[i][j] * std::log(t[i][j] / q[i][j]);
      QVERIFY(std::abs(kl[i].item<double>() - expected) < 1e-12);
    }
    QVERIFY(std::isfinite(kl.sum().item<double>()));
  }

  void klOfIdenticalDistributionsIsZero() {
    auto p = torch::softmax(torch::randn({3, 7}, torch::kDouble), 1);
    QVERIFY(fl::metrics::klDivergence(p, torch::log(p)).abs().max().item<double>() < 1e-14);
  }

  void klStaysFiniteWhenProbabilitiesUnderflow() {
    // Logits 200 apart: in float32 softmax gives exactly 0 to the second bin, log_softmax -200.
    auto logits = torch::tensor({{100.0f, -100.0f}});
    QCOMPARE(torch::softmax(logits, 1)[0][1].item<float>(), 0.0f);
    auto truth = torch::tensor({{0.5f, 0.5f}});
    auto kl = fl::metrics::klDivergence(truth, torch::log_softmax(logits, 1));
    // 0.5 log 0.5 * 2 - 0.5 * (0 + -200) = -log 2 + 100
    QVERIFY(std::abs(kl[0].item<double>() - (100.0 - std::log(2.0))) < 1e-3);
  }

  // test/kl is the official code's KLDivLoss(batchmean) of log(softmax + 1e-10), here
  // computed independently in double loops: sum_i t_i (log t_i - log(q_i + 1e-10)) per row.
  void paperKlMatchesTheOfficialFormulaIncludingEmptyPredictedBins() {
    std::mt19937 rng(3);
    std::vector<std::vector<double>> t, q;
    for (int i = 0; i < 6; ++i) {
      t.push_back(randomPmf(10, rng, /*withZeros=*/true));
      q.push_back(randomPmf(10, rng, /*withZeros=*/i % 2 == 0));  // some predicted bins exactly 0
    }
    // A head that puts ~0 mass on a true bin: the exact KL is huge, the floored one is capped.
    t.push_back({0.5, 0.5, 0, 0, 0, 0, 0, 0, 0, 0});
    q.push_back({1.0, 1e-30, 0, 0, 0, 0, 0, 0, 0, 0});
    auto kl = fl::metrics::klDivergenceWithFloor(rows(t), rows(q));
    double batchmean = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      double expected = 0;
      for (size_t j = 0; j < t[i].size(); ++j)
        if (t[i][j] > 0) expected += t[i][j] * (std::log(t[i][j]) - std::log(q[i][j] + 1e-10));
      QVERIFY2(
          std::abs(kl[int64_t(i)].item<double>() - expected) < 1e-9 * std::max(1.0, expected),
          qPrintable(
              QString("row %1: %2 vs %3").arg(i).arg(kl[int64_t(i)].item<double>()).arg(expected)));
      batchmean += expected / double(t.size());
    }
    QVERIFY(std::abs(kl.mean().item<double>() - batchmean) < 1e-9);
    // The near-empty bin costs 0.5 * (log 0.5 - log(1e-30 + 1e-10)) = 0.5 * 22.33, not 0.5 * 68.
    const double cappedRow = 0.5 * (std::log(0.5) - std::log(1.0 + 1e-10)) +
                             0.5 * (std::log(0.5) - std::log(1e-30 + 1e-10));
    QVERIFY(std::abs(kl[6].item<double>() - cappedRow) < 1e-9);
    QVERIFY(kl[6].item<double>() < 12.0);
    QVERIFY(fl::metrics::klDivergence(rows(t), torch::log(rows(q)))[6].item<double>() > 30.0);
  }

  void paperKlAgreesWithTheExactOneForASmoothHead() {
    // Without near-empty bins the floor changes nothing measurable (the Fourier head's case).
    auto truth = torch::softmax(torch::randn({4, 50}, torch::kDouble), 1);
    auto q = torch::softmax(torch::randn({4, 50}, torch::kDouble), 1);
    QVERIFY(torch::allclose(fl::metrics::klDivergenceWithFloor(truth, q),
                            fl::metrics::klDivergence(truth, q.log()), 1e-7, 1e-7));
  }

  // The paper's "MSE (mean)" rounds the expected bin index to the nearest bin.
  void paperMseRoundsTheExpectedBinIndex() {
    auto centers = fl::nn::binCenters(4, torch::kDouble);  // -0.75, -0.25, 0.25, 0.75
    // Expected index 0.2 + 0.6 + 1.2 = 2.0 -> bin 2 (0.25); 0.1*1 + 0.1*2 + 0.1*3 = 0.6 -> bin 1;
    // 1.5 exactly -> bin 2 (halves to even, as torch.round).
    auto q = rows({{0.1, 0.2, 0.3, 0.4}, {0.7, 0.1, 0.1, 0.1}, {0.25, 0.25, 0.25, 0.25}});
    auto target = torch::tensor(std::vector<int64_t>{3, 2, 0});
    auto mse = fl::metrics::squaredErrorOfRoundedExpectation(q, centers, target);
    QVERIFY(std::abs(mse[0].item<double>() - 0.25) < 1e-12);  // 0.25 vs 0.75
    QVERIFY(std::abs(mse[1].item<double>() - 0.25) < 1e-12);  // -0.25 vs 0.25
    QVERIFY(std::abs(mse[2].item<double>() - 1.0) < 1e-12);   // 0.25 vs -0.75
    // On random PMFs: the centre of round(sum i q_i), computed here in plain double.
    std::mt19937 rng(4);
    std::vector<std::vector<double>> many;
    std::vector<int64_t> targets;
    for (int i = 0; i < 200; ++i) {
      many.push_back(randomPmf(50, rng, true));
      targets.push_back(int64_t(rng() % 50));
    }
    auto c50 = fl::nn::binCenters(50, torch::kDouble);
    auto got =
        fl::metrics::squaredErrorOfRoundedExpectation(rows(many), c50, torch::tensor(targets));
    for (int i = 0; i < 200; ++i) {
      double e = 0;
      for (int j = 0; j < 50; ++j) e += j * many[i][j];
      const double bin = std::nearbyint(e);  // round half to even in the default mode
      const double centre = -1 + (2 * bin + 1) / 50.0, want = -1 + (2 * targets[i] + 1) / 50.0;
      QVERIFY(std::abs(got[i].item<double>() - (centre - want) * (centre - want)) < 1e-12);
    }
  }

  void mseOfExpectationAndArgmaxOnAKnownInput() {
    // 4 bins of [-1, 1]: centres -0.75, -0.25, 0.25, 0.75.
    auto centers = fl::nn::binCenters(4, torch::kDouble);
    auto q = rows({{0.1, 0.2, 0.3, 0.4}, {0.7, 0.1, 0.1, 0.1}});
    auto target = torch::tensor(std::vector<int64_t>{3, 2});
    auto expected = fl::metrics::squaredErrorOfExpectation(q, centers, target);
    // E = -0.075 - 0.05 + 0.075 + 0.3 = 0.25 -> (0.25 - 0.75)^2 = 0.25
    // E = -0.525 - 0.025 + 0.025 + 0.075 = -0.45 -> (-0.45 - 0.25)^2 = 0.49
    QVERIFY(std::abs(expected[0].item<double>() - 0.25) < 1e-12);
    QVERIFY(std::abs(expected[1].item<double>() - 0.49) < 1e-12);
    auto argmax = fl::metrics::squaredErrorOfArgmax(q, centers, target);
    QVERIFY(std::abs(argmax[0].item<double>() - 0.0) < 1e-12);  // argmax bin 3 = target
    QVERIFY(std::abs(argmax[1].item<double>() - 1.0) < 1e-12);  // -0.75 vs 0.25
  }

  void smoothnessMatchesTheDefinition() {
    std::mt19937 rng(2);
    fl::metrics::SmoothnessMetric metric(9);
    std::vector<std::vector<double>> q;
    for (int i = 0; i < 4; ++i) q.push_back(randomPmf(9, rng, true));
    q.push_back({0, 0, 0, 0, 1, 0, 0, 0, 0});  // a spike: the roughest kind
    auto s = metric(rows(q).to(torch::kFloat));
    for (size_t i = 0; i < q.size(); ++i) {
      const double expected = directSmoothness(q[i]);
      QVERIFY2(std::abs(s[i].item<double>() - expected) < 1e-5 * std::max(1.0, expected),
               qPrintable(QString("%1 vs %2").arg(s[i].item<double>()).arg(expected)));
    }
    // The paper's 50 bins, relative to each value (computed from the power spectrum).
    fl::metrics::SmoothnessMetric metric50(50);
    std::vector<std::vector<double>> q50;
    for (int i = 0; i < 4; ++i) q50.push_back(randomPmf(50, rng, true));
    std::vector<double> smooth(50);  // a wide bump: small s, where filtering would cancel
    double total = 0;
    for (int i = 0; i < 50; ++i) total += smooth[i] = std::exp(-(i - 25.0) * (i - 25.0) / 50.0);
    for (auto& v : smooth) v /= total;
    q50.push_back(smooth);
    auto s50 = metric50(rows(q50).to(torch::kFloat));
    for (size_t i = 0; i < q50.size(); ++i) {
      const double expected = directSmoothness(q50[i]);
      QVERIFY2(std::abs(s50[i].item<double>() - expected) < 1e-5 * expected,
               qPrintable(QString("%1 vs %2").arg(s50[i].item<double>()).arg(expected)));
    }
  }

  void manyRowsAreScoredInBlocksLikeOneByOne() {
    // More rows than one block (16384): every row's score is its own, across the boundary.
    fl::metrics::SmoothnessMetric metric(12);
    torch::manual_seed(5);
    auto q = torch::softmax(torch::randn({20000, 12}), 1);
    auto all = metric(q);
    QCOMPARE(all.size(0), int64_t(20000));
    for (int64_t i : {0, 16383, 16384, 19999})
      QVERIFY(torch::allclose(all[i], metric(q[i].unsqueeze(0))[0], 1e-6, 1e-6));
  }

  void uniformIsPerfectlySmoothAndSpikesAreNot() {
    fl::metrics::SmoothnessMetric metric(50);
    auto uniform = torch::full({1, 50}, 1.0 / 50);
    QVERIFY(metric(uniform)[0].item<double>() < 1e-6);
    auto spike = torch::zeros({1, 50});
    spike[0][10] = 1.0;
    auto wide = torch::softmax(-torch::pow(torch::arange(50).to(torch::kFloat) - 25, 2) / 50.0, 0)
                    .unsqueeze(0);
    QVERIFY(metric(spike)[0].item<double>() > metric(wide)[0].item<double>());
  }

  void filterRowsSumToOne() {
    auto g = fl::metrics::SmoothnessMetric::gaussianFilterMatrix(13, 3.0);
    QVERIFY(torch::allclose(g.sum(1), torch::ones({13}, torch::kDouble)));
  }

  void tooManyBinsIsRejectedWithTheLimit() {
    try {
      fl::metrics::SmoothnessMetric metric(1000);
      QFAIL("expected an error");
    } catch (const c10::Error& e) {
      QVERIFY(std::string(e.what()).find("2..256 bins, got 1000") != std::string::npos);
    }
  }
};

QTEST_APPLESS_MAIN(TestDistributionMetrics)
#include "test_distribution_metrics.moc"
