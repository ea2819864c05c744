// Tests experiments/fourier_head/toy_datasets.h: each generator's samples against its stated
// true density (a chi-square goodness-of-fit test on many samples), binning, normalisation.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

#include "experiments/fourier_head/toy_datasets.h"

using namespace fl::fourier_head;

namespace {

// Probability of [lo, hi) under the true density, by Simpson's rule on 200 panels.
double binProbability(ToyDataset d, double var, double x, double y, double lo, double hi) {
  const int n = 200;
  const double h = (hi - lo) / n;
  double s = 0;
  for (int i = 0; i <= n; ++i) {
    const double w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
    s += w * toyTrueDensity(d, var, x, y, lo + i * h);
  }
  return s * h / 3;
}

}  // namespace

class TestToyDatasets : public QObject {
  Q_OBJECT

 private slots:
  void samplesFollowTheTrueDensity_data() {
    QTest::addColumn<QString>("dataset");
    QTest::addColumn<double>("x");
    QTest::addColumn<double>("y");
    QTest::newRow("gaussian") << "gaussian" << 0.3 << 0.35;
    QTest::newRow("gmm2 apart") << "gmm2" << -0.5 << 0.4;
    QTest::newRow("gmm2 close") << "gmm2" << 0.1 << 0.2;
    QTest::newRow("beta") << "beta" << 0.3 << 0.5;
    QTest::newRow("beta skewed") << "beta" << -0.7 << 0.1;
  }
  void samplesFollowTheTrueDensity() {
    QFETCH(QString, dataset);
    QFETCH(double, x);
    QFETCH(double, y);
    const auto d = *parseToyDataset(dataset.toStdString());
    const double var = 0.01;
    const int n = 40000;
    const int bins = 40;
    std::vector<int> counts(bins + 2, 0);  // plus below -1 and above 1
    std::mt19937_64 rng(123);
    for (int i = 0; i < n; ++i) {
      const double z = drawToyTarget(d, var, x, y, rng);
      if (z < -1)
        ++counts[bins];
      else if (z >= 1)
        ++counts[bins + 1];
      else
        ++counts[static_cast<size_t>(toBin(z, bins))];
    }
    // Expected counts per bin; the mass outside [-1, 1] is what the bins leave.
    std::vector<double> expected(bins + 1);
    double inside = 0;
    for (int b = 0; b < bins; ++b) {
      const double lo = -1.0 + 2.0 * b / bins;
      expected[b] = n * binProbability(d, var, x, y, lo, lo + 2.0 / bins);
      inside += expected[b];
    }
    expected[bins] = n - inside;
    std::vector<double> observed(counts.begin(), counts.begin() + bins);
    observed.push_back(counts[bins] + counts[bins + 1]);
    // Pool bins expecting fewer than 5 so the chi-square approximation holds.
    double chi2 = 0, pooledObserved = 0, pooledExpected = 0;
    int dof = -1;
    for (size_t b = 0; b < expected.size(); ++b) {
      if (expected[b] < 5) {
        pooledObserved += observed[b];
        pooledExpected += expected[b];
        continue;
      }
      chi2 += (observed[b] - expected[b]) * (observed[b] - expected[b]) / expected[b];
      ++dof;
    }
    if (pooledExpected >= 5) {
      chi2 +=
          (pooledObserved - pooledExpected) * (pooledObserved - pooledExpected) / pooledExpected;
      ++dof;
    }
    QVERIFY(dof >= 2);
    // Mean dof, sd sqrt(2 dof): 5 sd is a 1-in-10^5 false alarm, yet a wrong mean or variance
    // by a few percent with 40000 samples is far beyond it.
    const double limit = dof + 5 * std::sqrt(2.0 * dof);
    QVERIFY2(chi2 < limit, qPrintable(QString("chi2 %1 with %2 dof").arg(chi2).arg(dof)));
  }

  void aWrongDensityIsCaughtByTheSameTest() {
    // The test above must be able to fail: gmm2 samples against the gaussian density.
    const int n = 40000, bins = 40;
    std::vector<int> counts(bins, 0);
    std::mt19937_64 rng(5);
    for (int i = 0; i < n; ++i)
      ++counts[static_cast<size_t>(
          toBin(drawToyTarget(ToyDataset::Gmm2, 0.01, -0.5, 0.4, rng), bins))];
    double chi2 = 0;
    for (int b = 0; b < bins; ++b) {
      const double lo = -1.0 + 2.0 * b / bins;
      const double e =
          std::max(1e-3, n * binProbability(ToyDataset::Gaussian, 0.01, -0.5, 0.4, lo, lo + 0.05));
      chi2 += (counts[b] - e) * (counts[b] - e) / e;
    }
    QVERIFY(chi2 > 1e4);
  }

  void truePmfIsNormalisedAndMatchesTheDensityShape() {
    for (auto d : {ToyDataset::Gaussian, ToyDataset::Gmm2, ToyDataset::Beta}) {
      auto pmf = toyTruePmf(d, 0.01, 0.2, -0.4, 50);
      double total = 0;
      for (double p : pmf) total += p;
      QVERIFY(std::abs(total - 1.0) < 1e-12);
      const double ratio = pmf[10] / pmf[30];
      const double densityRatio = toyTrueDensity(d, 0.01, 0.2, -0.4, binCenter(10, 50)) /
                                  toyTrueDensity(d, 0.01, 0.2, -0.4, binCenter(30, 50));
      if (std::isfinite(densityRatio))
        QVERIFY(std::abs(ratio - densityRatio) < 1e-9 * std::max(1.0, densityRatio));
    }
  }

  void binningCoversTheEdges() {
    QCOMPARE(toBin(-1.0, 50), int64_t(0));
    QCOMPARE(toBin(-5.0, 50), int64_t(0));
    QCOMPARE(toBin(0.999, 50), int64_t(49));
    QCOMPARE(toBin(1.0, 50), int64_t(49));
    QCOMPARE(toBin(3.0, 50), int64_t(49));
    QCOMPARE(toBin(0.0, 50), int64_t(25));
    QCOMPARE(toBin(-0.01, 50), int64_t(24));
    for (int i = 0; i < 50; ++i) QCOMPARE(toBin(binCenter(i, 50), 50), int64_t(i));
  }

  // The inputs as the paper draws them: x ~ U(-0.8, 0.8) for every dataset; y ~ U(-0.8, 0.8)
  // for gmm2, y ~ N(x, variance) otherwise. Chi-square over 20 equal-probability cells each.
  void inputsFollowTheirDistributions_data() {
    QTest::addColumn<QString>("dataset");
    QTest::newRow("gaussian") << "gaussian";
    QTest::newRow("gmm2") << "gmm2";
    QTest::newRow("beta") << "beta";
  }
  void inputsFollowTheirDistributions() {
    QFETCH(QString, dataset);
    const auto d = *parseToyDataset(dataset.toStdString());
    const double var = 0.02;
    const int n = 20000, cells = 20;
    std::vector<int> xCells(cells, 0), yCells(cells, 0);
    std::mt19937_64 rng(77);
    auto cellOfUniform = [&](double v) {
      return std::min(cells - 1, static_cast<int>((v + 0.8) / 1.6 * cells));
    };
    // Standard normal CDF: the cell of y - x under N(0, var) has equal probability 1/cells.
    auto cellOfNormal = [&](double v) {
      const double u = 0.5 * std::erfc(-v / std::sqrt(2.0 * var));
      return std::min(cells - 1, static_cast<int>(u * cells));
    };
    for (int i = 0; i < n; ++i) {
      const auto s = drawToySample(d, var, rng);
      QVERIFY(s.x >= -0.8 && s.x <= 0.8);
      ++xCells[cellOfUniform(s.x)];
      ++yCells[d == ToyDataset::Gmm2 ? cellOfUniform(s.y) : cellOfNormal(s.y - s.x)];
    }
    auto chi2 = [&](const std::vector<int>& counts) {
      const double e = static_cast<double>(n) / cells;
      double c = 0;
      for (int k : counts) c += (k - e) * (k - e) / e;
      return c;
    };
    const double limit = (cells - 1) + 5 * std::sqrt(2.0 * (cells - 1));  // 5 sd, as above
    QVERIFY2(chi2(xCells) < limit, qPrintable(QString("x: chi2 %1").arg(chi2(xCells))));
    QVERIFY2(chi2(yCells) < limit, qPrintable(QString("y: chi2 %1").arg(chi2(yCells))));
    // The same check tells a wrong spread: y - x against N(0, 2 var) fails.
    if (d != ToyDataset::Gmm2) {
      std::vector<int> wrong(cells, 0);
      std::mt19937_64 again(77);
      for (int i = 0; i < n; ++i) {
        const auto s = drawToySample(d, var, again);
        ++wrong[cellOfNormal((s.y - s.x) / std::sqrt(2.0))];
      }
      QVERIFY(chi2(wrong) > 10 * limit);
    }
  }

  void inputsStayInTheirStatedRanges() {
    std::mt19937_64 rng(9);
    for (int i = 0; i < 2000; ++i) {
      auto s = drawToySample(ToyDataset::Gmm2, 0.01, rng);
      QVERIFY(s.x >= -0.8 && s.x <= 0.8 && s.y >= -0.8 && s.y <= 0.8);
    }
  }

  void namesRoundTrip() {
    for (const auto& name : toyDatasetNames()) QCOMPARE(toString(*parseToyDataset(name)), name);
    QVERIFY(!parseToyDataset("uniform"));
  }
};

QTEST_APPLESS_MAIN(TestToyDatasets)
#include "test_toy_datasets.moc"
