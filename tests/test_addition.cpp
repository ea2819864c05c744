// Tests experiments/addition and core/analysis/number_spectrum: the DFT analysis finds planted
// periods, the band split removes exactly the intended frequencies, the logit-lens ablation is
// the orthogonal projection off that band, the error types and their verdict, the task's split,
// the Fourier initialisation (frozen rows stay bit-identical), and a tiny model learning modular
// addition.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <torch/torch.h>

#include "core/analysis/number_spectrum.h"
#include "core/engine/preset_verdicts.h"
#include "core/engine/registry.h"
#include "core/engine/seeding.h"
#include "experiments/addition/addition_experiment.h"
#include "experiments/addition/addition_trial.h"
#include "experiments/addition/error_type_verdict.h"
#include "experiments/addition/error_types.h"
#include "experiments/addition/logit_lens_ablation.h"
#include "experiments/addition/logit_lens_spectra.h"
#include "experiments/addition/number_embedding_init.h"

using namespace fl;

namespace {

double maxAbs(const torch::Tensor& t) { return t.abs().max().item<double>(); }

torch::Tensor wave(int64_t numbers, double period, double phase = 0) {
  auto n = torch::arange(numbers, torch::kDouble);
  return torch::cos(2 * M_PI * n / period + phase);
}

// The projector onto the real Fourier modes of M numbers in the low band (period M/k above the
// cut-off, k = 0 included) or the high band: an orthonormal basis of their cosines and sines.
torch::Tensor bandProjector(int64_t numbers, double cutoffPeriod, bool low) {
  auto n = torch::arange(numbers, torch::kDouble);
  std::vector<torch::Tensor> columns;
  for (int64_t k = 0; k <= numbers / 2; ++k) {
    const bool high = k > 0 && static_cast<double>(numbers) / k <= cutoffPeriod;
    if (high == low) continue;
    columns.push_back(torch::cos(2 * M_PI * k * n / numbers));
    if (k > 0 && 2 * k != numbers) columns.push_back(torch::sin(2 * M_PI * k * n / numbers));
  }
  auto [q, unusedR] = torch::linalg_qr(torch::stack(columns, 1));  // (M, modes)
  return torch::matmul(q, q.t());
}

std::unique_ptr<addition::AdditionTrial> makeTrial(const std::vector<std::string>& assignments,
                                                   uint64_t seed = 3) {
  addition::AdditionExperiment experiment;
  auto config = buildConfig(experiment, "", assignments);
  if (!config.ok()) throw std::invalid_argument(config.summary());
  SeededScope seeded(seed);
  return std::make_unique<addition::AdditionTrial>(
      addition::AdditionSettings::fromConfig(config.values), c10::kCPU, seed);
}

}  // namespace

class TestAddition : public QObject {
  Q_OBJECT

 private slots:
  void theSpectrumFindsPlantedPeriods() {
    torch::manual_seed(1);
    const int64_t m = 200;
    for (double period : {2.0, 5.0, 10.0, 40.0}) {
      auto e = torch::randn({m, 32}, torch::kDouble) * 0.05;
      e.select(1, 3) += wave(m, period, 0.3);
      e.select(1, 17) += 0.5 * wave(m, period, 1.1);
      const auto peaks = analysis::topPeriods(analysis::numberAxisMagnitudes(e), m, 3);
      QCOMPARE(peaks.front().period, period);
      QCOMPARE(peaks.front().bin, static_cast<int64_t>(m / period));
    }
    // Two planted periods come out as the top two, the stronger first.
    auto e = torch::zeros({200, 8}, torch::kDouble);
    e.select(1, 0) += 2.0 * wave(200, 10);
    e.select(1, 1) += wave(200, 2.5);
    const auto peaks = analysis::topPeriods(analysis::numberAxisMagnitudes(e), 200, 2);
    QCOMPARE(peaks[0].period, 10.0);
    QCOMPARE(peaks[1].period, 2.5);
  }

  void theBandSplitRemovesExactlyTheIntendedFrequencies() {
    const int64_t m = 520;
    // Periods 130 and 13 are low, 10 and 2 are high at the paper's cut-off of 10.4 (all whole bins
    // of 520).
    auto low = wave(m, 130) + 0.5 * wave(m, 13, 0.7);
    auto high = 0.8 * wave(m, 10, 0.2) + 0.3 * wave(m, 2);
    auto z = (low + high + 1.5).unsqueeze(0);  // and a constant, which is low
    auto bands = analysis::splitByPeriod(z, 10.4);
    QVERIFY(maxAbs(bands.low[0] - (low + 1.5)) < 1e-9);
    QVERIFY(maxAbs(bands.high[0] - high) < 1e-9);
    // Random signals: the parts add up, and each has no energy in the other's bins.
    torch::manual_seed(2);
    for (int trial = 0; trial < 20; ++trial) {
      const int64_t n = 50 + trial * 17;
      auto r = torch::randn({3, n}, torch::kDouble);
      auto b = analysis::splitByPeriod(r, 4.0 + trial);
      QVERIFY(maxAbs(b.low + b.high - r) < 1e-9);
      auto lowSpectrum = torch::fft::rfft(b.low, n, -1).abs();
      auto highSpectrum = torch::fft::rfft(b.high, n, -1).abs();
      for (int64_t k = 0; k <= n / 2; ++k) {
        const bool isHigh = k > 0 && static_cast<double>(n) / k <= 4.0 + trial;
        QVERIFY((isHigh ? lowSpectrum : highSpectrum).select(-1, k).max().item<double>() < 1e-8);
      }
    }
  }

  // The paper's filter (Section 3.2): o' = o - pinv(B F W_U) (B F W_U) o, the orthogonal
  // projection of o onto the null space of the band's logit map. Checked against a band basis
  // built here from cosines and sines (not the rfft of splitByPeriod) and an SVD of its own.
  void theAblationIsTheOrthogonalProjectionOffTheBand() {
    struct Shape {
      int64_t numbers, d;
    };
    // M < d; M > d with both bands narrower than d; M > d with the high band as wide as d.
    for (auto [m, d] : {Shape{24, 40}, Shape{60, 48}, Shape{60, 16}})
      for (uint64_t seed : {3, 4, 5})
        for (bool removeLow : {true, false}) {
          torch::manual_seed(seed);
          auto u = torch::randn({m, d}, torch::kDouble);
          auto r = addition::bandRemovalMatrix(u, removeLow, 6.0);
          const auto label = qPrintable(
              QString("M %1 d %2 seed %3 low %4").arg(m).arg(d).arg(seed).arg(removeLow));
          QVERIFY2(maxAbs(r - r.t()) < 1e-12, label);
          QVERIFY2(maxAbs(torch::matmul(r, r) - r) < 1e-9, label);

          auto a = torch::matmul(bandProjector(m, 6.0, removeLow), u);  // (M, d)
          auto o = torch::randn({d}, torch::kDouble);
          auto filtered = o - torch::matmul(r, o);
          QVERIFY2(maxAbs(torch::matmul(a, filtered)) < 1e-9, label);  // no band logits left
          auto v = torch::randn({d}, torch::kDouble);
          QVERIFY2(std::abs(torch::dot(filtered, torch::matmul(r, v)).item<double>()) < 1e-9,
                   label);

          // The closest point to o with A y = 0: o minus its part in A's row space (from an SVD).
          auto [left, singular, right] = torch::linalg_svd(a, /*full_matrices=*/false);
          const int64_t rank =
              singular.gt(1e-10 * singular.max().item<double>()).sum().item<int64_t>();
          auto rows = right.narrow(0, 0, rank);  // (rank, d), orthonormal
          auto closest = o - torch::matmul(rows.t(), torch::matmul(rows, o));
          QVERIFY2(maxAbs(filtered - closest) < 1e-9, label);
          for (int i = 0; i < 5; ++i) {
            auto w = torch::randn({d}, torch::kDouble);
            auto feasible = w - torch::matmul(rows.t(), torch::matmul(rows, w));  // A y = 0
            QVERIFY2((o - filtered).norm().item<double>() <=
                         (o - feasible).norm().item<double>() + 1e-12,
                     label);
          }
          // A band with at least d real frequencies spans every direction: the output goes.
          if (rank == d) QVERIFY2(maxAbs(r - torch::eye(d, torch::kDouble)) < 1e-9, label);
        }
  }

  void theAblationHookFiltersTheChosenSublayersAtTheLastPosition() {
    torch::manual_seed(3);
    const int64_t m = 24, d = 40;
    auto u = torch::randn({m, d}, torch::kDouble);
    auto out = torch::randn({5, 4, d}, torch::kDouble);
    for (const auto& ablation : addition::paperAblations()) {
      auto r = addition::bandRemovalMatrix(u, ablation.removeLow, 6.0);
      auto hook = addition::makeAblationHook(ablation, r);
      for (auto which : {nn::Sublayer::Mlp, nn::Sublayer::Attention}) {
        auto result = hook(0, which, out);
        const bool chosen = which == nn::Sublayer::Mlp ? ablation.mlp : ablation.attention;
        if (!chosen) {
          QVERIFY(torch::equal(result, out));
          continue;
        }
        QVERIFY(torch::equal(result.narrow(1, 0, 3), out.narrow(1, 0, 3)));
        auto expected = out.select(1, 3) - torch::matmul(out.select(1, 3), r);  // R = R^T
        QVERIFY(maxAbs(result.select(1, 3) - expected) < 1e-12);
        auto after = analysis::splitByPeriod(torch::matmul(result.select(1, 3), u.t()), 6.0);
        QVERIFY(maxAbs(ablation.removeLow ? after.low : after.high) < 1e-8);
      }
    }
  }

  // A hand-made set of 40 numbers (tokens 40, 41 are '+' and '='): two right, ten wrong.
  void theErrorHistogramAndSharesCountTheWrongAnswers() {
    // prediction, answer: errors +10 -20 +1 -2 +5 +7 +35 -33 +30, and '+' for 12.
    const std::vector<int64_t> predicted{5, 17, 25, 3, 8, 10, 35, 20, 39, 0, 31, 40};
    const std::vector<int64_t> answers{5, 17, 15, 23, 7, 12, 30, 13, 4, 33, 1, 12};
    auto e = addition::countErrorTypes(torch::tensor(predicted), torch::tensor(answers), 40);
    QCOMPARE(e.problems, int64_t(12));
    QCOMPARE(e.wrong, int64_t(10));
    QCOMPARE(e.notANumber, int64_t(1));
    QCOMPARE(e.shareMultipleOf10, 0.3);  // +10 -20 +30
    QCOMPARE(e.shareSmall, 0.3);         // +1 -2 +5
    QCOMPARE(e.shareWithin2, 0.2);       // +1 -2
    QCOMPARE(e.counts.size(), size_t(63));
    std::map<int64_t, int64_t> expected{{-31, 1}, {-20, 1}, {-2, 1}, {1, 1}, {5, 1},
                                        {7, 1},   {10, 1},  {30, 1}, {31, 1}};  // +-31: beyond
    for (size_t bin = 0; bin < e.counts.size(); ++bin) {
      const auto it = expected.find(e.errorAt(bin));
      QCOMPARE(e.counts[bin], it == expected.end() ? int64_t(0) : it->second);
    }
    // A narrower window folds the far errors into its outer bins.
    auto narrow =
        addition::countErrorTypes(torch::tensor(predicted), torch::tensor(answers), 40, 5);
    QCOMPARE(narrow.counts, (std::vector<int64_t>{2, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 4}));
    QCOMPARE(narrow.shareMultipleOf10, 0.3);
    // No wrong answers: empty histogram, zero shares.
    auto perfect = addition::countErrorTypes(torch::tensor(answers), torch::tensor(answers), 40);
    QCOMPARE(perfect.wrong, int64_t(0));
    QCOMPARE(perfect.shareSmall, 0.0);
  }

  void theErrorVerdictJudgesOnlyWhatTheSettingAllows() {
    auto errors = [](int64_t wrong, double mult10, double small, double within2) {
      addition::ErrorTypes e;
      e.wrong = wrong;
      e.shareMultipleOf10 = mult10;
      e.shareSmall = small;
      e.shareWithin2 = within2;
      return e;
    };
    addition::ErrorVerdictSetting setting;
    setting.numbers = 199;
    setting.layers = 2;
    setting.dModel = 128;
    setting.testAccuracy = 0.9;
    std::vector<addition::AblationErrors> outcomes{
        {"full", errors(25, 0.1, 0.6, 0.4), 0},
        {"lowpass_removed_mlp", errors(30, 0.8, 0.1, 0.0), 39},
        {"highpass_removed_attn", errors(40, 0.0, 0.9, 0.5), 128},  // the whole output
    };
    auto verdict = addition::errorTypeVerdict(setting, outcomes);
    QVERIFY(verdict.has_value());
    QCOMPARE(verdict->name, std::string("errors/verdict"));
    // Two of the three patterns judged: the headline says so.
    QCOMPARE(verdict->meta["verdict"].get<std::string>(),
             std::string(
                 "errors partly as in paper (of -low MLP, unablated, from scratch; 1 not judged)"));
    QVERIFY(!verdict->meta.contains("ok"));  // a description, not a pass or a failure
    const auto detail = QString::fromStdString(verdict->meta["detail"].get<std::string>());
    QVERIFY2(detail.startsWith("a 2-layer, d 128 model"), qPrintable(detail));
    QVERIFY2(detail.contains("-low MLP: 80% of 30 wrong answers off by a nonzero multiple of 10, "
                             "as in the paper"),
             qPrintable(detail));
    QVERIFY2(detail.contains("-high attn: not judged, its band spans all 128 dimensions"),
             qPrintable(detail));
    QVERIFY2(detail.contains("unablated, from scratch: 40% of 25 wrong answers off by 1 or 2, "
                             "unlike the paper"),
             qPrintable(detail));
    QCOMPARE(verdict->data, (std::vector<float>{0.8f, 0.4f}));
    // A model that has not learned to add: only the from-scratch pattern is judged, and its
    // headline names it ("(1 of 3 judged)" read as the model's whole verdict).
    setting.testAccuracy = 0.5;
    verdict = addition::errorTypeVerdict(setting, outcomes);
    QCOMPARE(verdict->meta["verdict"].get<std::string>(),
             std::string("errors unlike paper (of unablated, from scratch; 2 not judged)"));
    // Every pattern judged: no count.
    setting.testAccuracy = 0.9;
    outcomes[2].removedDirections = 39;
    verdict = addition::errorTypeVerdict(setting, outcomes);
    QCOMPARE(verdict->meta["verdict"].get<std::string>(), std::string("errors partly as in paper"));
    outcomes[2].removedDirections = 128;
    setting.testAccuracy = 0.5;
    // Barely trained (60 steps: 1.5%): its own mistakes say nothing of how it adds either.
    setting.testAccuracy = 0.015;
    QVERIFY(!addition::errorTypeVerdict(setting, outcomes));
    setting.testAccuracy = 0.25;  // a quarter is enough for the model's own mistakes
    QVERIFY(addition::errorTypeVerdict(setting, outcomes));
    // Fourier embeddings are not from scratch: nothing left to judge.
    setting.testAccuracy = 0.5;
    setting.fromScratch = false;
    QVERIFY(!addition::errorTypeVerdict(setting, outcomes));
    // Modular answers wrap: never judged.
    setting = {};
    setting.modular = true;
    setting.numbers = 199;
    setting.dModel = 128;
    setting.testAccuracy = 1.0;
    QVERIFY(!addition::errorTypeVerdict(setting, outcomes));
  }

  // The trial's metrics and histograms are countErrorTypes of its own test predictions.
  void anEvaluationReportsTheErrorTypesOfEachAblation() {
    auto trial = makeTrial({"operands=20", "d_model=32", "heads=2", "layers=1", "steps=20"});
    for (int64_t i = 0; i < 20; ++i) trial->trainStep(i);
    EvalReport report;
    trial->evaluate(20, /*final=*/false, report);
    std::map<std::string, double> metrics(report.metrics.begin(), report.metrics.end());
    for (const auto& ablation : addition::paperAblations()) {
      auto predicted = trial->predictions(true, &ablation);
      const auto expected = addition::countErrorTypes(predicted, trial->testAnswers(), 39);
      QVERIFY(expected.wrong > 0);
      QCOMPARE(metrics.at("errors/share_mult10_" + ablation.key), expected.shareMultipleOf10);
      QCOMPARE(metrics.at("errors/share_small_" + ablation.key), expected.shareSmall);
      const auto histogram =
          std::find_if(report.snapshots.begin(), report.snapshots.end(),
                       [&](const Snapshot& s) { return s.name == "errors/" + ablation.key; });
      QVERIFY(histogram != report.snapshots.end());
      QCOMPARE(histogram->data.size(), expected.counts.size());
      for (size_t bin = 0; bin < expected.counts.size(); ++bin)
        QCOMPARE(histogram->data[bin],
                 static_cast<float>(expected.counts[bin]) / static_cast<float>(expected.wrong));
    }
    QVERIFY(metrics.count("errors/share_within2_full") == 1);
  }

  // The logit-lens spectra against a direct computation: every sublayer's output at the answer
  // position captured by a hook of the test's own, read as logits W_U o, and its DFT over the
  // number axis summed as cosines and sines in double (no FFT), averaged over the problems.
  void theLogitLensSpectraAreEachSublayersDftOverTheNumbers() {
    auto trial = makeTrial({"operands=12", "d_model=32", "heads=2", "layers=2", "steps=20"});
    for (int64_t i = 0; i < 20; ++i) trial->trainStep(i);
    const auto unembedding = trial->numberUnembedding().detach().to(torch::kDouble);  // (M, d)
    const int64_t m = unembedding.size(0), bins = m / 2;                              // k = 1..M/2
    std::map<std::pair<int64_t, int>, torch::Tensor> outputs;  // (layer, module) -> (P, d)
    addition::LensSpectraRecorder recorder(trial->numberUnembedding(), 2, 10.4);
    const auto lensHook = recorder.hook();
    nn::SublayerHook both = [&](int64_t layer, nn::Sublayer which, torch::Tensor out) {
      auto& seen = outputs[{layer, which == nn::Sublayer::Attention ? 0 : 1}];
      auto o = out.select(1, out.size(1) - 1).to(torch::kDouble);
      seen = seen.defined() ? torch::cat({seen, o}) : o;
      return lensHook(layer, which, out);
    };
    trial->predictionsWith(true, both, [&] { recorder.finishBatch(); });
    const auto lens = recorder.result();
    QCOMPARE(static_cast<int64_t>(lens.frequencies.size()), bins);
    QCOMPARE(lens.numbers, m);

    auto n = torch::arange(m, torch::kDouble);
    const auto dftMagnitudes = [&](const torch::Tensor& logits) {  // (P, M) -> (P, bins)
      std::vector<torch::Tensor> columns;
      for (int64_t k = 1; k <= bins; ++k) {
        auto re = torch::matmul(logits, torch::cos(2 * M_PI * k * n / m));
        auto im = torch::matmul(logits, torch::sin(2 * M_PI * k * n / m));
        columns.push_back((re * re + im * im).sqrt());
      }
      return torch::stack(columns, 1);
    };
    for (int module = 0; module < 2; ++module) {
      const auto& got = module == 0 ? lens.attention : lens.mlp;
      torch::Tensor summedLogits;
      for (int64_t layer = 0; layer < 2; ++layer) {
        auto logits = torch::matmul(outputs.at({layer, module}), unembedding.t());
        summedLogits = summedLogits.defined() ? summedLogits + logits : logits;
        auto expected = dftMagnitudes(logits).mean(0);
        QVERIFY2(torch::allclose(got.perLayer[layer], expected, 1e-4, 1e-5),
                 ("layer " + std::to_string(layer)).c_str());
      }
      auto summed = dftMagnitudes(summedLogits);
      QVERIFY(torch::allclose(got.summed, summed.mean(0), 1e-4, 1e-5));
      // High: period M/k <= 10.4, the ablation's split.
      auto energy = summed.pow(2).mean(0);
      double high = 0;
      for (int64_t k = 1; k <= bins; ++k)
        if (static_cast<double>(m) / k <= 10.4) high += energy[k - 1].item<double>();
      QVERIFY(std::abs(got.highShare - high / energy.sum().item<double>()) < 1e-6);
    }
  }

  // The lens as the run reports it: one layer x frequency snapshot per module with the paper's
  // periods marked at k = M / period, the layer sums as two rows, the shares as metrics.
  void anEvaluationReportsTheLensPerModuleWithThePeriodsMarked() {
    auto trial = makeTrial({"operands=20", "d_model=32", "heads=2", "layers=3", "steps=5"});
    EvalReport report;
    trial->evaluate(0, /*final=*/false, report);
    const auto find = [&](const std::string& name) {
      auto it = std::find_if(report.snapshots.begin(), report.snapshots.end(),
                             [&](const Snapshot& s) { return s.name == name; });
      if (it == report.snapshots.end()) throw std::runtime_error("no snapshot " + name);
      return *it;
    };
    for (const std::string name : {"lens/attn", "lens/mlp"}) {
      const auto s = find(name);
      QCOMPARE(s.shape, (std::vector<int64_t>{3, 19}));  // 39 numbers: k = 1..19
      QCOMPARE(s.axes.at(0).ticks, (std::vector<float>{1, 2, 3}));
      QCOMPARE(s.axes.at(1).ticks.front(), 1.0f);
      QCOMPARE(s.meta["x_marks"].size(), size_t(4));
      QCOMPARE(s.meta["x_marks"][0]["at"].get<double>(), 4.0);   // 39 / 10 rounded
      QCOMPARE(s.meta["x_marks"][3]["at"].get<double>(), 19.0);  // 39 / 2 = 19.5: at most M/2
      QCOMPARE(s.meta["x_marks"][3]["label"].get<std::string>(), std::string("period 2"));
    }
    QCOMPARE(find("lens/modules").shape, (std::vector<int64_t>{2, 19}));
    std::map<std::string, double> metrics(report.metrics.begin(), report.metrics.end());
    for (const std::string key : {"lens/high_share_attn", "lens/high_share_mlp"}) {
      QVERIFY(metrics.count(key) == 1);
      QVERIFY(metrics.at(key) >= 0 && metrics.at(key) <= 1);
    }
  }

  void pairsSplitIntoDisjointTrainAndTestWithCorrectAnswers() {
    for (bool modular : {false, true}) {
      addition::AdditionTask task{13, modular};
      std::mt19937_64 rng(5);
      auto split = addition::splitPairs(task, 0.25, rng);
      QCOMPARE(split.testInputs.size(0) + split.trainInputs.size(0), int64_t(169));
      QCOMPARE(split.testInputs.size(0), int64_t(42));
      std::set<std::pair<int64_t, int64_t>> seen;
      for (auto* part : {&split.trainInputs, &split.testInputs}) {
        const auto& answers = part == &split.trainInputs ? split.trainAnswers : split.testAnswers;
        for (int64_t i = 0; i < part->size(0); ++i) {
          const int64_t a = (*part)[i][0].item<int64_t>(), b = (*part)[i][2].item<int64_t>();
          QCOMPARE((*part)[i][1].item<int64_t>(), task.plusToken());
          QCOMPARE((*part)[i][3].item<int64_t>(), task.equalsToken());
          QCOMPARE(answers[i].item<int64_t>(), modular ? (a + b) % 13 : a + b);
          QVERIFY(seen.insert({a, b}).second);
        }
      }
      QCOMPARE(seen.size(), size_t(169));
      QCOMPARE(task.vocabularySize(), modular ? int64_t(15) : int64_t(27));
    }
  }

  // The Live tab's epoch and tokens axes: the trial's own epoch (its plan, by which the Runner
  // counts epochs: whole batches of the training pairs, at least one) and four tokens a problem.
  void stepsPerEpochAndTokensPerStepAreTheTrialsCounts() {
    addition::AdditionExperiment experiment;
    struct Case {
      std::vector<std::string> assignments;
      double stepsPerEpoch;  // train pairs / batch_size, rounded down
      double tokensPerStep;
    };
    for (const auto& c : std::vector<Case>{
             {{"operands=20", "test_fraction=0.25", "batch_size=64"}, 4, 256},  // 300 pairs
             {{"operands=11", "test_fraction=0.2", "batch_size=128"}, 1, 512},  // 97 pairs
         }) {
      std::vector<std::string> assignments = {"d_model=32", "heads=2", "layers=1"};
      assignments.insert(assignments.end(), c.assignments.begin(), c.assignments.end());
      auto config = buildConfig(experiment, "", assignments);
      QVERIFY2(config.ok(), config.summary().c_str());
      QCOMPARE(experiment.stepsPerEpoch(config.values).value(), c.stepsPerEpoch);
      QCOMPARE(experiment.stepsPerEpoch(config.values).value(),
               static_cast<double>(makeTrial(assignments)->plan().stepsPerEpoch));
      QCOMPARE(experiment.tokensPerStep(config.values).value(), c.tokensPerStep);
    }
  }

  void fourierInitWritesTheFeaturesAndFrozenRowsStayFixed() {
    auto trial = makeTrial({"operands=20", "d_model=32", "heads=2", "layers=1", "steps=10",
                            "embedding_init=fourier", "fourier_periods=2,5,10",
                            "fourier_amplitude=0.5", "embedding_frozen=true"});
    auto e = trial->numberEmbedding().detach().clone();
    QCOMPARE(e.size(0), int64_t(39));
    for (int64_t n = 0; n < 39; ++n) {
      QVERIFY(std::abs(e[n][2].item<double>() - 0.5 * std::cos(2 * M_PI * n / 5)) < 1e-6);
      QVERIFY(std::abs(e[n][5].item<double>() - 0.5 * std::sin(2 * M_PI * n / 10)) < 1e-6);
    }
    const auto peaks = analysis::topPeriods(analysis::numberAxisMagnitudes(e), 39, 3);
    QVERIFY(std::abs(peaks[0].period - 39.0 / 4) < 1e-9 ||
            std::abs(peaks[0].period - 39.0 / 8) < 1e-9 ||
            std::abs(peaks[0].period - 39.0 / 19) < 1e-9);  // the bins nearest periods 10, 5, 2
    auto otherRows = trial->model()->tokenEmbedding()->weight.narrow(0, 39, 2).detach().clone();
    for (int64_t i = 0; i < 10; ++i) trial->trainStep(i);
    QVERIFY(torch::equal(trial->numberEmbedding(), e));  // bit-identical, the tied head's too
    QVERIFY(torch::equal(trial->model()->unembedding().narrow(0, 0, 39), e));
    // ... while '+' and '=' trained on.
    QVERIFY(!torch::equal(trial->model()->tokenEmbedding()->weight.narrow(0, 39, 2), otherRows));
    // Too many periods for the width is refused by the config check, before any trial exists.
    try {
      makeTrial({"d_model=8", "heads=2", "embedding_init=fourier", "fourier_periods=2,3,4,5,6"});
      QFAIL("expected an error");
    } catch (const std::invalid_argument& error) {
      QVERIFY2(QString(error.what())
                   .contains("'fourier_periods'=2,3,4,5,6 needs 10 embedding dimensions (a cos and "
                             "a sin per period), 'd_model' is 8"),
               error.what());
    }
  }

  // The paper's two figures grade only their own cells: 53.95% the from-scratch model (random
  // embeddings, trained), 100% the rescue (Fourier embeddings, frozen); Fourier embeddings that
  // train on, or frozen random ones, are not the paper's and get no verdict.
  void thePaperPresetsGradeOnlyTheirOwnCells() {
    addition::AdditionExperiment experiment;
    const std::map<std::string, double> last{{"test/acc", 0.9}};
    auto verdictsOf = [&](const std::string& preset, const std::vector<std::string>& set) {
      auto config = buildConfig(experiment, preset, set);
      if (!config.ok()) throw std::invalid_argument(config.summary());
      return checkAgainstPresets(experiment, config.values, last);
    };
    auto scratch = verdictsOf("paper", {});
    QCOMPARE(scratch.size(), size_t(1));
    QCOMPARE(scratch[0].preset, std::string("paper"));
    QCOMPARE(scratch[0].paperMean, 0.5395);
    auto rescue = verdictsOf("paper-rescue", {});
    QCOMPARE(rescue.size(), size_t(1));
    QCOMPARE(rescue[0].preset, std::string("paper-rescue"));
    QCOMPARE(rescue[0].paperMean, 1.0);
    QCOMPARE(verdictsOf("paper", {"embedding_init=fourier", "embedding_frozen=true"}).size(),
             size_t(1));  // the rescue, however it was launched
    QVERIFY(verdictsOf("paper-fourier-trained", {}).empty());
    QVERIFY(verdictsOf("paper", {"embedding_init=fourier"}).empty());
    QVERIFY(verdictsOf("paper-rescue", {"embedding_init=random"}).empty());  // frozen random
    QVERIFY(verdictsOf("paper", {"steps=500"}).empty());                     // shortened
    QCOMPARE(buildConfig(experiment, "paper-rescue", {}).values["embedding_frozen"], true);
  }

  void aTinyModelLearnsModularAddition() {
    auto trial = makeTrial({"operands=11", "modular=true", "test_fraction=0.2", "d_model=64",
                            "heads=4", "layers=1", "batch_size=64", "steps=600", "lr=0.003",
                            "warmup=20", "weight_decay=0.5"});
    for (int64_t i = 0; i < 600; ++i) trial->trainStep(i);
    const double train = trial->accuracy(false), test = trial->accuracy(true);
    QVERIFY2(train > 0.99, qPrintable(QString("train %1 test %2").arg(train).arg(test)));
    QVERIFY2(test > 0.5, qPrintable(QString("train %1 test %2").arg(train).arg(test)));
  }
};

QTEST_APPLESS_MAIN(TestAddition)
#include "test_addition.moc"
