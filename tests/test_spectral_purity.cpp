// Tests the spectrum meter's estimator (core/analysis/spectral_purity.h) on signals whose
// answer is known: a clean tone at any frequency reads ~1 wherever it falls between bins, two
// tones read the power share of the one at the nominal frequency, white noise reads its
// bandwidth (3 / T), a signal with no energy is left out (NaN when alone); the pairs are
// RoPE's half split. And what the meter measures against: RoPE's pairs their own frequencies,
// FoPE's series pairs the frequency their step identity starts them on, the padded pairs 0.
#include <QtTest>

#include <cmath>
#include <random>

#include <torch/torch.h>

#include "core/analysis/spectral_purity.h"
#include "core/nn/transformer/position_encoding.h"

using fl::analysis::pairSpectralPurity;

namespace {

// One signal of P pairs over T positions: pair p is amplitude a_p e^{i w_p t} (+ b_p e^{i v_p t}).
torch::Tensor tones(int64_t T, const std::vector<std::vector<std::pair<double, double>>>& pairs) {
  const int64_t P = static_cast<int64_t>(pairs.size());
  auto x = torch::zeros({1, T, 2 * P}, torch::kDouble);
  for (int64_t p = 0; p < P; ++p)
    for (const auto& [amplitude, w] : pairs[static_cast<size_t>(p)])
      for (int64_t t = 0; t < T; ++t) {
        x[0][t][p] += amplitude * std::cos(w * t);
        x[0][t][p + P] += amplitude * std::sin(w * t);
      }
  return x;
}

}  // namespace

class TestSpectralPurity : public QObject {
  Q_OBJECT

 private slots:
  void aCleanToneReadsNearlyOneWhereverItFalls() {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> frequency(0.0, 2 * M_PI);
    for (int trial = 0; trial < 100; ++trial) {
      const double w = frequency(rng);
      const double purity = pairSpectralPurity(tones(256, {{{1.0, w}}}), {w})[0].item<double>();
      QVERIFY2(purity > 0.975 && purity <= 1.0 + 1e-12, qPrintable(QString::number(purity)));
    }
    // Measured against another frequency, the same tone reads nearly nothing.
    const double off = pairSpectralPurity(tones(256, {{{1.0, 0.5}}}), {2.0})[0].item<double>();
    QVERIFY(off < 1e-3);
  }

  void twoTonesReadThePowerShareAtTheNominalFrequency() {
    const int64_t T = 256;
    const double bin = 2 * M_PI / T;
    for (const auto& [a, b] : {std::pair(1.0, 1.0), std::pair(2.0, 1.0), std::pair(1.0, 3.0)}) {
      const double purity =
          pairSpectralPurity(tones(T, {{{a, 20 * bin}, {b, 60 * bin}}}), {20 * bin})[0]
              .item<double>();
      QVERIFY2(std::abs(purity - a * a / (a * a + b * b)) < 1e-9,
               qPrintable(QString("%1 %2: %3").arg(a).arg(b).arg(purity)));
    }
  }

  void whiteNoiseReadsItsBandwidth() {
    // 400 signals of noise: the mean share is the 3 bins' share of T.
    const int64_t T = 128;
    torch::manual_seed(3);
    const auto noise = torch::randn({400, T, 2}, torch::kDouble);
    const double purity = pairSpectralPurity(noise, {10 * 2 * M_PI / T})[0].item<double>();
    QVERIFY2(std::abs(purity - 3.0 / T) < 0.2 * 3.0 / T, qPrintable(QString::number(purity)));
  }

  void pairsAreTheHalfSplitAndSilenceIsLeftOut() {
    const double w0 = 0.3, w1 = 1.1;
    auto x = tones(128, {{{1.0, w0}}, {{1.0, w1}}, {}});  // pair 2 silent
    const auto purity = pairSpectralPurity(x, {w0, w1, 0.7});
    QVERIFY(purity[0].item<double>() > 0.975);
    QVERIFY(purity[1].item<double>() > 0.975);
    QVERIFY(std::isnan(purity[2].item<double>()));
    // A silent signal beside a clean one does not halve the mean: it is not counted.
    const auto both = torch::cat({x, torch::zeros_like(x)}, 0);
    QVERIFY(std::abs(pairSpectralPurity(both, {w0, w1, 0.7})[0].item<double>() -
                     purity[0].item<double>()) < 1e-12);
  }

  void badShapesAreRefusedWithTheReason() {
    try {
      pairSpectralPurity(torch::zeros({1, 8, 3}), {0.1});
      QFAIL("an odd last dimension was taken");
    } catch (const c10::Error& e) {
      QVERIFY(QString(e.what()).contains("pairs x 2"));
    }
    try {
      pairSpectralPurity(torch::zeros({1, 8, 4}), {0.1});
      QFAIL("one frequency for two pairs was taken");
    } catch (const c10::Error& e) {
      QVERIFY(QString(e.what()).contains("1 frequencies for 2 pairs"));
    }
  }

  void ropeAndFopePairsAreMeasuredAgainstTheirOwnFrequencies() {
    fl::nn::PositionOptions o;
    o.dModel = 32;
    o.heads = 2;  // head size 16: 8 pairs
    o.trainLength = 16;
    o.clipFloor = true;
    fl::nn::PositionEncoding rope(o);
    QCOMPARE(rope->pairFrequencies(), rope->frequencies());
    o.kind = fl::nn::PositionKind::Fope;
    fl::nn::PositionEncoding fope(o);
    const auto kept = fope->fourier()->options().keptFrequencies;
    const int64_t m = fope->fourier()->options().seriesPairs;
    const auto pairs = fope->pairFrequencies();
    QCOMPARE(pairs.size(), size_t(8));
    const int64_t step = (static_cast<int64_t>(kept.size()) + m - 1) / m;
    for (int64_t j = 0; j < 8; ++j) {
      const double expected = j < m && j * step < static_cast<int64_t>(kept.size())
                                  ? kept[static_cast<size_t>(j * step)]
                                  : 0.0;
      QCOMPARE(pairs[static_cast<size_t>(j)], expected);
    }
    o.kind = fl::nn::PositionKind::Alibi;
    QVERIFY(fl::nn::PositionEncoding(o)->pairFrequencies().empty());
  }
};

QTEST_MAIN(TestSpectralPurity)
#include "test_spectral_purity.moc"
