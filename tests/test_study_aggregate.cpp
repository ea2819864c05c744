// Tests the reading side of studies: mean / std / n over seeds against hand-computed
// values, the table's verdicts against the paper, the figure's series and bands, and the thread
// budget.
#include <QtTest>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "core/study/agreement.h"
#include "core/study/f_distribution.h"
#include "core/study/study_aggregate.h"
#include "core/study/study_claims.h"
#include "core/study/study_figure.h"
#include "core/study/study_table.h"
#include "core/study/thread_budget.h"

using namespace fl::study;

namespace {

StudyRunResult run(const std::string& dataset, const std::string& head, int64_t seed, double kl,
                   CellStatus status = fl::RunStatus::Finished, const std::string& arm = "") {
  StudyRunResult r;
  r.cell = seed;
  r.runId = seed + 100;
  r.status = status;
  r.arm = arm;
  r.axes = {{"dataset", dataset}, {"head", head}};
  r.config = {{"dataset", dataset}, {"head", head}, {"seed", seed}};
  r.seed = seed;
  r.last = {{"test/kl", kl}, {"test/smoothness", kl / 10}};
  r.lowest = {{"test/kl", kl / 2}};
  return r;
}

// "`text`": the Fourier head's test/kl lower than the linear head's.
StudyClaim fourierBelowLinear(const std::string& text) {
  StudyClaim claim;
  claim.text = text;
  claim.metric = "test/kl";
  claim.better = "lower";
  claim.a = {{"head", "fourier"}};
  claim.b = {{"head", "linear"}};
  return claim;
}

// The integral of t^(a-1) (1-t)^(b-1) over [0, y], y <= 1/2, by Simpson's rule over s = sqrt(t):
// 2 s^(2a-1) (1-s^2)^(b-1) is a smooth integrand where 2a is a whole number (an F
// distribution's degrees of freedom), with neither t^(a-1)'s pole nor its kink at 0.
double betaIntegral(double a, double b, double y) {
  const int intervals = 20000;
  const double end = std::sqrt(y);
  const double h = end / intervals;
  auto f = [&](double s) { return 2 * std::pow(s, 2 * a - 1) * std::pow(1 - s * s, b - 1); };
  double sum = f(0) + f(end);
  for (int i = 1; i < intervals; ++i) sum += (i % 2 ? 4 : 2) * f(i * h);
  return sum * h / 3;
}

// I_z(a, b), integrated: an independent computation of what core/study/f_distribution evaluates
// by a continued fraction. Past 1/2 the part beyond is integrated from the 1 side.
double integratedIncompleteBeta(double a, double b, double z) {
  const double beta = std::exp(std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b));
  if (z <= 0.5) return betaIntegral(a, b, z) / beta;
  return (betaIntegral(a, b, 0.5) + betaIntegral(b, a, 0.5) - betaIntegral(b, a, 1 - z)) / beta;
}

// Two-sided p of the F test of two spreads, from the integrated distribution function.
double integratedSpreadP(double sA, int nA, double sB, int nB) {
  const double d1 = nA - 1, d2 = nB - 1, ratio = sA * sA / (sB * sB);
  const double lower = integratedIncompleteBeta(d1 / 2, d2 / 2, d1 * ratio / (d1 * ratio + d2));
  return std::min(1.0, 2 * std::min(lower, 1 - lower));
}

StudyReferences paper() {
  StudyReferences r;
  r.source = "Table 1";
  r.rows.push_back({{{"dataset", "gmm2"}, {"head", "fourier"}}, {{"test/kl", {0.146, 0.033}}}});
  r.rows.push_back({{{"dataset", "gmm2"}, {"head", "linear"}}, {{"test/kl", {0.238, 0.032}}}});
  return r;
}

}  // namespace

class TestStudyAggregate : public QObject {
  Q_OBJECT

 private slots:
  // A figure's y axis used to read the bare metric key where the study gave no title: it reads
  // as the experiment's panel labels the metric, key beside it; a title given is kept.
  void aFiguresMetricsTakeTheirPanelsAxisTitlesAndBounds() {
    fl::PanelSpec kl;
    kl.series = {"test/kl"};
    kl.yLabel = "KL";
    fl::PanelSpec ppl;
    ppl.series = {"val/ppl@*"};
    ppl.yLabel = "perplexity";
    kl.yFloor = 0;
    fl::study::FigureLayout layout;
    layout.metrics = {"test/kl", "val/ppl@256", "val/other", "test/mse"};
    layout.yTitles["test/mse"] = "squared error";
    fl::study::addMetricAxes(layout, {kl, ppl});
    QCOMPARE(layout.yTitles["test/kl"], std::string("KL (test/kl)"));
    QCOMPARE(layout.yTitles["val/ppl@256"], std::string("perplexity (val/ppl@256)"));
    QCOMPARE(layout.yTitles["test/mse"], std::string("squared error"));
    QVERIFY(!layout.yTitles.count("val/other"));  // no panel draws it: its key stays
    // The floor its panel declares comes with it; a metric whose panel declares none has none.
    QCOMPARE(layout.yBounds.at("test/kl").first, 0.0);
    QCOMPARE(layout.yBounds.at("test/kl").second, std::numeric_limits<double>::infinity());
    QVERIFY(!layout.yBounds.count("val/ppl@256"));
    QVERIFY(!layout.yBounds.count("test/mse"));
  }

  void meanAndSampleStdOverSeedsMatchHandComputedValues() {
    // KL 0.1, 0.2, 0.4: mean 7/30, sample variance ((0.1-m)^2+(0.2-m)^2+(0.4-m)^2)/2.
    const auto cells = aggregate({run("gmm2", "fourier", 1, 0.1), run("gmm2", "fourier", 2, 0.2),
                                  run("gmm2", "fourier", 3, 0.4), run("gmm2", "linear", 1, 0.3)});
    QCOMPARE(cells.size(), size_t(2));
    const auto& s = cells[0].metrics.at("test/kl");
    const double m = 0.7 / 3;
    const double var = ((0.1 - m) * (0.1 - m) + (0.2 - m) * (0.2 - m) + (0.4 - m) * (0.4 - m)) / 2;
    QCOMPARE(s.n, 3);
    QVERIFY(std::abs(s.mean - m) < 1e-15);
    QVERIFY(std::abs(s.std - std::sqrt(var)) < 1e-15);
    QCOMPARE(s.min, 0.1);
    QCOMPARE(s.max, 0.4);
    QVERIFY(std::isnan(cells[1].metrics.at("test/kl").std));  // one seed: no spread
    QCOMPARE(cells[0].seeds, (std::vector<int64_t>{1, 2, 3}));
  }

  void onlyFinishedRunsCountAndTheirStatusesAreKept() {
    const auto cells = aggregate({run("gmm2", "fourier", 1, 0.1),
                                  run("gmm2", "fourier", 2, 9.0, fl::RunStatus::Failed),
                                  run("gmm2", "fourier", 3, 0.3, fl::RunStatus::Running)});
    QCOMPARE(cells[0].metrics.at("test/kl").n, 1);
    QCOMPARE(cells[0].statusCounts.at(fl::RunStatus::Failed), 1);
    QCOMPARE(cells[0].finished(), 1);
  }

  // Reused runs are counted once (two cells may share one), named up to eight, in cell order.
  void reusedRunsAreCountedOnceAndNamed() {
    std::vector<StudyRunResult> runs;
    QCOMPARE(reusedRunsText(runs), std::string());
    for (int64_t seed = 0; seed < 12; ++seed) runs.push_back(run("gmm2", "fourier", seed, 0.1));
    QCOMPARE(reusedRunsText(runs), std::string());
    runs[3].reused = true;
    runs[5].reused = true;
    runs.push_back(runs[5]);
    QCOMPARE(reusedRunsText(runs),
             std::string("2 runs trained before the study (#103, #105) are taken as they are: "
                         "same experiment, settings and seed"));
    for (auto& r : runs) r.reused = true;
    QCOMPARE(reusedRunsText(runs),
             std::string("12 runs trained before the study (#100, #101, #102, #103, #104, #105, "
                         "#106, #107, ...) are taken as they are: same experiment, settings and "
                         "seed"));
  }

  void bestValuesAggregateWhenThePaperReportsTheBest() {
    const auto cells =
        aggregate({run("gmm2", "fourier", 1, 0.2), run("gmm2", "fourier", 2, 0.4)}, "min");
    QVERIFY(std::abs(cells[0].metrics.at("test/kl").mean - 0.15) < 1e-15);
  }

  void randomValuesAgreeWithTheDefinition() {
    std::mt19937 rng(7);
    std::normal_distribution<double> noise(0.5, 0.2);
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<double> v(2 + trial % 9);
      for (auto& x : v) x = noise(rng);
      const auto s = describe(v);
      double sum = 0;
      for (double x : v) sum += x;
      const double mean = sum / v.size();
      double ss = 0;
      for (double x : v) ss += (x - mean) * (x - mean);
      QVERIFY(std::abs(s.mean - mean) < 1e-12);
      QVERIFY(std::abs(s.std - std::sqrt(ss / (v.size() - 1))) < 1e-12);
      QVERIFY(s.min <= s.mean && s.mean <= s.max);
    }
  }

  void agreementJudgesTheDifferenceOfTwoMeansByItsStandardError() {
    // Hand-computed: ours 0.29, 0.31 (mean 0.30, s = 0.01414, n 2); the paper 0.238 ± 0.032
    // over 4 seeds. SE = sqrt(0.032^2 / 4 + 0.0002 / 2) = sqrt(0.000356) = 0.018868.
    const auto ours = describe({0.29, 0.31});
    ReferenceValue paper{0.238, 0.032, 4};
    auto a = judgeAgreement(ours, paper);
    QCOMPARE(int(a.rule), int(AgreementRule::BothSpreads));
    QVERIFY(std::abs(a.bound - 2 * std::sqrt(0.000356)) < 1e-12);
    QVERIFY(std::abs(a.difference - 0.062) < 1e-12);
    QCOMPARE(a.agrees, std::optional<bool>(false));
    QCOMPARE(a.explanation(ours, paper),
             std::string("|Δ| 0.062 > 0.038 = 2 SE (paper 4 seeds, ours 2)"));
    // Both spreads can pass what the paper's spread alone would not: 0.280 is 0.042 above the
    // paper's 0.238 (outside its ± 0.032) but within 2 SE = 0.0566 of a difference of means.
    const auto near = describe({0.26, 0.30});  // mean 0.28, s = 0.02828
    a = judgeAgreement(near, paper);
    const double bound = 2 * std::sqrt(0.032 * 0.032 / 4 + 0.0008 / 2);  // 0.0566
    QVERIFY(std::abs(a.bound - bound) < 1e-12);
    QCOMPARE(a.agrees, std::optional<bool>(true));
    // No published spread: SE from our seeds alone (the smoothness row): |0.28 - 0.25| = 0.03
    // against 2 sqrt(0.0008 / 2) = 0.04 agrees; 0.05 above 0.23 does not.
    a = judgeAgreement(near, ReferenceValue{0.25, std::nullopt, 4});
    QCOMPARE(int(a.rule), int(AgreementRule::OursOnly));
    QVERIFY(std::abs(a.bound - 2 * std::sqrt(0.0008 / 2)) < 1e-12);
    QCOMPARE(a.agrees, std::optional<bool>(true));
    QCOMPARE(judgeAgreement(near, ReferenceValue{0.23, std::nullopt, 4}).agrees,
             std::optional<bool>(false));
  }

  void theFDistributionMatchesClosedFormsTablesAndIntegration() {
    // Printed critical values: each is the quantile whose upper tail is named.
    QVERIFY(std::abs(fUpperTail(15.439, 3, 3) - 0.025) < 2e-5);
    QVERIFY(std::abs(fUpperTail(47.467, 3, 3) - 0.005) < 2e-6);
    QVERIFY(std::abs(fUpperTail(5.636, 5, 10) - 0.01) < 2e-5);
    QVERIFY(std::abs(fUpperTail(4.965, 1, 10) - 0.05) < 2e-5);
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<int> dof(2, 30);
    for (int trial = 0; trial < 300; ++trial) {
      const double x = std::exp(8 * u(rng) - 4);  // 0.018 .. 55
      const double d1 = dof(rng), d2 = dof(rng);
      // Closed forms: F(2, d2) and F(1, 1).
      QVERIFY(std::abs(fLowerTail(x, 2, d2) - (1 - std::pow(1 + 2 * x / d2, -d2 / 2))) < 1e-12);
      QVERIFY(std::abs(fLowerTail(x, 1, 1) - 2 / M_PI * std::atan(std::sqrt(x))) < 1e-12);
      // The integral of the density, and the two tails summing to 1.
      const double lower = fLowerTail(x, d1, d2);
      const double z = d1 * x / (d1 * x + d2);
      QVERIFY2(std::abs(lower - integratedIncompleteBeta(d1 / 2, d2 / 2, z)) < 1e-9,
               qPrintable(QString("F(%1, %2) at %3").arg(d1).arg(d2).arg(x)));
      QVERIFY(std::abs(lower + fUpperTail(x, d1, d2) - 1) < 1e-12);
    }
    // A tail far below 1 - 1e-16 keeps its digits: F(3, 3) above 1e6 is 1.7e-9, not 0.
    const double tail = fUpperTail(1e6, 3, 3);
    QVERIFY(tail > 1e-10 && tail < 1e-8);
    QCOMPARE(spreadRatioP(0.0, 4, 0.0, 4), 1.0);
    QCOMPARE(spreadRatioP(0.0, 4, 0.1, 4), 0.0);
    QVERIFY(std::abs(spreadRatioP(0.1, 4, 0.1, 4) - 1) < 1e-12);
  }

  // One of our seeds stuck far off widened our SE until the mean "agreed" with the paper's
  // 0.030 ± 0.006, where every seed but one sat outside it: the spreads now must agree too.
  void agreementAsksTheSpreadsToAgreeToo() {
    const auto ours = describe({0.529, 0.045, 0.040, 0.040});  // the stuck GMM seed on gmm2
    const ReferenceValue paper{0.030, 0.006, 4};
    const auto a = judgeAgreement(ours, paper);
    QCOMPARE(int(a.rule), int(AgreementRule::BothSpreads));
    QVERIFY(std::abs(a.difference) <= a.bound);  // the means alone would agree
    QVERIFY(a.spreadP);
    QVERIFY(std::abs(*a.spreadP - integratedSpreadP(ours.std, 4, 0.006, 4)) < 1e-9);
    QVERIFY(a.spreadsDiffer());
    QCOMPARE(a.agrees, std::optional<bool>(false));
    QVERIFY2(a.explanation(ours, paper)
                     .find("spreads differ: ours 0.244, the paper's 0.006 (paper 4 seeds, ours "
                           "4), F test p = ") == 0,
             a.explanation(ours, paper).c_str());
    // The mean (0.164, over five times the paper's) is within 2 SE only through the stuck seed's
    // spread: not close, so the word is DIFFERS, not "(spread)" (which read as close means). At
    // the smaller spread on both sides 2 SE is 2 x 0.006 x sqrt(1/4 + 1/4) = 0.0085.
    QVERIFY(std::abs(a.tightBound - 2 * 0.006 * std::sqrt(0.5)) < 1e-12);
    QVERIFY(!a.meansClose());
    QVERIFY2(a.explanation(ours, paper)
                     .find("; the means agree only through the wider spread: |Δ| 0.134 ≤ 0.244 = "
                           "2 SE, > 0.008 = 2 SE at the smaller spread") != std::string::npos,
             a.explanation(ours, paper).c_str());
    QCOMPARE(agreementWord(a), std::string("DIFFERS"));
    // Means close even at the smaller spread, our seeds far tighter than the paper's: the word
    // says the spread alone differs.
    const auto tight = describe({0.0301, 0.0302, 0.0299, 0.0300});
    const auto c = judgeAgreement(tight, paper);
    QVERIFY(c.spreadsDiffer());
    QVERIFY(c.meansClose());
    QVERIFY2(c.explanation(tight, paper).find("; the means alone agree: |Δ|") != std::string::npos,
             c.explanation(tight, paper).c_str());
    QCOMPARE(agreementWord(c), std::string("DIFFERS (spread)"));
    // Without the stuck seed both the means and the spreads are judged, and the means differ.
    const auto rest = describe({0.045, 0.040, 0.040});
    const auto b = judgeAgreement(rest, paper);
    QVERIFY(!b.spreadsDiffer());
    QCOMPARE(b.agrees, std::optional<bool>(false));
    QCOMPARE(agreementWord(b), std::string("DIFFERS"));
    QCOMPARE(agreementWord(judgeAgreement(rest, ReferenceValue{0.042, 0.003, 4})),
             std::string("agrees"));
    QCOMPARE(agreementWord(Agreement{}), std::string());
    // A spread of 0 on the paper's side (a rounded figure) cannot be compared: no F test.
    QVERIFY(!judgeAgreement(rest, ReferenceValue{0.042, 0.0, 4}).spreadP);
  }

  // One run of ours is judged as a lone run's verdict is: 2 SE of the difference between one run
  // and a mean of the paper's n, the run's spread taken as the paper's. Within mean ± std alone
  // (the rule before) called a faithful run outside about a third of the time.
  void agreementFallsBackToThePapersSpreadAndSaysSo() {
    const auto one = describe({0.20});
    auto a = judgeAgreement(one, ReferenceValue{0.238, 0.032, 4});
    QCOMPARE(int(a.rule), int(AgreementRule::OneRun));
    QCOMPARE(a.bound, 2 * std::sqrt(0.032 * 0.032 / 4 + 0.032 * 0.032));
    QCOMPARE(a.agrees, std::optional<bool>(true));  // 0.038 <= 0.0716 (it was > 0.032)
    QVERIFY2(a.explanation(one, ReferenceValue{0.238, 0.032, 4}) ==
                 "|Δ| 0.038 ≤ 0.072 = 2 SE of one run of ours against the paper's mean of 4 "
                 "seeds (our run's spread taken as the paper's)",
             a.explanation(one, ReferenceValue{0.238, 0.032, 4}).c_str());
    QCOMPARE(judgeAgreement(describe({0.12}), ReferenceValue{0.238, 0.032, 4}).agrees,
             std::optional<bool>(false));  // 0.118 > 0.0716
    // The paper's seed count unknown: 2 std, the narrowest such band (n large).
    QCOMPARE(judgeAgreement(one, ReferenceValue{0.238, 0.032, std::nullopt}).bound, 0.064);
    // The same bound as a lone run's verdict against a preset's figures.
    QCOMPARE(a.bound, fl::oneRunBound(0.032, 4));
    a = judgeAgreement(describe({0.20, 0.22}), ReferenceValue{0.238, 0.032, std::nullopt});
    QCOMPARE(int(a.rule), int(AgreementRule::PaperSpread));
    QCOMPARE(a.agrees, std::optional<bool>(true));  // 0.028 <= 0.032
    a = judgeAgreement(one, ReferenceValue{0.238, std::nullopt, 4});
    QCOMPARE(int(a.rule), int(AgreementRule::None));
    QVERIFY(!a.agrees);
    QVERIFY(!judgeAgreement(describe({}), ReferenceValue{0.238, 0.032, 4}).agrees);
  }

  void agreementMatchesTheFormulasOverRandomMeansAndIsScaleFree() {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<int> count(2, 8);
    for (int trial = 0; trial < 500; ++trial) {
      std::vector<double> v(static_cast<size_t>(count(rng)));
      for (auto& x : v) x = u(rng);
      const ReferenceValue paper{u(rng), 0.3 * u(rng), count(rng)};
      const auto ours = describe(v);
      double sum = 0, ss = 0;
      for (double x : v) sum += x;
      const double mean = sum / v.size();
      for (double x : v) ss += (x - mean) * (x - mean);
      const double var = ss / (v.size() - 1);
      const double se = std::sqrt(*paper.std * *paper.std / *paper.seeds + var / v.size());
      const double spreadP =
          integratedSpreadP(std::sqrt(var), int(v.size()), *paper.std, *paper.seeds);
      if (std::abs(spreadP - kSpreadTestLevel) < 1e-6) continue;  // too near the line to judge
      const bool expected = std::abs(mean - paper.mean) <= 2 * se && spreadP >= kSpreadTestLevel;
      const auto a = judgeAgreement(ours, paper);
      QCOMPARE(a.agrees, std::optional<bool>(expected));
      // Changing units changes nothing (away from the boundary, where rounding could).
      if (std::abs(std::abs(mean - paper.mean) - 2 * se) > 1e-9) {
        std::vector<double> scaled = v;
        for (auto& x : scaled) x *= 1000;
        const ReferenceValue paperScaled{paper.mean * 1000, *paper.std * 1000, paper.seeds};
        QCOMPARE(judgeAgreement(describe(scaled), paperScaled).agrees, a.agrees);
      }
    }
  }

  void aClaimIsJudgedByTheDifferenceOfTheTwoSidesMeans() {
    // fourier 0.10, 0.12, 0.14 (mean 0.12, s 0.02); linear 0.30, 0.34 (mean 0.32, s 0.02828).
    // SE = sqrt(0.0004 / 3 + 0.0008 / 2) = 0.023094; d = -0.20, beyond 2 SE = 0.046188.
    const auto cells = aggregate({run("gmm2", "fourier", 1, 0.10), run("gmm2", "fourier", 2, 0.12),
                                  run("gmm2", "fourier", 3, 0.14), run("gmm2", "linear", 1, 0.30),
                                  run("gmm2", "linear", 2, 0.34), run("beta", "linear", 1, 0.5)});
    StudyClaim claim;
    claim.text = "the Fourier head fits gmm2 better";
    claim.metric = "test/kl";
    claim.better = "lower";
    claim.a = {{"dataset", "gmm2"}, {"head", "fourier"}};
    claim.b = {{"dataset", "gmm2"}, {"head", "linear"}};
    auto v = judgeClaims({claim}, cells, {}).at(0);
    QCOMPARE(int(v.outcome), int(ClaimOutcome::Holds));
    QVERIFY(std::abs(v.difference + 0.20) < 1e-12);
    QVERIFY(std::abs(v.bound - 2 * std::sqrt(0.0004 / 3 + 0.0008 / 2)) < 1e-12);
    QCOMPARE(v.a.n, 3);
    QCOMPARE(v.b.n, 2);  // beta's linear run is not on either side
    QVERIFY2(v.summary().find("holds: the Fourier head fits gmm2 better (test/kl: dataset gmm2, "
                              "head fourier 0.120 ± 0.020 (3) against") == 0,
             v.summary().c_str());

    claim.better = "higher";  // the same numbers, claimed the other way round
    QCOMPARE(int(judgeClaims({claim}, cells, {}).at(0).outcome), int(ClaimOutcome::Contradicted));

    // A side run otherwise than the study declares: its numbers shown, its departure named,
    // no outcome; a cell on neither side departing changes nothing.
    auto departed = cells;
    for (auto& cell : departed)
      if (cell.config.value("dataset", "") == "beta") cell.departures = {"epochs 3 (x)"};
    QCOMPARE(int(judgeClaims({claim}, departed, {}).at(0).outcome),
             int(ClaimOutcome::Contradicted));
    for (auto& cell : departed)
      if (cell.config.value("head", "") == "linear")
        cell.departures = {"epochs 20 (the study's 500)"};
    const auto notJudged = judgeClaims({claim}, departed, {}).at(0);
    QCOMPARE(int(notJudged.outcome), int(ClaimOutcome::NotJudged));
    QCOMPARE(notJudged.b.n, 2);
    QVERIFY2(notJudged.summary().find("not judged: the Fourier head fits gmm2 better") == 0 &&
                 notJudged.summary().find("; departs: epochs 20 (the study's 500))") !=
                     std::string::npos,
             notJudged.summary().c_str());

    // The ratio metric / over per run: smoothness is kl / 10 in every run, so the sides are
    // 0.1 each, equal: unresolved (d = 0 within 2 SE = 0).
    claim.metric = "test/smoothness";
    claim.over = "test/kl";
    v = judgeClaims({claim}, cells, {}).at(0);
    QCOMPARE(int(v.outcome), int(ClaimOutcome::Unresolved));
    QVERIFY(std::abs(v.a.mean - 0.1) < 1e-12 && std::abs(v.b.mean - 0.1) < 1e-12);

    // One run on a side is not enough to judge.
    claim.over.clear();
    claim.a = {{"dataset", "gmm2"}, {"head", "linear"}};
    claim.b = {{"dataset", "beta"}, {"head", "linear"}};
    v = judgeClaims({claim}, cells, {}).at(0);
    QCOMPARE(int(v.outcome), int(ClaimOutcome::NotMeasured));
    QVERIFY2(v.summary().find("; needs two finished runs a side)") != std::string::npos,
             v.summary().c_str());
    QVERIFY(v.atSetting);  // a setting whose runs are too few: the window counts it a setting
    // What is missing is said: a side matching no run, a metric no run has.
    claim.b = {{"dataset", "beta"}, {"head", "gmm"}};
    v = judgeClaims({claim}, cells, {}).at(0);
    QVERIFY2(v.summary().find("; side b matches no run of the study)") != std::string::npos,
             v.summary().c_str());
    QVERIFY(!v.atSetting);  // the claim as a whole, at no setting
    // Its sides named without numbers: "- (0)" had read as sides of no runs.
    QVERIFY2(
        v.summary().find("(test/smoothness: dataset gmm2, head linear against dataset beta, head "
                         "gmm; side b") != std::string::npos,
        v.summary().c_str());
    claim.b = {{"dataset", "beta"}, {"head", "linear"}};
    claim.metric = "test/nope";
    v = judgeClaims({claim}, cells, {}).at(0);
    QVERIFY2(v.summary().find("; no run on side a has test/nope)") != std::string::npos,
             v.summary().c_str());
    // A ratio's divisor no run records is said so, not read as too few runs.
    claim.metric = "test/kl";
    claim.over = "test/msee";
    v = judgeClaims({claim}, cells, {}).at(0);
    QVERIFY2(v.summary().find("; no run on side a has test/msee)") != std::string::npos,
             v.summary().c_str());
    claim.over.clear();
    claim.metric = "test/nope";
    // A side leaving the head open is compared at the other side's head: the Fourier head on
    // gmm2 against the only head beta has, the linear one, is no comparison of datasets.
    claim.metric = "test/kl";
    claim.a = {{"dataset", "gmm2"}, {"head", "fourier"}};
    claim.b = {{"dataset", "beta"}};
    v = judgeClaims({claim}, cells, {}).at(0);
    QCOMPARE(int(v.outcome), int(ClaimOutcome::NotMeasured));
    QVERIFY2(v.summary().find("; the sides are never at one setting of head (fourier against "
                              "linear))") != std::string::npos,
             v.summary().c_str());
  }

  // The sides are compared only at one setting of what the claim does not name apart, whether an
  // axis, an arm or a default sets it. Each case below had been judged, gmm2 against beta or a
  // Fourier head against a linear one, with nothing said.
  void aClaimComparesItsSidesAtOneSettingOfEverythingElse() {
    // Arms fixing their datasets (no axis): F on gmm2, L on beta.
    std::vector<StudyRunResult> runs;
    for (int seed = 1; seed <= 3; ++seed) {
      auto fourier = run("gmm2", "fourier", seed, 0.1 + 0.01 * seed, fl::RunStatus::Finished, "F");
      fourier.axes = nlohmann::json::object();
      auto linear = run("beta", "linear", seed, 0.5 + 0.01 * seed, fl::RunStatus::Finished, "L");
      linear.axes = nlohmann::json::object();
      runs.push_back(fourier);
      runs.push_back(linear);
    }
    const auto cells = aggregate(runs);
    StudyClaim claim = fourierBelowLinear("fourier below linear");
    auto verdicts = judgeClaims({claim}, cells, {});
    QCOMPARE(int(verdicts.size()), 1);
    QCOMPARE(int(verdicts[0].outcome), int(ClaimOutcome::NotMeasured));
    QVERIFY2(verdicts[0].summary().find("the sides are never at one setting of dataset (gmm2 "
                                        "against beta)") != std::string::npos,
             verdicts[0].summary().c_str());
    // Named apart, the datasets are what the claim compares: judged.
    claim.a["dataset"] = "gmm2";
    claim.b["dataset"] = "beta";
    verdicts = judgeClaims({claim}, cells, {});
    QCOMPARE(int(verdicts[0].outcome), int(ClaimOutcome::Holds));
    // Sides naming their arms compare the arms as they are set: judged, said by the arms.
    claim.a = {{"arm", "F"}};
    claim.b = {{"arm", "L"}};
    verdicts = judgeClaims({claim}, cells, {});
    QCOMPARE(int(verdicts.size()), 1);
    QCOMPARE(int(verdicts[0].outcome), int(ClaimOutcome::Holds));
    QVERIFY2(verdicts[0].summary().find("(test/kl: arm F 0.120 ± 0.010 (3) against arm L") !=
                 std::string::npos,
             verdicts[0].summary().c_str());
    // Arms over a dataset axis meet at each dataset.
    std::vector<StudyRunResult> byDataset;
    for (int seed = 1; seed <= 2; ++seed)
      for (const auto& dataset : {"gmm2", "beta"}) {
        byDataset.push_back(
            run(dataset, "fourier", seed, 0.1 * seed, fl::RunStatus::Finished, "F"));
        byDataset.push_back(run(dataset, "linear", seed, 0.3 * seed, fl::RunStatus::Finished, "L"));
      }
    for (auto& r : byDataset) r.axes = {{"dataset", r.config.at("dataset")}};
    verdicts = judgeClaims({claim}, aggregate(byDataset), {});
    QCOMPARE(int(verdicts.size()), 2);
    for (const auto& v : verdicts) QCOMPARE(v.whereA.at("dataset"), v.whereB.at("dataset"));

    // Open datasets on both sides that never meet: no verdict either.
    std::vector<StudyRunResult> open;
    for (int seed = 1; seed <= 2; ++seed)
      for (const auto& [dataset, head] : std::vector<std::pair<std::string, std::string>>{
               {"gmm2", "fourier"}, {"gaussian", "fourier"}, {"beta", "linear"}})
        open.push_back(run(dataset, head, seed, 0.1 * seed));
    claim.a = {{"head", "fourier"}};
    claim.b = {{"head", "linear"}};
    verdicts = judgeClaims({claim}, aggregate(open), {});
    QCOMPARE(int(verdicts.size()), 1);
    QVERIFY2(verdicts[0].summary().find("never at one setting of dataset (gmm2, gaussian against "
                                        "beta)") != std::string::npos,
             verdicts[0].summary().c_str());
    // A side fixing gaussian meets no gaussian on the other side.
    claim.a["dataset"] = "gaussian";
    verdicts = judgeClaims({claim}, aggregate(open), {});
    QCOMPARE(int(verdicts.size()), 1);
    QCOMPARE(int(verdicts[0].outcome), int(ClaimOutcome::NotMeasured));

    // A value a run does not use neither matches a side nor keeps sides apart: `gamma 0` had
    // picked the linear head, whose unused gamma is stored at its default.
    const std::vector<fl::ParamSpec> params{
        fl::ParamSpec::choice("head", "fourier", {"fourier", "linear"}, ""),
        fl::ParamSpec::real("gamma", 0, 0, 1, "").usedOnlyWhen("head", {"fourier"}),
        fl::ParamSpec::choice("dataset", "gmm2", {"gmm2", "beta"}, "")};
    std::vector<StudyRunResult> unused;
    for (int seed = 1; seed <= 2; ++seed) {
      auto regularised = run("gmm2", "fourier", seed, 0.1 * seed, fl::RunStatus::Finished, "reg");
      regularised.config["gamma"] = 1e-6;
      auto linear = run("gmm2", "linear", seed, 0.3 * seed, fl::RunStatus::Finished, "lin");
      linear.config["gamma"] = 0;
      unused.push_back(regularised);
      unused.push_back(linear);
    }
    claim.a = {{"gamma", 1e-6}};
    claim.b = {{"gamma", 0}};
    verdicts = judgeClaims({claim}, aggregate(unused), params);
    QCOMPARE(int(verdicts.size()), 1);
    QVERIFY2(verdicts[0].summary().find("side b matches no run of the study") != std::string::npos,
             verdicts[0].summary().c_str());
    // While the Fourier head against the linear one at gmm2 is judged, its unused gamma apart.
    claim.a = {{"head", "fourier"}};
    claim.b = {{"head", "linear"}};
    verdicts = judgeClaims({claim}, aggregate(unused), params);
    QCOMPARE(int(verdicts.size()), 1);
    QVERIFY2(verdicts[0].outcome != ClaimOutcome::NotMeasured, verdicts[0].summary().c_str());
    // A side whose gamma picks the Fourier head alone, against side b's linear head: never at
    // one head, and the reason says how to compare them; named, they are judged.
    claim.a = {{"gamma", 1e-6}};
    verdicts = judgeClaims({claim}, aggregate(unused), params);
    QCOMPARE(int(verdicts.size()), 1);
    QVERIFY2(
        verdicts[0].summary().find(
            "never at one setting of head (fourier against linear); side a's gamma is used "
            "only when head is fourier: name head fourier on side a too)") != std::string::npos,
        verdicts[0].summary().c_str());
    claim.a = {{"gamma", 1e-6}, {"head", "fourier"}};
    verdicts = judgeClaims({claim}, aggregate(unused), params);
    QCOMPARE(int(verdicts.size()), 1);
    QVERIFY2(verdicts[0].outcome != ClaimOutcome::NotMeasured, verdicts[0].summary().c_str());

    // One side inside the other: a setting against itself is no comparison.
    for (const auto& [a, b] : std::vector<std::pair<nlohmann::json, nlohmann::json>>{
             {{{"dataset", "gmm2"}}, {{"dataset", "gmm2"}, {"head", "linear"}}},
             {{{"head", "linear"}}, {{"dataset", "gmm2"}}}}) {
      claim.a = a;
      claim.b = b;
      verdicts = judgeClaims({claim}, aggregate(unused), params);
      QCOMPARE(int(verdicts.size()), 1);
      QVERIFY2(verdicts[0].summary().find("at one setting only where they pick the same runs") !=
                   std::string::npos,
               verdicts[0].summary().c_str());
    }
    // A side that names nothing reads as every run, not as a blank.
    claim.a = nlohmann::json::object();
    claim.b = {{"head", "linear"}};
    verdicts = judgeClaims({claim}, aggregate(unused), params);
    QVERIFY2(verdicts[0].summary().find("(test/kl: every run ") != std::string::npos,
             verdicts[0].summary().c_str());
  }

  // Sides that leave the dataset open: each dataset is judged apart. Pooled, the two datasets'
  // runs had read as six seeds of one setting, their spread between datasets taken for seeds'.
  void aClaimOverAnOpenAxisIsJudgedPerSettingNotPooled() {
    // gmm2: fourier 0.10, 0.12, 0.14 against linear 0.30, 0.34, 0.32 (holds);
    // beta: fourier 0.50, 0.52, 0.54 against linear 0.20, 0.22, 0.24 (contradicted).
    std::vector<StudyRunResult> runs;
    const double fourierGmm2[] = {0.10, 0.12, 0.14}, linearGmm2[] = {0.30, 0.34, 0.32};
    const double fourierBeta[] = {0.50, 0.52, 0.54}, linearBeta[] = {0.20, 0.22, 0.24};
    for (int s = 0; s < 3; ++s) {
      runs.push_back(run("gmm2", "fourier", s + 1, fourierGmm2[s]));
      runs.push_back(run("gmm2", "linear", s + 1, linearGmm2[s]));
      runs.push_back(run("beta", "fourier", s + 1, fourierBeta[s]));
      runs.push_back(run("beta", "linear", s + 1, linearBeta[s]));
    }
    const auto cells = aggregate(runs);
    StudyClaim claim = fourierBelowLinear("the Fourier head fits better");
    const auto verdicts = judgeClaims({claim}, cells, {});
    QCOMPARE(int(verdicts.size()), 2);
    for (const auto& v : verdicts) {
      QCOMPARE(v.a.n, 3);  // three seeds, not six runs of two datasets
      QCOMPARE(v.b.n, 3);
      QCOMPARE(v.whereA.at("dataset"), v.whereB.at("dataset"));
      QCOMPARE(v.whereA.at("head").get<std::string>(), std::string("fourier"));
    }
    const auto& gmm2 = verdicts[0].whereA.at("dataset") == "gmm2" ? verdicts[0] : verdicts[1];
    const auto& beta = &gmm2 == &verdicts[0] ? verdicts[1] : verdicts[0];
    QCOMPARE(int(gmm2.outcome), int(ClaimOutcome::Holds));
    QCOMPARE(int(beta.outcome), int(ClaimOutcome::Contradicted));
    QVERIFY(std::abs(gmm2.a.mean - 0.12) < 1e-12 && std::abs(gmm2.b.mean - 0.32) < 1e-12);
    QVERIFY2(gmm2.summary().find("(test/kl: dataset gmm2, head fourier 0.120 ± 0.020 (3) against "
                                 "dataset gmm2, head linear 0.320") != std::string::npos,
             gmm2.summary().c_str());

    // A side fixing the dataset meets the other side's setting of that dataset only.
    claim.a = {{"head", "fourier"}, {"dataset", "beta"}};
    const auto one = judgeClaims({claim}, cells, {});
    QCOMPARE(int(one.size()), 1);
    QCOMPARE(one[0].whereB.at("dataset").get<std::string>(), std::string("beta"));
    QCOMPARE(int(one[0].outcome), int(ClaimOutcome::Contradicted));

    // Settings told apart by their arm where a side spans two: each arm its own verdict.
    std::vector<StudyRunResult> armed;
    for (int s = 0; s < 2; ++s) {
      armed.push_back(run("gmm2", "fourier", s + 1, 0.1 + 0.01 * s, fl::RunStatus::Finished, "a"));
      auto other = run("gmm2", "fourier", s + 1, 0.2 + 0.01 * s, fl::RunStatus::Finished, "b");
      other.config["gamma"] = 1e-6;
      armed.push_back(other);
      armed.push_back(run("gmm2", "linear", s + 1, 0.3 + 0.01 * s, fl::RunStatus::Finished, "l"));
    }
    claim.a = {{"head", "fourier"}};
    const auto perArm = judgeClaims({claim}, aggregate(armed), {});
    QCOMPARE(int(perArm.size()), 2);
    QCOMPARE(perArm[0].whereA.at("arm").get<std::string>(), std::string("a"));
    QCOMPARE(perArm[1].whereA.at("arm").get<std::string>(), std::string("b"));
    QVERIFY(!perArm[0].whereB.contains("arm"));  // the linear side is one arm
    QCOMPARE(perArm[0].a.n, 2);
    // What an arm holds at one value is said by the arm's name, not listed beside it.
    QVERIFY2(!perArm[1].whereA.contains("gamma"), perArm[1].whereA.dump().c_str());
  }

  // Side b reads another metric of the same runs: judged on the per-run differences; "similar"
  // asks the whole 2 SE interval of the difference inside the tolerance.
  void aClaimComparesTwoMetricsOrClaimsThemSimilar() {
    // kl 0.30, 0.34; smoothness = kl / 10: 0.030, 0.034. Per run d = -0.27, -0.306: mean
    // -0.288, s_d 0.9 x 0.028284 = 0.025456, SE = s_d / sqrt(2) = 0.018.
    const auto cells = aggregate({run("gmm2", "linear", 1, 0.30), run("gmm2", "linear", 2, 0.34)});
    StudyClaim claim;
    claim.text = "smoothness is below the KL";
    claim.metric = "test/smoothness";
    claim.bMetric = "test/kl";
    claim.better = "lower";
    auto v = judgeClaims({claim}, cells, {}).at(0);
    QCOMPARE(int(v.outcome), int(ClaimOutcome::Holds));
    QVERIFY(std::abs(v.difference + 0.288) < 1e-12);
    const double twoSe = 2 * 0.9 * (0.04 / std::sqrt(2.0)) / std::sqrt(2.0);
    QVERIFY2(std::abs(v.bound - twoSe) < 1e-12, std::to_string(v.bound).c_str());
    QCOMPARE(v.pairs, 2);
    QVERIFY2(
        v.summary().find("; paired over 2 runs: Δ -0.288 beyond 2 SE 0.036)") != std::string::npos,
        v.summary().c_str());
    QVERIFY2(v.summary().find("(test/smoothness 0.032") != std::string::npos, v.summary().c_str());
    QVERIFY2(v.summary().find("against test/kl 0.320") != std::string::npos, v.summary().c_str());

    // Similar within w: holds when 0.288 + 2 SE <= w, contradicted when 0.288 - 2 SE > w.
    claim.better = "similar";
    const double gap = 0.288;
    const std::vector<std::pair<double, ClaimOutcome>> cases{
        {gap + twoSe + 1e-6, ClaimOutcome::Holds},
        {gap + twoSe - 1e-6, ClaimOutcome::Unresolved},
        {gap - twoSe + 1e-6, ClaimOutcome::Unresolved},
        {gap - twoSe - 1e-6, ClaimOutcome::Contradicted}};
    for (const auto& [within, expected] : cases) {
      claim.within = within;
      v = judgeClaims({claim}, cells, {}).at(0);
      QVERIFY2(v.outcome == expected, v.summary().c_str());
    }
    QVERIFY2(v.summary().find(" beyond ") != std::string::npos, v.summary().c_str());
  }

  // Two metrics of the same runs pair up by run: the runs' shared spread cancels. Over random
  // runs, the difference and bound are those of the per-run differences computed here; a run
  // that lacks one metric drops out of the pairs and not of its side's mean.
  void twoMetricsOfTheSameRunsArePairedRunByRun() {
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<int> count(2, 7);
    StudyClaim claim;
    claim.text = "ablated below unablated";
    claim.metric = "test/acc_ablated";
    claim.bMetric = "test/acc";
    claim.better = "lower";
    for (int trial = 0; trial < 300; ++trial) {
      const int n = count(rng);
      const bool oneLacks = trial % 3 == 0;  // the last run never recorded the ablation
      std::vector<StudyRunResult> runs;
      std::vector<double> d;
      for (int i = 0; i < n; ++i) {
        auto r = run("gmm2", "fourier", i + 1, 0);
        const double acc = u(rng), ablated = acc - 0.2 * u(rng);
        r.last = {{"test/acc", acc}};
        if (!(oneLacks && i == n - 1)) {
          r.last["test/acc_ablated"] = ablated;
          d.push_back(ablated - acc);
        }
        runs.push_back(r);
      }
      const auto v = judgeClaims({claim}, aggregate(runs), {}).at(0);
      QCOMPARE(v.b.n, n);
      QCOMPARE(v.a.n, int(d.size()));
      // A side some of whose runs gave no value says of how many, as the table does.
      const std::string count = "(" + std::to_string(d.size()) + " of " + std::to_string(n) + ")";
      QCOMPARE(v.summary().find(count) != std::string::npos, oneLacks && d.size() >= 1);
      if (d.size() < 2) {
        QCOMPARE(int(v.outcome), int(ClaimOutcome::NotMeasured));
        continue;
      }
      double mean = 0, ss = 0;
      for (double x : d) mean += x / d.size();
      for (double x : d) ss += (x - mean) * (x - mean);
      const double bound = 2 * std::sqrt(ss / (d.size() - 1)) / std::sqrt(double(d.size()));
      QCOMPARE(v.pairs, int(d.size()));
      QVERIFY(std::abs(v.difference - mean) < 1e-12);
      QVERIFY(std::abs(v.bound - bound) < 1e-12);
      // Every ablation lowers the run's accuracy: paired, that holds beyond doubt, though the
      // runs' accuracies spread more than the ablation moves them.
      QCOMPARE(int(v.outcome), int(mean < -bound ? ClaimOutcome::Holds : ClaimOutcome::Unresolved));
    }
    // Sides of other runs stay independent samples.
    const auto heads =
        judgeClaims({fourierBelowLinear("fourier below linear")},
                    aggregate({run("gmm2", "linear", 1, 0.29), run("gmm2", "linear", 2, 0.31),
                               run("gmm2", "fourier", 1, 0.14), run("gmm2", "fourier", 2, 0.16)}),
                    {});
    QCOMPARE(heads.at(0).pairs, 0);
    QVERIFY(heads.at(0).summary().find("paired") == std::string::npos);
  }

  // An accuracy spread wide across seeds with a small, steady ablation effect: as two
  // independent samples the effect is lost in the spread; paired it is clear.
  void aSteadyEffectAcrossSpreadSeedsHoldsWhenPaired() {
    std::vector<StudyRunResult> runs;
    const std::vector<double> acc{0.50, 0.70, 0.90};
    for (int i = 0; i < 3; ++i) {
      auto r = run("gmm2", "fourier", i + 1, 0);
      r.last = {{"test/acc", acc[i]}, {"test/acc_ablated", acc[i] - 0.05 - 0.001 * i}};
      runs.push_back(r);
    }
    StudyClaim claim;
    claim.text = "the ablation hurts";
    claim.metric = "test/acc_ablated";
    claim.bMetric = "test/acc";
    claim.better = "lower";
    const auto v = judgeClaims({claim}, aggregate(runs), {}).at(0);
    // Independent: |Δ| 0.051 within 2 SE = 2 sqrt(2 x 0.04 / 3) = 0.327. Paired: d = -0.050,
    // -0.051, -0.052, s_d 0.001, 2 SE 0.00115.
    QVERIFY(twoStandardErrors(v.a.std, v.a.n, v.b.std, v.b.n) > 0.3);
    QVERIFY2(v.outcome == ClaimOutcome::Holds, v.summary().c_str());
    QVERIFY(std::abs(v.bound - 2 * 0.001 / std::sqrt(3.0)) < 1e-12);
  }

  void claimsAppearUnderTheTableAndInItsJson() {
    StudyClaim claim{"fourier below linear", "test/kl",           "", "lower",
                     {{"head", "fourier"}},  {{"head", "linear"}}};
    const std::vector<StudyClaim> claims{claim};
    StudyTableInput in;
    in.title = "study 1";
    in.axisOrder = {"dataset", "head"};
    in.cells = aggregate({run("gmm2", "linear", 1, 0.29), run("gmm2", "linear", 2, 0.31),
                          run("gmm2", "fourier", 1, 0.14), run("gmm2", "fourier", 2, 0.16)});
    in.claims = &claims;
    in.claimsScale = "Judged on the tiny preset's runs, not the paper's models: ...";
    TableRequest req;
    const std::string md = renderStudyTable(in, req);
    QVERIFY2(md.find("## Claims over seeds\n\nJudged on the tiny preset's runs, not the paper's "
                     "models: ... A claim holds when") != std::string::npos,
             md.c_str());
    QVERIFY2(md.find("- holds: fourier below linear") != std::string::npos, md.c_str());
    req.format = "json";
    const auto j = nlohmann::json::parse(renderStudyTable(in, req));
    QCOMPARE(j["claims"][0]["outcome"].get<std::string>(), std::string("holds"));
    QCOMPARE(j["claims_judged"].get<std::string>(), in.claimsScale);
    // Where the claims are judged: a preset's or a paper's study says it is not the paper's
    // models; a study of neither states its own claims and speaks of no paper.
    StudySpec own;
    QCOMPARE(claimsScale(own), std::string("on this study's runs"));
    QCOMPARE(claimsScaleText(own), std::string("Judged on this study's runs."));
    StudySpec onPreset;
    onPreset.preset = "tiny";
    QCOMPARE(claimsScale(onPreset),
             std::string("on the tiny preset's runs, not the paper's models"));
    StudySpec withPaper;
    withPaper.references = StudyReferences{};
    QCOMPARE(claimsScale(withPaper), std::string("on this study's runs, not the paper's models"));
    QCOMPARE(j["claims"][0]["a"]["n"].get<int>(), 2);
    QCOMPARE(j["claims"][0]["paired_runs"].get<int>(), 0);  // two heads: independent runs
    // Each value with its seed, so two metrics of the same runs can be paired by a reader.
    const auto& kl = j["cells"][0]["metrics"]["test/kl"];
    QCOMPARE(kl["value_seeds"], nlohmann::json({1, 2}));
    QCOMPARE(kl["values"].size(), kl["value_seeds"].size());
  }

  void tableShowsThePaperBesideOursWithAVerdict() {
    const auto refs = paper();
    StudyTableInput in;
    in.title = "study 1";
    in.axisOrder = {"dataset", "head"};
    // The paper's seed count unknown: our mean against its mean ± std. Fourier: mean 0.15
    // (within 0.146 ± 0.033, agrees); linear: 0.30 (outside 0.238 ± 0.032, differs).
    in.cells = aggregate({run("gmm2", "linear", 1, 0.29), run("gmm2", "linear", 2, 0.31),
                          run("gmm2", "fourier", 1, 0.14), run("gmm2", "fourier", 2, 0.16)});
    in.references = &refs;
    TableRequest req;
    req.rows = "dataset";
    req.cols = "head";
    req.metrics = {"test/kl"};
    const std::string md = renderStudyTable(in, req);
    QVERIFY2(md.find("| dataset | head = linear | paper | head = fourier | paper |") !=
                 std::string::npos,
             md.c_str());
    QVERIFY2(md.find("| gmm2 | 0.300 ± 0.014 (2) | 0.238 ± 0.032 DIFFERS | 0.150 ± 0.014 (2) | "
                     "0.146 ± 0.033 agrees |") != std::string::npos,
             md.c_str());
    QVERIFY2(md.find("1 of 2 compared values agree with the paper; differ: test/kl gmm2/linear.") !=
                 std::string::npos,
             md.c_str());

    req.format = "csv";
    const std::string csv = renderStudyTable(in, req);
    QVERIFY2(
        csv.find(
            "dataset,head,arm,metric,n,seeds,mean,std,min,max,paper_mean,paper_std,paper_n,verdict,"
            "agreement\n") == 0,
        csv.c_str());
    // Ten significant digits: the std is sqrt(2 x 0.01^2) = 0.01414213562.
    QVERIFY2(
        csv.find("gmm2,fourier,,test/kl,2,2,0.15,0.01414213562,0.14,0.16,0.146,0.033,,agrees,") !=
            std::string::npos,
        csv.c_str());

    req.format = "json";
    const auto j = nlohmann::json::parse(renderStudyTable(in, req));
    QCOMPARE(j["cells"].size(), size_t(2));
    QCOMPARE(j["cells"][0]["metrics"]["test/kl"]["agrees"].get<bool>(), false);
    QVERIFY(std::abs(j["cells"][1]["metrics"]["test/kl"]["mean"].get<double>() - 0.15) < 1e-12);
    QCOMPARE(j["cells"][1]["metrics"]["test/kl"]["n"].get<int>(), 2);
  }

  void settingsThatDepartFromThePaperShowItsValuesButAreNotCompared() {
    const auto refs = paper();
    StudyTableInput in;
    in.title = "study 2";
    in.axisOrder = {"dataset", "head"};
    in.cells = aggregate({run("gmm2", "linear", 1, 0.29), run("gmm2", "fourier", 1, 0.14)});
    in.cells[0].departures = {"epochs 1 (the paper's 500)"};  // linear ran shortened
    in.references = &refs;
    TableRequest req;
    req.rows = "dataset";
    req.cols = "head";
    req.metrics = {"test/kl"};
    const std::string md = renderStudyTable(in, req);
    QVERIFY2(md.find("| gmm2 | 0.290 (1) | 0.238 ± 0.032 not compared | 0.140 (1) | 0.146 ± 0.033 "
                     "agrees |") != std::string::npos,
             md.c_str());
    QVERIFY2(md.find("1 of 1 compared values agree with the paper.") != std::string::npos,
             md.c_str());
    QVERIFY2(md.find("Not compared with the paper: 1 of 2 settings depart from its experiment "
                     "(epochs 1 (the paper's 500))") != std::string::npos,
             md.c_str());
    in.cells[1].departures = {"epochs 1 (the paper's 500)"};
    const std::string none = renderStudyTable(in, req);
    QVERIFY2(none.find("compared values agree") == std::string::npos, none.c_str());
    QVERIFY2(none.find("every setting departs") != std::string::npos, none.c_str());
    req.format = "csv";
    QVERIFY(renderStudyTable(in, req).find(",0.238,0.032,,not compared") != std::string::npos);
    req.format = "json";
    const auto j = nlohmann::json::parse(renderStudyTable(in, req));
    QVERIFY(j["cells"][0]["metrics"]["test/kl"]["agrees"].is_null());
    QCOMPARE(j["cells"][0]["departs_from_paper"][0].get<std::string>(),
             std::string("epochs 1 (the paper's 500)"));
  }

  void aSpreadIsShownAtItsMeansPrecision() {
    QCOMPARE(formatMeanStd(0.041, 0.000673), std::string("0.041 ± 0.001"));
    QCOMPARE(formatMeanStd(12.5, 1.0), std::string("12.500 ± 1.000"));
    QCOMPARE(formatMeanStd(3.14e-5, 1.2e-6), std::string("3.14e-05 ± 1.2e-06"));
    QCOMPARE(formatMeanStd(0.5, NAN), std::string("0.500"));
    // A spread the mean's last digit would round to nothing keeps one significant digit.
    QCOMPARE(formatMeanStd(0.015, 0.00041), std::string("0.015 ± 0.0004"));
    QCOMPARE(formatMeanStd(0.015, 0.000049), std::string("0.015 ± 5e-05"));
    QCOMPARE(formatMeanStd(0.5, 0.0), std::string("0.500 ± 0.000"));  // seeds that agree
  }

  void tableRefusesAxesAndMetricsTheStudyLacks() {
    StudyTableInput in;
    in.title = "t";
    in.axisOrder = {"dataset", "head"};
    in.cells = aggregate({run("gmm2", "linear", 1, 0.3)});
    TableRequest req;
    req.rows = "variant";
    QVERIFY_EXCEPTION_THROWN(renderStudyTable(in, req), std::invalid_argument);
    req.rows = "dataset";
    req.metrics = {"test/nope"};
    try {
      renderStudyTable(in, req);
      QFAIL("expected an error");
    } catch (const std::invalid_argument& e) {
      QVERIFY(std::string(e.what()).find("--metric test/nope") != std::string::npos);
    }
    // The arm is refused as a column of a study without arms, and named among the axes of one.
    req.metrics.clear();
    req.cols = "arm";
    try {
      renderStudyTable(in, req);
      QFAIL("expected an error");
    } catch (const std::invalid_argument& e) {
      QCOMPARE(std::string(e.what()),
               std::string("--cols arm: not an axis of this study (axes: dataset, head)"));
    }
  }

  // One column per arm, the paper's heads side by side; the arm then leaves the rows. A study
  // file's `"cols": "arm"` had been accepted and then every arm drawn as a row of its own.
  void aTableMayTakeItsArmsAsColumns() {
    StudyTableInput in;
    in.title = "t";
    in.axisOrder = {"dataset"};
    std::vector<StudyRunResult> runs;
    for (const auto& [dataset, arm, kl] :
         std::vector<std::tuple<std::string, std::string, double>>{{"gmm2", "Fourier", 0.15},
                                                                   {"gmm2", "linear", 0.30},
                                                                   {"beta", "Fourier", 0.45},
                                                                   {"beta", "linear", 0.60}})
      for (int seed = 1; seed <= 2; ++seed) {
        auto r = run(dataset, arm == "Fourier" ? "fourier" : "linear", seed,
                     kl + 0.01 * (seed == 1 ? -1 : 1), fl::RunStatus::Finished, arm);
        r.axes = {{"dataset", dataset}};
        runs.push_back(r);
      }
    in.cells = aggregate(runs);
    TableRequest req;
    req.rows = "dataset";
    req.cols = "arm";
    req.metrics = {"test/kl"};
    const std::string md = renderStudyTable(in, req);
    QVERIFY2(md.find("| dataset | arm = Fourier | arm = linear |") != std::string::npos,
             md.c_str());
    QVERIFY2(md.find("| gmm2 | 0.150 ± 0.014 (2) | 0.300 ± 0.014 (2) |") != std::string::npos,
             md.c_str());
    QVERIFY2(md.find("| beta | 0.450 ± 0.014 (2) | 0.600 ± 0.014 (2) |") != std::string::npos,
             md.c_str());
    // Rows by arm: one row per arm, each dataset a column.
    req.rows = "arm";
    req.cols = "dataset";
    const std::string byArm = renderStudyTable(in, req);
    QVERIFY2(byArm.find("| arm | dataset = gmm2 | dataset = beta |") != std::string::npos,
             byArm.c_str());
    QVERIFY2(byArm.find("| linear | 0.300 ± 0.014 (2) | 0.600 ± 0.014 (2) |") != std::string::npos,
             byArm.c_str());
  }

  // A study's own table naming a metric no run recorded (a length its shortened runs did not
  // evaluate, a misspelt key) aborted `sweep run` after every run had trained: it is a column
  // of "-" and a note instead, in every format.
  void aTableMetricNoRunRecordedIsAColumnOfDashesAndANote() {
    StudyTableInput in;
    in.title = "t";
    in.axisOrder = {"dataset", "head"};
    in.cells = aggregate({run("gmm2", "linear", 1, 0.3)});
    TableRequest req;
    req.rows = "dataset";
    req.cols = "head";
    req.layoutMetrics = {"test/kl", "test/kll"};
    const std::string md = renderStudyTable(in, req);
    QVERIFY2(
        md.find("## test/kll: mean ± std over seeds (n)\n\n| dataset | head = linear |\n|---|---|\n"
                "| gmm2 | - |\n") != std::string::npos,
        md.c_str());
    QVERIFY2(md.find("\n\nNo finished run recorded test/kll, which the study's table names "
                     "(recorded: test/kl, test/smoothness).") != std::string::npos,
             md.c_str());
    req.format = "csv";
    QVERIFY(renderStudyTable(in, req).find("test/kll") != std::string::npos);
    req.format = "json";
    QVERIFY(nlohmann::json::parse(renderStudyTable(in, req)).is_object());
    // Asked for by name, the same metric is still refused.
    req.format = "md";
    req.metrics = {"test/kll"};
    QVERIFY_EXCEPTION_THROWN(renderStudyTable(in, req), std::invalid_argument);
  }

  // A point whose mean rests on fewer seeds than the others is said under the figure: a
  // mean of one seed was drawn as one of three, without its band and without a word.
  void aFigureSaysWhichPointsRestOnFewerSeeds() {
    std::vector<StudyRunResult> runs{run("gmm2", "linear", 1, 0.5), run("gmm2", "linear", 2, 0.6),
                                     run("gmm2", "linear", 3, 0.7), run("gmm2", "fourier", 4, 0.2)};
    runs[3].seed = 1;
    runs.push_back(run("gmm2", "fourier", 5, 0.3, fl::RunStatus::Interrupted));
    FigureLayout layout;
    layout.x = "head";
    layout.metrics = {"test/kl"};
    const auto fig = buildStudyFigure(aggregate(runs), layout, nullptr, {"dataset", "head"}, "s");
    QVERIFY2(fig.bandDescription.size() > 0 &&
                 fig.bandDescription.find("; from fewer seeds: test/kl at fourier (1 of 3)") !=
                     std::string::npos,
             fig.bandDescription.c_str());
    // All alike: nothing more said.
    runs.resize(3);
    const auto even = buildStudyFigure(aggregate(runs), layout, nullptr, {"dataset", "head"}, "s");
    QVERIFY2(even.bandDescription.find("fewer seeds") == std::string::npos,
             even.bandDescription.c_str());
  }

  // A study's arms are an axis a figure can take: along them (one line, a point per arm), or
  // by them (a line per arm). A study that varies only its arms had no figure.
  void aFigureDrawsAlongOrByTheArms() {
    std::vector<StudyRunResult> runs{
        run("gmm2", "fourier", 1, 0.10, fl::RunStatus::Finished, "rescued"),
        run("gmm2", "fourier", 2, 0.20, fl::RunStatus::Finished, "rescued"),
        run("gmm2", "fourier", 3, 0.50, fl::RunStatus::Finished, "from scratch"),
        run("gmm2", "fourier", 4, 0.70, fl::RunStatus::Finished, "from scratch")};
    const std::vector<std::string> axes{kArmAxis, "dataset", "head"};
    FigureLayout along;
    along.x = kArmAxis;
    along.metrics = {"test/kl"};
    const auto fig = buildStudyFigure(aggregate(runs), along, nullptr, axes, "s");
    QCOMPARE(fig.panels.size(), size_t(1));
    const auto& panel = fig.panels[0];
    QCOMPARE(panel.lines.size(), size_t(1));
    QCOMPARE(panel.xCategories, (std::vector<std::string>{"rescued", "from scratch"}));
    QCOMPARE(panel.lines[0].mean.size(), size_t(2));
    QCOMPARE(panel.lines[0].mean[0], 0.15);
    QCOMPARE(panel.lines[0].mean[1], 0.6);
    FigureLayout byArm = along;
    byArm.x = "dataset";
    byArm.group = kArmAxis;
    const auto lines = buildStudyFigure(aggregate(runs), byArm, nullptr, axes, "s");
    QCOMPARE(lines.panels[0].lines.size(), size_t(2));
    // Not an axis of a study without arms.
    QVERIFY_EXCEPTION_THROWN(
        buildStudyFigure(aggregate(runs), along, nullptr, {"dataset", "head"}, "s"), FigureError);
  }

  void figureHasALinePerGroupBaselinesAndThePapersPoints() {
    std::vector<StudyRunResult> runs;
    int64_t cell = 0;
    for (double gamma : {0.0, 1e-6})
      for (int n : {2, 4, 6})
        for (int64_t seed : {1, 2}) {
          StudyRunResult r;
          r.cell = cell++;
          r.runId = cell;
          r.status = fl::RunStatus::Finished;
          r.arm = "Fourier head";
          r.axes = {{"dataset", "gmm2"}, {"frequencies", n}, {"gamma", gamma}};
          r.config = r.axes;
          r.config["head"] = "fourier";
          r.seed = seed;
          r.last = {{"test/kl", 0.1 * n + 0.01 * seed + gamma}};
          runs.push_back(r);
        }
    for (int64_t seed : {1, 2}) {
      StudyRunResult r;
      r.cell = cell++;
      r.runId = cell;
      r.status = fl::RunStatus::Finished;
      r.arm = "linear head";
      r.axes = {{"dataset", "gmm2"}};
      r.config = {{"dataset", "gmm2"}, {"head", "linear"}};
      r.seed = seed;
      r.last = {{"test/kl", 0.3 + 0.02 * seed}};
      runs.push_back(r);
    }
    StudyReferences refs;
    refs.rows.push_back(
        {{{"dataset", "gmm2"}, {"frequencies", 4}, {"gamma", 0.0}}, {{"test/kl", {0.4, 0.05}}}});
    // The paper's point of a line this study did not train: left out, not drawn as if trained.
    refs.rows.push_back(
        {{{"dataset", "gmm2"}, {"frequencies", 4}, {"gamma", 1e-3}}, {{"test/kl", {0.5, 0.05}}}});
    FigureLayout layout;
    layout.x = "frequencies";
    layout.metrics = {"test/kl"};
    layout.group = "gamma";
    layout.panel = "dataset";
    layout.band = "half";
    layout.yBounds["test/kl"] = {0.0, std::numeric_limits<double>::infinity()};
    const auto fig = buildStudyFigure(aggregate(runs), layout, &refs,
                                      {"dataset", "frequencies", "gamma"}, "freq");
    QCOMPARE(fig.panels.size(), size_t(1));
    const auto& p = fig.panels[0];
    QCOMPARE(p.yFloor, 0.0);  // the metric's bounds reach the panel that draws it
    QCOMPARE(p.yCeiling, std::numeric_limits<double>::infinity());
    QCOMPARE(p.title, std::string("dataset = gmm2"));
    QCOMPARE(p.lines.size(), size_t(2));
    QCOMPARE(p.lines[0].label, std::string("gamma = 0"));
    QCOMPARE(p.lines[0].x, (std::vector<double>{2, 4, 6}));
    // Seeds 1 and 2 at N = 4: 0.41, 0.42 -> mean 0.415, std 0.00707; band ± 0.67 std.
    QVERIFY(std::abs(p.lines[0].mean[1] - 0.415) < 1e-12);
    const double std = std::sqrt(2 * 0.005 * 0.005);
    QVERIFY(std::abs(p.lines[0].upper[1] - (0.415 + 0.67 * std)) < 1e-12);
    QVERIFY(std::abs(p.lines[0].lower[1] - (0.415 - 0.67 * std)) < 1e-12);
    QCOMPARE(p.baselines.size(), size_t(1));
    QCOMPARE(p.baselines[0].label, std::string("linear head"));
    QVERIFY(std::abs(p.baselines[0].mean[0] - 0.33) < 1e-12);
    QCOMPARE(p.references.size(), size_t(1));
    QCOMPARE(p.references[0].x, 4.0);
    // The paper's bar on the band's scale (± 0.67 std here): a ± 1 std bar beside a ± 0.67 std
    // band read as agreeing or not where the table said otherwise.
    QVERIFY(std::abs(*p.references[0].spread - 0.67 * 0.05) < 1e-12);
    QCOMPARE(fig.referencesLegend, std::string("paper (mean ± 0.67 std)"));
    QCOMPARE(fig.seriesCount(), 4);  // 2 lines, 1 baseline, the paper's points
    for (const auto& [kind, spread, legend] :
         std::vector<std::tuple<std::string, std::optional<double>, std::string>>{
             {"std", 0.05, "paper (mean ± std)"},
             {"minmax", 0.05, "paper (mean ± std)"},
             {"none", std::nullopt, "paper (mean)"}}) {
      FigureLayout other = layout;
      other.band = kind;
      const auto f = buildStudyFigure(aggregate(runs), other, &refs,
                                      {"dataset", "frequencies", "gamma"}, "freq");
      QCOMPARE(f.panels[0].references.at(0).spread, spread);
      QCOMPARE(f.referencesLegend, legend);
    }
    // A --where on a setting the baselines lack keeps them: it does not apply to them (the
    // linear head has no gamma), as the study draws them beside the Fourier heads.
    {
      FigureLayout onGamma = layout;
      onGamma.where = {{"gamma", 0.0}};
      const auto g = buildStudyFigure(aggregate(runs), onGamma, &refs,
                                      {"dataset", "frequencies", "gamma"}, "freq");
      QCOMPARE(g.panels[0].lines.size(), size_t(1));
      QCOMPARE(g.panels[0].baselines.size(), size_t(1));
      QCOMPARE(g.panels[0].baselines[0].label, std::string("linear head"));
    }
    // Grouped by dataset in one panel: a baseline per dataset, each at its own dataset's mean.
    // Named by the arm alone, gmm2's baseline had stood for beta's too.
    {
      auto twoDatasets = runs;
      for (int seed = 1; seed <= 2; ++seed) {
        StudyRunResult r;
        r.cell = 200 + seed;
        r.runId = 200 + seed;
        r.status = fl::RunStatus::Finished;
        r.arm = "linear head";
        r.axes = {{"dataset", "beta"}};
        r.config = {{"dataset", "beta"}, {"head", "linear"}};
        r.seed = seed;
        r.last = {{"test/kl", 0.9}};
        twoDatasets.push_back(r);
      }
      FigureLayout byDataset = layout;
      byDataset.panel.clear();
      byDataset.group = "dataset";
      const auto g = buildStudyFigure(aggregate(twoDatasets), byDataset, nullptr,
                                      {"dataset", "frequencies", "gamma"}, "freq");
      const auto& baselines = g.panels.at(0).baselines;
      QCOMPARE(baselines.size(), size_t(2));
      QCOMPARE(baselines[0].label, std::string("linear head, dataset = gmm2"));
      QCOMPARE(baselines[1].label, std::string("linear head, dataset = beta"));
      QVERIFY(std::abs(baselines[0].mean[0] - 0.33) < 1e-12);
      QVERIFY(std::abs(baselines[1].mean[0] - 0.9) < 1e-12);
      QVERIFY(baselines[0].colorRank != baselines[1].colorRank);
    }
    // Panelled by arm: the linear arm, without the x axis, makes no panel of its own (drawn
    // alone against a 0..1 x axis, it had), and is drawn in the Fourier arm's panel, named.
    {
      FigureLayout byArm = layout;
      byArm.panel = kArmAxis;
      const auto g = buildStudyFigure(aggregate(runs), byArm, nullptr,
                                      {"dataset", "frequencies", "gamma", kArmAxis}, "freq");
      QCOMPARE(g.rows, 1);
      QCOMPARE(g.panels.size(), size_t(1));
      QCOMPARE(g.panels[0].title, std::string("arm = Fourier head"));
      QCOMPARE(g.panels[0].lines.size(), size_t(2));
      QCOMPARE(g.panels[0].baselines.size(), size_t(1));
      QCOMPARE(g.panels[0].baselines[0].label, std::string("linear head"));
      QVERIFY(std::abs(g.panels[0].baselines[0].mean[0] - 0.33) < 1e-12);
    }
    layout.band = "minmax";
    const auto mm =
        buildStudyFigure(aggregate(runs), layout, &refs, {"dataset", "frequencies", "gamma"}, "f");
    QVERIFY(std::abs(mm.panels[0].lines[0].lower[1] - 0.41) < 1e-12);
    layout.x = "lr";
    QVERIFY_EXCEPTION_THROWN(
        buildStudyFigure(aggregate(runs), layout, &refs, {"dataset", "frequencies", "gamma"}, "f"),
        std::invalid_argument);
    // What the figure lacks, as a kind the study view branches on.
    auto problem = [&](const FigureLayout& l) {
      try {
        buildStudyFigure(aggregate(runs), l, &refs, {"dataset", "frequencies", "gamma"}, "f");
      } catch (const FigureError& e) {
        return std::optional(e.kind());
      }
      return std::optional<FigureError::Kind>();
    };
    QVERIFY(problem(layout) == FigureError::Kind::Layout);
    layout.x = "frequencies";
    layout.metrics = {"test/nll"};
    QVERIFY(problem(layout) == FigureError::Kind::NoFinishedRun);
    // Against a categorical axis the study trained on one value of (gmm2), the paper's points
    // of the other datasets have no tick: left out (they shared one unlabelled place past it).
    StudyReferences datasets;
    for (const char* dataset : {"gaussian", "gmm2", "beta"})
      datasets.rows.push_back(
          {{{"dataset", dataset}, {"frequencies", 4}, {"gamma", 0.0}}, {{"test/kl", {0.4, 0.05}}}});
    FigureLayout byDataset;
    byDataset.x = "dataset";
    byDataset.metrics = {"test/kl"};
    byDataset.group = "gamma";
    byDataset.where = {{"frequencies", 4}};
    const auto categorical = buildStudyFigure(aggregate(runs), byDataset, &datasets,
                                              {"dataset", "frequencies", "gamma"}, "by dataset");
    QCOMPARE(categorical.panels.size(), size_t(1));
    const auto& points = categorical.panels[0].references;
    QCOMPARE(points.size(), size_t(1));
    QCOMPARE(points[0].x, 0.0);  // gmm2, the one category
    // Categories draw their spread as error bars, and the caption says so (it said "band").
    QCOMPARE(categorical.bandDescription,
             std::string("bars: mean ± 0.67 std over seeds (a 50% interval)"));
    QCOMPARE(fig.bandDescription, std::string("band: mean ± 0.67 std over seeds (a 50% interval)"));
  }

  // A line's colour follows its place among the whole study's lines: a figure drawn with
  // --where that leaves the first line out keeps every other line's colour (rope was drawn in
  // the first line's colour once "none" was left out).
  // Against the head, grouped by frequencies: the linear head's runs have no frequencies axis
  // (they do not use it), and their line says so; its legend read "test/kl".
  void aLineOfCellsWithoutTheGroupsAxisSaysTheyDoNotUseIt() {
    std::vector<StudyRunResult> runs;
    int64_t cell = 0;
    auto add = [&](const nlohmann::json& axes, double kl) {
      StudyRunResult r;
      r.cell = cell++;
      r.runId = cell;
      r.status = fl::RunStatus::Finished;
      r.axes = axes;
      r.config = axes;
      r.seed = 1;
      r.last = {{"test/kl", kl}};
      runs.push_back(r);
    };
    add({{"head", "linear"}}, 1.1);
    add({{"head", "fourier"}, {"frequencies", 4}}, 0.9);
    add({{"head", "fourier"}, {"frequencies", 12}}, 1.0);
    FigureLayout layout;
    layout.x = "head";
    layout.metrics = {"test/kl"};
    layout.group = "frequencies";
    const auto fig =
        buildStudyFigure(aggregate(runs), layout, nullptr, {"head", "frequencies"}, "");
    QCOMPARE(fig.panels.size(), size_t(1));
    std::set<std::string> labels;
    for (const auto& line : fig.panels[0].lines) labels.insert(line.label);
    QCOMPARE(labels, (std::set<std::string>{"frequencies not used", "frequencies = 4",
                                            "frequencies = 12"}));
  }

  void aLineKeepsItsColourRankWhateverWhereLeavesOut() {
    std::vector<StudyRunResult> runs;
    int64_t id = 0;
    auto add = [&](const std::string& position, const std::string& dataset) {
      for (int lr : {1, 2}) {
        StudyRunResult r;
        r.cell = id;
        r.runId = ++id;
        r.status = fl::RunStatus::Finished;
        r.axes = {{"position", position}, {"dataset", dataset}, {"lr", lr}};
        r.config = r.axes;
        r.seed = 1;
        r.last = {{"val/loss", 1.0 + lr}};
        runs.push_back(r);
      }
    };
    add("none", "a");  // "none" trained on dataset a only
    for (const char* position : {"rope", "fope"})
      for (const char* dataset : {"a", "b"}) add(position, dataset);
    const std::vector<std::string> axes{"position", "dataset", "lr"};
    FigureLayout layout;
    layout.x = "lr";
    layout.metrics = {"val/loss"};
    const auto whole = buildStudyFigure(aggregate(runs), layout, nullptr, axes, "s");
    std::map<std::string, int> rankOf;
    for (const auto& line : whole.panels[0].lines) rankOf[line.label] = line.colorRank;
    QCOMPARE(rankOf.size(), size_t(5));
    std::set<int> distinct;
    for (const auto& [label, rank] : rankOf) distinct.insert(rank);
    QCOMPARE(distinct.size(), size_t(5));  // every line its own colour
    QCOMPARE(rankOf.at("position = none, dataset = a"), 0);
    layout.where = {{"dataset", "b"}};
    const auto onB = buildStudyFigure(aggregate(runs), layout, nullptr, axes, "s");
    QCOMPARE(onB.panels[0].lines.size(), size_t(2));
    for (const auto& line : onB.panels[0].lines)
      QCOMPARE(line.colorRank, rankOf.at(line.label + ", dataset = b"));
    QVERIFY(onB.panels[0].lines[0].colorRank != 0);
    // A paper's point takes its line's rank, also where --where leaves that line alone.
    StudyReferences refs;
    refs.rows.push_back(
        {{{"position", "fope"}, {"dataset", "b"}, {"lr", 2}}, {{"val/loss", {2.9, 0.1}}}});
    const auto withPaper = buildStudyFigure(aggregate(runs), layout, &refs, axes, "s");
    QCOMPARE(withPaper.panels[0].references.size(), size_t(1));
    QCOMPARE(withPaper.panels[0].references[0].line, std::string("position = fope"));
    QCOMPARE(withPaper.panels[0].references[0].colorRank,
             rankOf.at("position = fope, dataset = b"));
  }

  // FoPE's figure: perplexity against the evaluation length in the metrics' names, a line per
  // encoding, each point the mean over seeds of that length's metric.
  void aFigureAgainstTheLengthInItsMetricsNamesHasAPointPerLength() {
    std::vector<StudyRunResult> runs;
    int64_t cell = 0;
    std::map<std::string, std::map<int, std::vector<double>>> expected;  // encoding, length
    for (const std::string position : {"rope", "fope"})
      for (int64_t seed : {1, 2, 3}) {
        StudyRunResult r;
        r.cell = position == "rope" ? 0 : 1;
        r.runId = ++cell;
        r.status = fl::RunStatus::Finished;
        r.axes = {{"position", position}};
        r.config = r.axes;
        r.seed = seed;
        for (int length : {64, 128, 256, 512}) {
          const double ppl = (position == "rope" ? 1.0 + length / 64.0 : 2.0) + 0.1 * seed;
          r.last["val/ppl@" + std::to_string(length)] = ppl;
          expected[position][length].push_back(ppl);
          r.last["passkey/acc@" + std::to_string(length)] = 1.0 / seed;
        }
        r.last["val/ppl@x"] = 7.0;  // no number after its '@': not a point
        r.last["test/kl"] = 0.5;
        runs.push_back(r);
      }
    StudyReferences refs;
    refs.rows.push_back(
        {{{"position", "rope"}}, {{"val/ppl@128", {3.5, 0.1}}, {"other", {1, {}}}}});
    FigureLayout layout;
    layout.x = kMetricSuffixX;
    layout.metrics = {"val/ppl@64", "passkey/acc@*", "val/ppl@*"};  // a member or its family
    layout.yTitles["val/ppl@64"] = "perplexity (val/ppl@64)";
    layout.logX = true;
    const auto fig = buildStudyFigure(aggregate(runs), layout, &refs, {"position"}, "encodings");
    QCOMPARE(fig.cols, 2);  // val/ppl@64 and val/ppl@* are one family
    QCOMPARE(fig.panels.size(), size_t(2));
    const auto& ppl = fig.panels[0];
    QCOMPARE(ppl.metric, std::string("val/ppl@*"));
    QCOMPARE(ppl.yTitle, std::string("perplexity (val/ppl@*)"));
    QCOMPARE(ppl.xTitle, std::string("the number after the metrics' @"));
    QVERIFY(ppl.logX);
    QCOMPARE(ppl.lines.size(), size_t(2));
    for (const auto& line : ppl.lines) {
      const std::string position = line.label.substr(line.label.find("= ") + 2);
      QCOMPARE(line.x, (std::vector<double>{64, 128, 256, 512}));
      for (size_t i = 0; i < line.x.size(); ++i) {
        const auto& values = expected[position][static_cast<int>(line.x[i])];
        double mean = 0;
        for (double v : values) mean += v / values.size();
        QVERIFY2(std::abs(line.mean[i] - mean) < 1e-12, line.label.c_str());
        QCOMPARE(line.n[i], 3);
      }
    }
    QCOMPARE(ppl.references.size(), size_t(1));  // the paper's value at 128, on RoPE's line
    QCOMPARE(ppl.references[0].x, 128.0);
    QCOMPARE(ppl.references[0].y, 3.5);
    QCOMPARE(ppl.references[0].line, std::string("position = rope"));
    QCOMPARE(fig.panels[1].metric, std::string("passkey/acc@*"));
    QVERIFY(std::abs(fig.panels[1].lines[0].mean[0] - (1 + 0.5 + 1.0 / 3) / 3) < 1e-12);

    auto refusal = [&](FigureLayout l) {
      try {
        buildStudyFigure(aggregate(runs), l, &refs, {"position"}, "encodings");
      } catch (const FigureError& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    layout.metrics = {"test/kl"};
    QCOMPARE(refusal(layout),
             std::string("--metric test/kl: has no number after an '@' to be drawn against (x @, "
                         "the number in the metrics' names); give --x with one of the study's "
                         "axes (position)"));
    // A length no run recorded (a typo) drew every length the family has.
    layout.metrics = {"val/ppl@1024"};
    QCOMPARE(refusal(layout),
             std::string("--metric val/ppl@1024: no finished run has it; against the length it "
                         "stands for val/ppl@*, which has val/ppl@64, @128, @256, @512"));
    // What the layout names is checked before its metrics.
    layout.group = "steps";
    QCOMPARE(refusal(layout),
             std::string("--group steps: not an axis of this study (axes: position)"));
    layout.group.clear();
    layout.where = {{"seed", 1}};
    QCOMPARE(refusal(layout), std::string("--where seed: not an axis of this study (axes: "
                                          "position)"));  // "@" is not one to name
    layout.where = nlohmann::json::object();
    // A family against an axis is many metrics at one place: refused, naming one of them.
    layout.x = "position";
    layout.metrics = {"val/ppl@*"};
    QCOMPARE(refusal(layout),
             std::string("val/ppl@* is a metric at each number after its '@' (the length), drawn "
                         "against that number (--x @); against position, give --metric with one "
                         "of them (val/ppl@64)"));
    layout.x = "steps";
    QCOMPARE(refusal(layout), std::string("--x steps: not an axis of this study (axes: position)"));
  }

  void threadBudgetNeverExceedsTheCores() {
    for (int cores = 1; cores <= 16; ++cores)
      for (int64_t runs = 1; runs <= 40; ++runs)
        for (int useful : {0, 1, 2, 8}) {
          const auto b = planThreadBudget(cores, runs, useful);
          QVERIFY(b.parallel * b.threadsPerRun <= cores);
          QVERIFY(b.parallel >= 1 && b.threadsPerRun >= 1);
          QVERIFY(b.parallel <= runs);
          if (runs >= cores) QCOMPARE(b.threadsPerRun, 1);  // many runs: one thread each
          if (useful == 1) QCOMPARE(b.threadsPerRun, 1);    // tiny models: one thread
          if (useful > 0) QVERIFY(b.threadsPerRun <= useful);
        }
    // A single large run gets the cores.
    QCOMPARE(planThreadBudget(8, 1, 0).threadsPerRun, 8);
    // The user's overrides win, and say when they oversubscribe.
    const auto forced = planThreadBudget(2, 10, 1, 4, 1);
    QCOMPARE(forced.parallel, 4);
    QVERIFY(forced.oversubscribed());
    QCOMPARE(planThreadBudget(2, 10, 0, 0, 2).parallel, 1);
    QCOMPARE(planThreadBudget(2, 36, 1).describe(),
             std::string("2 parallel runs x 1 thread on 2 cores"));
  }
};

QTEST_APPLESS_MAIN(TestStudyAggregate)
#include "test_study_aggregate.moc"
