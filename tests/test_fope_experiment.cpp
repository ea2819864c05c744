// Tests experiments/fope: perplexity of a uniform predictor, learning on the built-in text,
// the declared panels and presets, bad settings, snapshots and bit-for-bit checkpoints.
#include <QtTest>

#include <cmath>

#include <torch/torch.h>

#include "core/engine/config.h"
#include "core/engine/registry.h"
#include "core/engine/seeding.h"
#include "experiments/fope/fope_experiment.h"
#include "experiments/fope/fope_trial.h"

using namespace fl;

namespace {

nlohmann::json config(const std::map<std::string, std::string>& assignments) {
  fope::FopeExperiment experiment;
  std::vector<std::string> list;
  for (const auto& [k, v] : assignments) list.push_back(k + "=" + v);
  auto c = buildConfig(experiment, "", list);
  if (!c.ok()) throw std::invalid_argument(c.summary());
  return c.values;
}

// A model small enough for a test: d 32, 2 heads, 1 layer, train_len 16.
std::map<std::string, std::string> tinyModel() {
  return {{"d_model", "32"},
          {"heads", "2"},
          {"layers", "1"},
          {"train_len", "16"},
          {"batch_size", "8"},
          {"eval_tokens", "512"},
          {"synthetic_chars", "20000"},
          {"passkey_mix", "0"},
          {"passkey_samples", "4"},
          {"warmup", "5"},
          {"steps", "60"},
          {"lr", "0.003"},
          {"eval_factors", "1,4"}};
}

std::unique_ptr<fope::FopeTrial> makeTrial(const nlohmann::json& c, uint64_t seed = 42) {
  SeededScope scope(seed);
  return std::make_unique<fope::FopeTrial>(fope::FopeSettings::fromConfig(c), c10::kCPU, seed);
}

}  // namespace

class TestFopeExperiment : public QObject {
  Q_OBJECT

 private slots:
  void aUniformPredictorHasPerplexityEqualToTheVocabularySize() {
    auto trial = makeTrial(config(tinyModel()));
    {
      torch::NoGradGuard noGrad;
      trial->model()->unembedding().zero_();  // every logit 0: the uniform distribution
    }
    const double vocabulary = static_cast<double>(trial->data().vocabulary().size());
    for (int64_t length : {16, 64})
      QVERIFY2(std::abs(trial->perplexity(length) - vocabulary) < 1e-3 * vocabulary,
               qPrintable(QString("%1 vs %2").arg(trial->perplexity(length)).arg(vocabulary)));
  }

  void trainingOnTheBuiltInTextLowersValidationLoss() {
    for (const char* position : {"rope", "fope", "alibi", "none", "learned"}) {
      auto c = tinyModel();
      c["position"] = position;
      auto trial = makeTrial(config(c));
      EvalReport before;
      trial->evaluate(0, false, before);
      for (int64_t i = 0; i < 60; ++i) QVERIFY(std::isfinite(trial->trainStep(i).read()));
      EvalReport after;
      trial->evaluate(60, true, after);
      auto value = [](const EvalReport& r, const std::string& key) {
        for (const auto& [k, v] : r.metrics)
          if (k == key) return v;
        return std::nan("");
      };
      QVERIFY2(value(after, "val/loss") < value(before, "val/loss") - 0.5,
               qPrintable(QString("%1: %2 -> %3")
                              .arg(position)
                              .arg(value(before, "val/loss"))
                              .arg(value(after, "val/loss"))));
      QVERIFY(std::isfinite(value(after, "val/ppl@64")));
      QVERIFY(value(after, "passkey/acc@64") >= 0.0);  // 64 holds a 4-digit passkey, 16 does not
      QVERIFY(std::isnan(value(after, "passkey/acc@16")));
    }
  }

  void snapshotsShowClippedFrequenciesAndFopeCoefficients() {
    auto c = tinyModel();
    c["position"] = "fope";
    auto trial = makeTrial(config(c));
    EvalReport report;
    trial->evaluate(0, false, report);
    std::map<std::string, Snapshot> byName;
    for (const auto& s : report.snapshots) byName[s.name] = s;
    QVERIFY(byName.count("ppl/by_length") && byName.count("freq/in_use") &&
            byName.count("fope/coef_cos"));
    const auto& ppl = byName["ppl/by_length"];
    QCOMPARE(ppl.axes.back().ticks, (std::vector<float>{16, 64}));
    const auto& inUse = byName["freq/in_use"];
    const auto& clipped = byName["freq/clipped"];
    const double floor = 2 * M_PI / 16;
    int kept = 0;
    for (size_t j = 0; j < inUse.data.size(); ++j) {
      const double w = std::pow(10000.0, -2.0 * j / 16.0);  // head size 16
      if (w < floor) {
        QCOMPARE(inUse.data[j], 0.f);
        QVERIFY(std::abs(clipped.data[j] - w) < 1e-6);
      } else {
        QVERIFY(std::abs(inUse.data[j] - w) < 1e-6);
        QCOMPARE(clipped.data[j], 0.f);
        ++kept;
      }
    }
    const auto& cos = byName["fope/coef_cos"];
    QCOMPARE(cos.shape, (std::vector<int64_t>{2, kept, std::min(kept, 16 / 4)}));
    // The spectrum meter: one layer x 8 pairs of purities in [0, 1] (NaN only for a silent
    // pair), over the longest evaluation length (64 = 4 x 16), and a mean for the layer.
    QVERIFY(byName.count("spectrum/purity"));
    const auto& purity = byName["spectrum/purity"];
    QCOMPARE(purity.shape, (std::vector<int64_t>{1, 8}));
    QCOMPARE(purity.meta["probe_length"].get<int64_t>(), int64_t(64));
    for (float v : purity.data) QVERIFY(std::isnan(v) || (v >= 0.f && v <= 1.f + 1e-6f));
    bool layerMean = false;
    for (const auto& m : report.metrics) layerMean = layerMean || m.first == "spectrum/purity_L0";
    QVERIFY(layerMean);
  }

  void aCheckpointContinuesBitForBit() {
    QTemporaryDir dir;
    const auto path = dir.filePath("ckpt.pt").toStdString();
    auto c = tinyModel();
    c["passkey_mix"] = "0.25";
    c["train_len"] = "48";
    c["fope_learnable"] = "true";
    c["dropout"] = "0.1";  // its masks come from the model's own generator, saved too
    auto a = makeTrial(config(c));
    for (int64_t i = 0; i < 5; ++i) a->trainStep(i);
    a->saveCheckpoint(path);
    std::vector<double> expected;
    for (int64_t i = 5; i < 10; ++i) expected.push_back(a->trainStep(i).read());
    auto b = makeTrial(config(c));
    b->loadCheckpoint(path);
    for (int64_t i = 5; i < 10; ++i)
      QCOMPARE(b->trainStep(i).read(), expected[static_cast<size_t>(i - 5)]);
  }

  void interleavedRunsWithDropoutGiveTheSameLossesAsRunsAlone() {
    // Two runs stepping in turn in one process (the GUI's parallel runs) must not share dropout
    // randomness: each gives the losses it gives alone.
    auto c = tinyModel();
    c["dropout"] = "0.2";
    std::vector<double> alone;
    {
      auto solo = makeTrial(config(c), 5);
      for (int64_t i = 0; i < 6; ++i) alone.push_back(solo->trainStep(i).read());
    }
    auto a = makeTrial(config(c), 5);
    auto b = makeTrial(config(c), 6);
    for (int64_t i = 0; i < 6; ++i) {
      QCOMPARE(a->trainStep(i).read(), alone[static_cast<size_t>(i)]);
      b->trainStep(i);
    }
  }

  void badSettingsAreRejectedWithTheReason() {
    auto c = tinyModel();
    c["passkey_mix"] = "0.2";  // train_len 16 cannot hold a 4-digit passkey sample
    try {
      makeTrial(config(c));
      QFAIL("expected an error");
    } catch (const std::invalid_argument& e) {
      // Refused by the config check now, before a trial exists.
      QVERIFY2(QString(e.what()).contains("need train_len >= 48, 'train_len' is 16"), e.what());
    }
    fope::FopeExperiment experiment;
    auto bad = buildConfig(experiment, "", {"eval_factors=1,0"});
    QVERIFY(!bad.ok());
    QVERIFY(
        QString::fromStdString(bad.summary()).contains("'0' is not a whole number in [1, 1024]"));
    auto heads = tinyModel();
    heads["heads"] = "3";
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeTrial(config(heads)));
  }

  // The Live tab's tokens axis: what a training step reads, passkey rows (which replace corpus
  // windows) included; random windows have no epochs.
  void tokensPerStepIsWhatATrainingBatchHolds() {
    struct Peek : fope::FopeTrial {
      using FopeTrial::FopeTrial;
      using FopeTrial::nextBatch;
    };
    auto values = config(tinyModel());
    values["passkey_mix"] = 0.5;
    values["train_len"] = 48;  // room for a passkey sample
    QVERIFY(fope::FopeExperiment().checkConfig(values).empty());
    SeededScope scope(42);
    Peek trial(fope::FopeSettings::fromConfig(values), c10::kCPU, 42);
    std::mt19937_64 rng(1);
    const auto [inputs, targets] = trial.nextBatch(rng);
    fope::FopeExperiment experiment;
    QCOMPARE(experiment.tokensPerStep(values).value(), static_cast<double>(inputs.numel()));
    QCOMPARE(experiment.tokensPerStep(values).value(), 8.0 * 48);
    QVERIFY(!experiment.stepsPerEpoch(values));
  }

  void presetsAndVariantsBuildValidConfigs() {
    fope::FopeExperiment experiment;
    std::set<std::string> names;
    for (const auto& preset : experiment.presets()) {
      names.insert(preset.name);
      for (const auto& variant : experiment.comparisonVariants()) {
        std::vector<std::string> assignments;
        for (const auto& [k, v] : variant.overrides.items())
          assignments.push_back(k + "=" + v.get<std::string>());
        auto c = buildConfig(experiment, preset.name, assignments);
        QVERIFY2(c.ok(), c.summary().c_str());
        QCOMPARE(c.values["position"], variant.overrides["position"]);
      }
    }
    QVERIFY(names.count("tiny") && names.count("small") && names.count("paper-60m"));
    auto paper = buildConfig(experiment, "paper-60m", {}).values;
    QCOMPARE(paper["d_model"].get<int>(), 512);
    QCOMPARE(paper["layers"].get<int>(), 8);
    QCOMPARE(paper["train_len"].get<int>(), 512);
  }
};

QTEST_APPLESS_MAIN(TestFopeExperiment)
#include "test_fope_experiment.moc"
