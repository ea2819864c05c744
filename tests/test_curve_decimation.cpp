// Tests widgets/curve_decimation.h: min/max per pixel column against brute force, spikes
// survive, bounded output, and the EMA against its formula.
#include <QtTest>

#include <random>

#include "widgets/curve_decimation.h"

using fl::widgets::decimateMinMax;

class TestCurveDecimation : public QObject {
  Q_OBJECT

 private slots:
  void aOneSampleSpikeSurvivesAMillionPoints() {
    std::vector<double> x(1000000), y(1000000);
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<double>(i);
      y[i] = std::sin(i * 1e-4);
    }
    y[654321] = 50.0;
    y[123456] = -50.0;
    auto c = decimateMinMax(x, y, 0, 999999, 800);
    QVERIFY(c.x.size() <= 4 * 800 + 2);
    QCOMPARE(*std::max_element(c.y.begin(), c.y.end()), 50.0);
    QCOMPARE(*std::min_element(c.y.begin(), c.y.end()), -50.0);
    QVERIFY(std::is_sorted(c.x.begin(), c.x.end()));
  }

  void everyColumnKeepsItsMinimumAndMaximum() {
    std::mt19937 rng(3);
    std::normal_distribution<double> noise;
    std::vector<double> x, y;
    double t = 0;
    for (int i = 0; i < 20000; ++i) {
      t += std::exponential_distribution<double>(1.0)(rng);  // uneven spacing
      x.push_back(t);
      y.push_back(noise(rng));
    }
    const int columns = 97;
    const double lo = x[1000], hi = x[18000];
    auto c = decimateMinMax(x, y, lo, hi, columns);
    const double width = (hi - lo) / columns;
    for (int col = 0; col < columns; ++col) {
      double mn = 1e300, mx = -1e300, cmn = 1e300, cmx = -1e300;
      for (size_t i = 0; i < x.size(); ++i)
        if (x[i] >= lo && x[i] <= hi && static_cast<int>(std::floor((x[i] - lo) / width)) == col) {
          mn = std::min(mn, y[i]);
          mx = std::max(mx, y[i]);
        }
      for (size_t i = 0; i < c.x.size(); ++i)
        if (c.x[i] >= lo && c.x[i] <= hi &&
            static_cast<int>(std::floor((c.x[i] - lo) / width)) == col) {
          cmn = std::min(cmn, c.y[i]);
          cmx = std::max(cmx, c.y[i]);
        }
      if (mn > 1e299) continue;  // an empty column
      QCOMPARE(cmn, mn);
      QCOMPARE(cmx, mx);
    }
    // One point beyond each edge keeps the line running to the borders.
    QCOMPARE(c.x.front(), x[999]);
    QCOMPARE(c.x.back(), x[18001]);
  }

  void shortCurvesAreReturnedWhole() {
    std::vector<double> x{1, 2, 3}, y{3, 1, 2};
    auto c = decimateMinMax(x, y, 0, 10, 100);
    QCOMPARE(c.y, y);
  }

  void emaMatchesItsFormula() {
    std::vector<double> y{1, 2, std::nan(""), 4};
    auto s = fl::widgets::smoothEma(y, 0.5);
    // last_1 = 0.5, debias 0.5 -> 1; last_2 = 0.25 + 1 = 1.25, debias 0.75 -> 5/3;
    // NaN repeats; last_3 = 0.625 + 2 = 2.625, debias 0.875 -> 3.
    QCOMPARE(s[0], 1.0);
    QVERIFY(std::abs(s[1] - 5.0 / 3.0) < 1e-12);
    QVERIFY(std::abs(s[2] - 5.0 / 3.0) < 1e-12);
    QVERIFY(std::abs(s[3] - 3.0) < 1e-12);
    QCOMPARE(fl::widgets::smoothEma(y, 0.0)[3], 4.0);
  }

  void extendingTheEmaEqualsRecomputingIt() {
    std::mt19937 rng(5);
    std::normal_distribution<double> noise;
    std::vector<double> y;
    std::vector<double> extended;
    fl::widgets::EmaState state;
    for (int chunk = 0; chunk < 10; ++chunk) {
      for (int i = 0; i < 37; ++i) y.push_back(noise(rng));
      fl::widgets::extendEma(y, 0.8, state, extended);
    }
    QCOMPARE(extended, fl::widgets::smoothEma(y, 0.8));
  }
};

QTEST_APPLESS_MAIN(TestCurveDecimation)
#include "test_curve_decimation.moc"
