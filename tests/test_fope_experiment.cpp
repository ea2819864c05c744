// Tests experiments/fope: perplexity of a uniform predictor, learning on the built-in text,
// the declared panels and presets, bad settings, snapshots and bit-for-bit checkpoints, FoPE's
// coefficients per layer (fixed or trained) and checkpoints from when they were one shared set.
#include <QFileInfo>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

#include <torch/torch.h>

#include "core/engine/config.h"
#include "core/engine/registry.h"
#include "core/engine/resume_refused.h"
#include "core/engine/seeding.h"
#include "core/nn/transformer/gpt.h"
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

// Every layer's FoPE coefficients (cos, then sin), copied.
std::vector<torch::Tensor> fopeCoefficients(const nn::Gpt& model) {
  std::vector<torch::Tensor> out;
  for (const auto& f : model->position()->fourierLayers()) {
    out.push_back(f->cosCoefficients().detach().clone());
    out.push_back(f->sinCoefficients().detach().clone());
  }
  return out;
}

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Rewrites a checkpoint of `model` as FourierLab wrote it when FoPE's coefficients were one set
// shared by every layer: layer 0's set under the shared names ("position.fourier.cos_coef"),
// the other layers' left out, as buffers or (learnable) from the flat parameter and moment
// vectors.
void rewriteAsSharedFope(const std::string& from, const std::string& to, const nn::Gpt& model) {
  std::vector<bool> keep;
  for (const auto& p : model->named_parameters()) {
    const bool otherLayer =
        startsWith(p.key(), "position.fourier.") && !startsWith(p.key(), "position.fourier.0.");
    keep.insert(keep.end(), static_cast<size_t>(p.value().numel()), !otherLayer);
  }
  std::vector<int64_t> kept;
  for (size_t i = 0; i < keep.size(); ++i)
    if (keep[i]) kept.push_back(static_cast<int64_t>(i));
  const auto keptIndex = torch::tensor(kept, torch::kLong);
  torch::serialize::InputArchive in;
  in.load_from(from);
  torch::serialize::OutputArchive out;
  for (const auto& key : in.keys()) {
    torch::Tensor t;
    if (!in.try_read(key, t)) {
      c10::IValue value;
      in.read(key, value);
      out.write(key, value);
    } else if (startsWith(key, "buffer.position.fourier.")) {
      const std::string layer0 = "buffer.position.fourier.0.";
      if (startsWith(key, layer0))
        out.write("buffer.position.fourier." + key.substr(layer0.size()), t, /*is_buffer=*/true);
    } else if (key == "parameters" || (startsWith(key, "adam.") && key != "adam.step")) {
      out.write(key, t.reshape({-1}).index_select(0, keptIndex));
    } else {
      out.write(key, t);
    }
  }
  out.save_to(to);
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
    for (const char* layers : {"1", "2"})
      for (const char* learnable : {"true", "false"}) {
        QTemporaryDir dir;
        const auto path = dir.filePath("ckpt.pt").toStdString();
        auto c = tinyModel();
        c["passkey_mix"] = "0.25";
        c["train_len"] = "48";
        c["layers"] = layers;
        c["fope_learnable"] = learnable;
        c["dropout"] = "0.1";  // its masks come from the model's own generator, saved too
        auto a = makeTrial(config(c));
        for (int64_t i = 0; i < 5; ++i) a->trainStep(i);
        a->saveCheckpoint(path);
        std::vector<double> expected;
        for (int64_t i = 5; i < 10; ++i) expected.push_back(a->trainStep(i).read());
        auto b = makeTrial(config(c));
        {
          // Other coefficients until the checkpoint loads (fixed or learnable, every layer's).
          torch::NoGradGuard noGrad;
          for (const auto& f : b->model()->position()->fourierLayers()) {
            f->cosCoefficients().add_(1.0);
            f->sinCoefficients().add_(1.0);
          }
        }
        b->loadCheckpoint(path);
        for (int64_t i = 5; i < 10; ++i)
          QCOMPARE(b->trainStep(i).read(), expected[static_cast<size_t>(i - 5)]);
      }
  }

  // A corpus given by a relative path is stored absolute, and a checkpoint knows its text: a
  // resume from another folder read another file of the same name and trained on as if nothing
  // had changed (or failed on the vocabulary's size). Now it reads the same file, and a file
  // edited since is refused, naming both texts, while the one trained on resumes.
  void aCheckpointResumesOnlyOnTheTextItTrainedOn() {
    QTemporaryDir dir;
    const auto write = [&](uint32_t seed) {
      std::mt19937 rng(seed);
      std::string text;
      for (int i = 0; i < 5000; ++i) text += "abcdefghij \n"[rng() % 12];
      std::ofstream(dir.filePath("text.txt").toStdString(), std::ios::trunc) << text;
    };
    write(1);
    const QString before = QDir::currentPath();
    QVERIFY(QDir::setCurrent(dir.path()));
    auto c = tinyModel();
    c["corpus"] = "text.txt";
    const auto values = config(c);
    QVERIFY(QDir::setCurrent(before));
    QCOMPARE(QString::fromStdString(values["corpus"].get<std::string>()),
             QDir(dir.path()).canonicalPath() + "/text.txt");
    const auto path = dir.filePath("ckpt.pt").toStdString();
    auto a = makeTrial(values);
    a->trainStep(0);
    a->saveCheckpoint(path);
    write(2);  // the same characters in another order: the vocabulary alone cannot tell
    try {
      makeTrial(values)->loadCheckpoint(path);
      QFAIL("a checkpoint loaded on another text");
    } catch (const fl::ResumeRefused& e) {  // the run stays resumable, not failed
      QVERIFY2(QString(e.what()).contains("text.txt' is not the text this run trained on: it now "
                                          "has 5000 characters"),
               e.what());
    }
    write(1);
    makeTrial(values)->loadCheckpoint(path);  // the text it trained on: resumes
    // The built-in text is the same text at every resume.
    auto builtIn = makeTrial(config(tinyModel()));
    builtIn->saveCheckpoint(path);
    makeTrial(config(tinyModel()))->loadCheckpoint(path);
  }

  // Fixed coefficients (the official default) are buffers: not in the parameters the optimizer
  // gets, no gradient, bit for bit the same after training; learnable ones are parameters and
  // move, every layer's. The snapshots show every layer's.
  void fixedFopeCoefficientsStayBitIdenticalWhileLearnableOnesTrain() {
    for (const bool learnable : {false, true}) {
      auto c = tinyModel();
      c["position"] = "fope";
      c["layers"] = "2";
      c["train_len"] = "48";  // K = 2 frequencies above the floor, M = 2 pairs with a series
      c["fope_learnable"] = learnable ? "true" : "false";
      auto trial = makeTrial(config(c));
      const auto model = trial->model();
      const auto& layers = model->position()->fourierLayers();
      QCOMPARE(layers.size(), size_t(2));
      const auto before = fopeCoefficients(model);
      QCOMPARE(before[0].sizes().vec(), (std::vector<int64_t>{2, 2, 2}));
      QVERIFY(!torch::equal(before[0], before[2]));  // layer 0's C_cos is not layer 1's
      const auto parameters = model->parameters();
      for (const auto& f : layers)
        for (const auto& t : {f->cosCoefficients(), f->sinCoefficients()}) {
          bool isParameter = false;
          for (const auto& p : parameters) isParameter = isParameter || p.is_same(t);
          QCOMPARE(isParameter, learnable);
          QCOMPARE(t.requires_grad(), learnable);
        }
      for (int64_t i = 0; i < 4; ++i) QVERIFY(std::isfinite(trial->trainStep(i).read()));
      const auto after = fopeCoefficients(model);
      for (size_t i = 0; i < after.size(); ++i) {
        if (learnable)
          QVERIFY2(!torch::equal(after[i], before[i]),
                   qPrintable(QString("learnable set %1 did not train").arg(i)));
        else
          QVERIFY2(torch::equal(after[i], before[i]),
                   qPrintable(QString("fixed set %1 changed").arg(i)));
      }
      // fope/coef_cos: (layers x heads, K, M), layer 0's heads first, each slice labelled.
      EvalReport report;
      trial->evaluate(4, false, report);
      for (const auto& s : report.snapshots) {
        if (s.name != "fope/coef_cos") continue;
        QCOMPARE(s.shape, (std::vector<int64_t>{4, 2, 2}));
        const auto expected = torch::cat({after[0], after[2]}, 0).reshape({-1});
        for (int64_t i = 0; i < expected.numel(); ++i)
          QCOMPARE(s.data[static_cast<size_t>(i)], expected[i].item<float>());
        QCOMPARE(s.meta["row_labels"][3].get<std::string>(), std::string("layer 1, head 1"));
      }
    }
  }

  // A checkpoint from when FoPE's coefficients were one set shared by every layer. Fixed: the
  // set was every layer's, so it is copied into each and the run continues as it was, bit for
  // bit. Learnable: its set trained as one cannot continue as per-layer sets; refused, saying so.
  void aSharedFopeCheckpointLoadsIntoEveryLayerOrIsRefused() {
    QTemporaryDir dir;
    const auto saved = dir.filePath("per-layer.pt").toStdString();
    const auto shared = dir.filePath("shared.pt").toStdString();
    auto c = tinyModel();
    c["position"] = "fope";
    c["layers"] = "2";
    c["train_len"] = "48";
    c["fope_learnable"] = "false";
    auto a = makeTrial(config(c));
    {
      // The old model: layer 1 rotates with layer 0's set.
      torch::NoGradGuard noGrad;
      const auto& layers = a->model()->position()->fourierLayers();
      layers[1]->cosCoefficients().copy_(layers[0]->cosCoefficients());
      layers[1]->sinCoefficients().copy_(layers[0]->sinCoefficients());
    }
    for (int64_t i = 0; i < 3; ++i) a->trainStep(i);
    a->saveCheckpoint(saved);
    rewriteAsSharedFope(saved, shared, a->model());
    std::vector<double> expected;
    for (int64_t i = 3; i < 6; ++i) expected.push_back(a->trainStep(i).read());
    auto b = makeTrial(config(c));
    QVERIFY(!torch::equal(fopeCoefficients(b->model())[0], fopeCoefficients(b->model())[2]));
    b->loadCheckpoint(shared);
    const auto loaded = fopeCoefficients(b->model());
    QVERIFY(torch::equal(loaded[0], loaded[2]) && torch::equal(loaded[1], loaded[3]));
    for (int64_t i = 3; i < 6; ++i)
      QCOMPARE(b->trainStep(i).read(), expected[static_cast<size_t>(i - 3)]);

    c["fope_learnable"] = "true";
    auto learning = makeTrial(config(c));
    for (int64_t i = 0; i < 2; ++i) learning->trainStep(i);
    learning->saveCheckpoint(saved);
    rewriteAsSharedFope(saved, shared, learning->model());
    auto resumed = makeTrial(config(c));
    try {
      resumed->loadCheckpoint(shared);
      QFAIL("a shared learnable set was loaded into per-layer sets");
    } catch (const std::runtime_error& e) {
      QVERIFY2(QString(e.what()).contains("one set of learnable FoPE coefficients shared by every "
                                          "layer") &&
                   QString(e.what()).contains("start the run again"),
               e.what());
    }
    // The per-layer checkpoint itself loads.
    resumed->loadCheckpoint(saved);
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
    // A factor twice is refused (it was taken, and named one config two ways).
    auto twice = buildConfig(experiment, "", {"eval_factors=1, 2,2"});
    QVERIFY(!twice.ok());
    QVERIFY2(QString::fromStdString(twice.summary()).contains("'2' is given twice"),
             twice.summary().c_str());
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

  // The zero-shot protocol trains on the corpus alone: its training batches are the corpus's
  // windows, exactly those CharLmTrial draws, and no sequence holds a key statement (the
  // trained-in protocol's batches do, so the search finds one when it is there).
  void zeroShotTrainingBatchesHoldNoPasskeyText() {
    struct Peek : fope::FopeTrial {
      using FopeTrial::FopeTrial;
      using FopeTrial::nextBatch;
    };
    auto statements = [](const fope::FopeTrial& trial, const torch::Tensor& inputs) {
      int found = 0;
      for (int64_t r = 0; r < inputs.size(0); ++r) {
        std::vector<int32_t> ids;
        for (int64_t t = 0; t < inputs.size(1); ++t)
          ids.push_back(static_cast<int32_t>(inputs[r][t].item<int64_t>()));
        const auto text = trial.data().vocabulary().decode(ids);
        found += text.find(U"the key is") != std::u32string::npos ||
                         text.find(U"pass key") != std::u32string::npos
                     ? 1
                     : 0;
      }
      return found;
    };
    auto values = config(tinyModel());
    values["train_len"] = 64;
    values["batch_size"] = 16;
    values["passkey_protocol"] = "zero-shot";
    values["passkey_mix"] = 0.0;
    QVERIFY(fope::FopeExperiment().checkConfig(values).empty());
    SeededScope scope(42);
    Peek zeroShot(fope::FopeSettings::fromConfig(values), c10::kCPU, 42);
    for (uint64_t seed : {1, 2, 3}) {
      std::mt19937_64 rng(seed), same(seed);
      const auto [inputs, targets] = zeroShot.nextBatch(rng);
      const auto [corpus, corpusTargets] = zeroShot.data().sampleTrainBatch(16, 64, same);
      QVERIFY(torch::equal(inputs, corpus) && torch::equal(targets, corpusTargets));
      QCOMPARE(statements(zeroShot, inputs), 0);
    }
    values["passkey_protocol"] = "trained-in";
    values["passkey_mix"] = 0.5;
    Peek trainedIn(fope::FopeSettings::fromConfig(values), c10::kCPU, 42);
    std::mt19937_64 rng(1);
    QCOMPARE(statements(trainedIn, trainedIn.nextBatch(rng).first), 8);
  }

  // Zero-shot evaluation: from the first length that holds the 253-character prompt on, the
  // exact accuracy with its 95% Wilson interval and the share of key characters; a model that
  // predicts the same character everywhere retrieves nothing: 0 of 10, [0, 0.2775].
  void zeroShotPasskeyAccuracyCarriesItsWilsonInterval() {
    auto c = tinyModel();
    c["passkey_protocol"] = "zero-shot";
    c["passkey_digits"] = "5";
    c["passkey_samples"] = "10";
    c["eval_factors"] = "4,16";  // 64: too short for the prompt; 256 holds it
    auto trial = makeTrial(config(c));
    {
      torch::NoGradGuard noGrad;
      trial->model()->unembedding().zero_();  // every logit 0: argmax is token 0, '\n'
    }
    EvalReport report;
    trial->evaluate(0, false, report);
    std::map<std::string, double> m(report.metrics.begin(), report.metrics.end());
    QVERIFY(!m.count("passkey/acc@64"));
    QCOMPARE(m.at("passkey/acc@256"), 0.0);
    QCOMPARE(m.at("passkey/digit_acc@256"), 0.0);
    QCOMPARE(m.at("passkey/acc_lo@256"), 0.0);
    QVERIFY(std::abs(m.at("passkey/acc_hi@256") - 0.277533) < 1e-6);
    // The built-in text has none of the prompt's capitals, punctuation or digits.
    QVERIFY(m.at("passkey/unseen_chars") > 10);
    std::set<std::string> names;
    for (const auto& s : report.snapshots) names.insert(s.name);
    QVERIFY(names.count("passkey/by_length") && names.count("passkey/acc_lo_by_length") &&
            names.count("passkey/acc_hi_by_length"));

    // A trained model's scores: the interval always holds the accuracy.
    for (int64_t i = 0; i < 5; ++i) trial->trainStep(i);
    const auto score = trial->passkeyAccuracy(256, 10);
    QCOMPARE(score.trials, int64_t(10));
    QCOMPARE(score.exact, score.exactCount / 10.0);
  }

  // TinyShakespeare's only digit is '3': zero-shot digit keys ask for nine characters training
  // never shows, and the letters departure draws its keys from the 26 lowercase letters it has.
  void zeroShotOnTinyShakespeareCountsTheUnseenDigits() {
    const QString corpus = QString(FOURIERLAB_SHARED_DATA) + "/tinyshakespeare.txt";
    if (!QFileInfo::exists(corpus)) QSKIP("no tinyshakespeare.txt in the shared data folder");
    auto c = tinyModel();
    c["corpus"] = corpus.toStdString();
    c["passkey_protocol"] = "zero-shot";
    c["eval_factors"] = "16";
    auto digits = makeTrial(config(c));
    QCOMPARE(digits->passkeyUnseenCharacters(), int64_t(9));
    QVERIFY(digits->passkeyKeyAlphabet() == U"0123456789");
    c["passkey_key_chars"] = "letters";
    auto letters = makeTrial(config(c));
    QCOMPARE(letters->passkeyUnseenCharacters(), int64_t(0));
    QVERIFY(letters->passkeyKeyAlphabet() == U"abcdefghijklmnopqrstuvwxyz");
    // One vocabulary for both: the same seed trains the same model, only the keys differ.
    QCOMPARE(letters->data().vocabulary().size(), digits->data().vocabulary().size());
    QCOMPARE(letters->trainStep(0).read(), digits->trainStep(0).read());
  }

  void passkeyProtocolClashesAreRefused() {
    fope::FopeExperiment experiment;
    auto unknown = buildConfig(experiment, "", {"passkey_protocol=few-shot"});
    QVERIFY(!unknown.ok());
    QVERIFY2(QString::fromStdString(unknown.summary()).contains("trained-in") &&
                 QString::fromStdString(unknown.summary()).contains("zero-shot"),
             unknown.summary().c_str());
    auto mixed = buildConfig(experiment, "", {"passkey_protocol=zero-shot", "passkey_mix=0.2"});
    QVERIFY(!mixed.ok());
    QVERIFY2(QString::fromStdString(mixed.summary())
                 .contains("zero-shot trains on the corpus alone (the paper's test), but "
                           "'passkey_mix' is 0.2: set passkey_mix=0"),
             mixed.summary().c_str());
    auto letters = buildConfig(experiment, "", {"passkey_key_chars=letters"});
    QVERIFY(!letters.ok());
    QVERIFY(
        QString::fromStdString(letters.summary()).contains("is for passkey_protocol=zero-shot"));
    auto tooShort = buildConfig(experiment, "",
                                {"passkey_protocol=zero-shot", "passkey_mix=0", "passkey_digits=5",
                                 "train_len=64", "eval_factors=1,2"});
    QVERIFY(!tooShort.ok());
    QVERIFY2(QString::fromStdString(tooShort.summary())
                 .contains("needs at least 253 tokens, and the longest evaluation length is 128"),
             tooShort.summary().c_str());
    // The trial refuses the same settings when it is built without the check.
    auto c = config(tinyModel());
    c["passkey_protocol"] = "zero-shot";
    c["passkey_mix"] = 0.25;
    try {
      makeTrial(c);
      QFAIL("expected an error");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(QString(e.what()).contains("set passkey_mix=0"), e.what());
    }
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
    QVERIFY(names.count("tiny") && names.count("small") && names.count("paper-60m") &&
            names.count("tiny-zero-shot") && names.count("tiny-zero-shot-letters"));
    auto paper = buildConfig(experiment, "paper-60m", {}).values;
    QCOMPARE(paper["d_model"].get<int>(), 512);
    QCOMPARE(paper["layers"].get<int>(), 8);
    QCOMPARE(paper["train_len"].get<int>(), 512);
    // The official 60M config's MLP: SwiGLU, ff_proj 512 -> 8 x 512 = 4096 split into a value
    // and a gate of 2048 each, ff_out 2048 -> 512.
    const auto kind = nn::parseMlpKind(paper["mlp"].get<std::string>());
    QVERIFY(kind && *kind == nn::MlpKind::SwiGlu);
    nn::Mlp mlp(512, paper["mlp_ratio"].get<int64_t>(), *kind, 0.0,
                at::detail::createCPUGenerator(1));
    const auto weights = mlp->named_parameters();
    QCOMPARE(weights["up.weight"].sizes().vec(), (std::vector<int64_t>{2048, 512}));
    QCOMPARE(weights["gate.weight"].sizes().vec(), (std::vector<int64_t>{2048, 512}));
    QCOMPARE(weights["down.weight"].sizes().vec(), (std::vector<int64_t>{512, 2048}));
    // Perplexity from 512 to 8192, the official config's evaluation lengths.
    QCOMPARE(fope::FopeSettings::fromConfig(paper).evalLengths(),
             (std::vector<int64_t>{512, 1024, 2048, 4096, 8192}));
    // The paper's protocol: zero-shot, 5-digit keys, nothing mixed into training.
    for (const char* name : {"paper-60m", "tiny-zero-shot", "tiny-zero-shot-letters"}) {
      auto values = buildConfig(experiment, name, {}).values;
      QCOMPARE(values["passkey_protocol"].get<std::string>(), std::string("zero-shot"));
      QCOMPARE(values["passkey_mix"].get<double>(), 0.0);
      QCOMPARE(values["passkey_digits"].get<int>(), 5);
    }
    QCOMPARE(buildConfig(experiment, "paper-60m", {}).values["passkey_samples"].get<int>(), 1000);
    for (const char* name : {"tiny", "small"})
      QCOMPARE(buildConfig(experiment, name, {}).values["passkey_protocol"].get<std::string>(),
               std::string("trained-in"));
    for (const auto& preset : experiment.presets())
      QVERIFY2(!preset.description.empty(), preset.name.c_str());
  }
};

QTEST_APPLESS_MAIN(TestFopeExperiment)
#include "test_fope_experiment.moc"
