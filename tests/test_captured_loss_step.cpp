// Tests core/engine/captured_loss_step: a training step's forward and backward over the step's
// own input buffers gives the numbers of the plain loop (bit for bit where it runs eagerly,
// within float tolerance where a GPU replays a graph), and the step is recorded again exactly
// when what a graph reads may have moved: the batch's shape, the model's constant tables, a
// loaded checkpoint. On a GPU (skipped elsewhere): each position encoding's, each FourierQK
// filter's and the addition task's graphed steps follow their eager ones, every replay draws
// new dropout masks, and runs side by side keep their own steps while one records.
#include <QtTest>

#include <cstdlib>
#include <thread>

#include <torch/cuda.h>
#include <torch/torch.h>

#include "core/engine/captured_loss_step.h"
#include "core/engine/captured_step.h"
#include "core/engine/config.h"
#include "core/engine/registry.h"
#include "core/engine/seeding.h"
#include "core/optim/flat_adam.h"
#include "experiments/addition/addition_experiment.h"
#include "experiments/addition/addition_settings.h"
#include "experiments/addition/addition_trial.h"
#include "experiments/char_lm/char_lm_trial.h"
#include "experiments/fope/fope_experiment.h"
#include "experiments/fope/fope_trial.h"
#include "experiments/fourier_qk/fourier_qk_experiment.h"

using namespace fl;

namespace {

// A two-layer classifier and its optimiser, seeded: two of them start identical.
struct Classifier {
  torch::nn::Sequential net;
  std::unique_ptr<optim::FlatAdam> adam;

  Classifier(uint64_t seed, c10::Device device) {
    torch::manual_seed(seed);
    net = torch::nn::Sequential(torch::nn::Linear(6, 16), torch::nn::Tanh(),
                                torch::nn::Linear(16, 5));
    net->to(device);
    adam = std::make_unique<optim::FlatAdam>(net->parameters(), optim::FlatAdamOptions().lr(1e-2));
  }
  torch::Tensor loss(const torch::Tensor& inputs, const torch::Tensor& targets) {
    return torch::nn::functional::cross_entropy(net->forward(inputs), targets);
  }
  torch::Tensor parameters() const { return adam->state().parameters.detach().cpu(); }
};

struct Batch {
  torch::Tensor inputs, targets;
};

std::vector<Batch> batches(int count, int64_t rows, uint64_t seed) {
  torch::manual_seed(seed);
  std::vector<Batch> out;
  for (int i = 0; i < count; ++i)
    out.push_back({torch::randn({rows, 6}), torch::randint(0, 5, {rows}, torch::kLong)});
  return out;
}

// The loop every trial wrote before: zeroed gradients, the loss, backward, the update.
std::vector<double> plainLoop(Classifier& model, const std::vector<Batch>& data,
                              c10::Device device) {
  std::vector<double> losses;
  for (const auto& b : data) {
    model.adam->zeroGrad();
    auto loss = model.loss(b.inputs.to(device), b.targets.to(device));
    loss.backward();
    model.adam->step();
    losses.push_back(loss.item<double>());
  }
  return losses;
}

struct Captured {
  Classifier model;
  uint64_t generation = 0;
  CapturedLossStep step;

  Captured(uint64_t seed, c10::Device device)
      : model(seed, device),
        step(
            device,
            [this](const std::vector<torch::Tensor>& batch) {
              return model.loss(batch[0], batch[1]);
            },
            [this] { model.adam->zeroGrad(); }, [this] { return generation; }) {}

  std::vector<double> train(const std::vector<Batch>& data) {
    std::vector<torch::Tensor> kept;  // read only at the end, as the Runner reads a GPU loss
    for (const auto& b : data) {
      kept.push_back(step.run({b.inputs, b.targets}));
      model.adam->step();
    }
    std::vector<double> losses;
    for (const auto& l : kept) losses.push_back(l.item<double>());
    return losses;
  }
};

// A tiny char-level transformer of `experiment` (fope or fourier-qk) with `sets` on top.
std::unique_ptr<char_lm::CharLmTrial> charLmTrial(const Experiment& experiment,
                                                  std::vector<std::string> sets, c10::Device device,
                                                  uint64_t seed = 7) {
  for (const char* s : {"d_model=32", "heads=2", "layers=2", "train_len=16", "batch_size=8",
                        "synthetic_chars=20000", "dropout=0", "steps=40", "warmup=2", "lr=0.003"})
    sets.emplace_back(s);
  sets.push_back("device=" + std::string(device.is_cuda() ? "cuda" : "cpu"));
  auto config = buildConfig(experiment, "", sets);
  if (!config.ok()) throw std::invalid_argument(config.summary());
  SeededScope scope(seed);
  auto trial = experiment.createTrial({config.values, device, seed});
  auto* lm = dynamic_cast<char_lm::CharLmTrial*>(trial.release());
  if (!lm) throw std::logic_error("not a char-level transformer trial");
  return std::unique_ptr<char_lm::CharLmTrial>(lm);
}

std::unique_ptr<char_lm::CharLmTrial> fopeTrial(const std::string& position, c10::Device device,
                                                uint64_t seed = 7) {
  return charLmTrial(fope::FopeExperiment(), {"position=" + position, "passkey_mix=0"}, device,
                     seed);
}

// Steps 0..n-1, with a forward pass at half the training length after step `evalAfter` (an
// evaluation at another length between steps: it rebuilds the model's tables for that length).
// The losses, read at the end.
std::vector<double> train(char_lm::CharLmTrial& trial, int n, int evalAfter) {
  std::vector<StepLoss> losses;
  for (int step = 0; step < n; ++step) {
    losses.push_back(trial.trainStep(step));
    if (step == evalAfter) {
      torch::NoGradGuard noGrad;
      trial.model()->eval();
      auto tokens = torch::zeros({1, 8}, torch::TensorOptions()
                                             .dtype(torch::kLong)
                                             .device(trial.model()->parameters()[0].device()));
      trial.model()->forward(tokens);
    }
  }
  std::vector<double> out;
  for (const auto& l : losses) out.push_back(l.read());
  return out;
}

// While it lives, steps recorded from now on run eagerly (FOURIERLAB_CUDA_GRAPHS=0).
struct EagerSteps {
  EagerSteps() { setenv("FOURIERLAB_CUDA_GRAPHS", "0", 1); }
  ~EagerSteps() { unsetenv("FOURIERLAB_CUDA_GRAPHS"); }
};

// Empty when the step replays a graph, or cannot in a build without the CUDA runtime's
// headers; else why it does not.
std::string notGraphed(const CapturedLossStep& step) {
  if (step.isGraph() || !CapturedStep::graphsBuiltIn()) return {};
  return step.reason().empty() ? "not a graph" : step.reason();
}

void compareWithin(const std::vector<double>& got, const std::vector<double>& expected,
                   double tolerance) {
  QCOMPARE(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i)
    QVERIFY2(std::abs(got[i] - expected[i]) <= tolerance * std::max(1.0, std::abs(expected[i])),
             qPrintable(QString("step %1: %2 against %3")
                            .arg(i)
                            .arg(got[i], 0, 'g', 10)
                            .arg(expected[i], 0, 'g', 10)));
}

}  // namespace

class TestCapturedLossStep : public QObject {
  Q_OBJECT
 private slots:
  // On the CPU the step runs eagerly on its own buffers: the plain loop's numbers, bit for bit.
  void onTheCpuTheStepIsThePlainLoopBitForBit() {
    const auto data = batches(12, 9, 3);
    Classifier plain(11, torch::kCPU);
    const auto expected = plainLoop(plain, data, torch::kCPU);
    Captured captured(11, torch::kCPU);
    const auto got = captured.train(data);
    QCOMPARE(got, expected);
    QVERIFY(torch::equal(captured.model.parameters(), plain.parameters()));
    QVERIFY(!captured.step.isGraph());
    QCOMPARE(captured.step.reason(), std::string("runs on cpu, not CUDA"));
    QCOMPARE(captured.step.description(), std::string());  // nothing worth a status on the CPU
  }

  // Recorded once, then again for each change of what a recorded graph would read, and never
  // for a batch of the same shape: the losses stay the plain loop's throughout.
  void recordsAgainExactlyWhenTheBatchShapeOrTheModelsTablesMove() {
    auto data = batches(3, 9, 5);
    for (auto& b : batches(2, 4, 6)) data.push_back(b);  // a smaller last batch of an epoch
    for (auto& b : batches(2, 9, 7)) data.push_back(b);
    Classifier plain(13, torch::kCPU);
    const auto expected = plainLoop(plain, data, torch::kCPU);

    Captured captured(13, torch::kCPU);
    QCOMPARE(captured.step.recordings(), 0);
    QCOMPARE(captured.step.reason(), std::string("no step taken yet"));
    std::vector<double> got;
    std::vector<int> recordings;
    for (size_t i = 0; i < data.size(); ++i) {
      if (i == 2) ++captured.generation;       // a table rebuilt between steps 1 and 2
      if (i == 6) captured.step.invalidate();  // a checkpoint loaded before step 6
      got.push_back(captured.step.run({data[i].inputs, data[i].targets}).item<double>());
      captured.model.adam->step();
      recordings.push_back(captured.step.recordings());
    }
    QCOMPARE(got, expected);
    // Step 0 records; 2: a table moved; 3: rows 9 -> 4; 5: rows 4 -> 9; 6: invalidated.
    QCOMPARE(recordings, (std::vector<int>{1, 1, 2, 3, 3, 4, 5}));
  }

  // The model's constant tables count their rebuilds: an evaluation at another length moves
  // the count, a training step at the same length does not, and a FoPE trial's step is then
  // recorded again.
  void aFopeTrialRecordsItsStepAgainAfterAnEvaluationAtAnotherLength() {
    auto trial = fopeTrial("fope", torch::kCPU);
    trial->trainStep(0);
    const auto generation = trial->model()->position()->cacheGeneration();
    trial->trainStep(1);
    QCOMPARE(trial->model()->position()->cacheGeneration(), generation);
    QCOMPARE(trial->lossStep().recordings(), 1);
    train(*trial, 2, /*evalAfter=*/0);
    QVERIFY(trial->model()->position()->cacheGeneration() > generation);
    QCOMPARE(trial->lossStep().recordings(), 2);
  }

  // A replayed graph draws new dropout masks at every step (the generator's offset advances per
  // replay): the same batch and parameters, step after step, give different losses, for
  // LibTorch's dropout and for the fused attention's (bf16, as training runs it).
  void onAGpuEachReplayDrawsNewDropoutMasks() {
    if (!torch::cuda::is_available()) QSKIP("no CUDA device here");
    const c10::Device gpu(torch::kCUDA, 0);
    const auto on = torch::TensorOptions().device(gpu);
    auto weight = torch::randn({64, 64}, on).requires_grad_(true);
    auto query = torch::randn({2, 2, 64, 32}, on.dtype(torch::kBFloat16)).requires_grad_(true);
    auto zeroGrad = [&] {
      for (auto* p : {&weight, &query})
        if (p->grad().defined()) p->mutable_grad().zero_();
    };
    const std::vector<torch::Tensor> batch{torch::randn({8, 64}), torch::randn({2, 2, 64, 32})};
    std::vector<std::pair<std::string, CapturedLossStep::LossOf>> cases{
        {"dropout",
         [&](const std::vector<torch::Tensor>& b) {
           return torch::dropout(torch::matmul(b[0], weight), 0.5, /*train=*/true).pow(2).sum();
         }},
        {"fused attention", [&](const std::vector<torch::Tensor>& b) {
           auto kv = b[1].to(torch::kBFloat16);
           auto y = at::scaled_dot_product_attention(query, kv, kv, {}, 0.5, /*is_causal=*/true);
           return y.to(torch::kFloat).pow(2).sum();
         }}};
    for (const auto& [name, lossOf] : cases) {
      CapturedLossStep step(gpu, lossOf, zeroGrad, [] { return uint64_t(0); });
      std::vector<double> losses;
      for (int i = 0; i < 4; ++i) losses.push_back(step.run(batch).item<double>());
      QVERIFY2(notGraphed(step).empty(), notGraphed(step).c_str());
      for (size_t i = 1; i < losses.size(); ++i)
        QVERIFY2(losses[i] != losses[i - 1],
                 qPrintable(QString("%1: steps %2 and %3 drew the same mask")
                                .arg(name.c_str())
                                .arg(i - 1)
                                .arg(i)));
    }
  }

  // On a GPU, the replayed graph gives the eager step's numbers: a classifier's (float32).
  void onAGpuAClassifiersGraphIsItsPlainLoop() {
    if (!torch::cuda::is_available()) QSKIP("no CUDA device here");
    const c10::Device gpu(torch::kCUDA, 0);
    const auto data = batches(12, 9, 3);
    Classifier plain(11, gpu);
    const auto expected = plainLoop(plain, data, gpu);
    Captured captured(11, gpu);
    const auto got = captured.train(data);
    QVERIFY2(notGraphed(captured.step).empty(), notGraphed(captured.step).c_str());
    QCOMPARE(captured.step.description(), captured.step.isGraph()
                                              ? std::string("each step replayed as one CUDA graph")
                                              : "eager steps (" + captured.step.reason() + ")");
    compareWithin(got, expected, 1e-5);
  }

  // And a transformer's (bf16 autocast, fused attention; within 2e-3: the same kernels in the
  // same order, up to the fused attention's non-deterministic backward), for each position
  // encoding and each FourierQK filter, across an evaluation at another length, which records
  // the graph again.
  void onAGpuGraphedTransformersFollowTheirEagerSteps_data() {
    QTest::addColumn<QString>("experiment");
    QTest::addColumn<QString>("setting");
    for (const char* position : {"fope", "rope", "alibi", "learned"})
      QTest::newRow(position) << "fope" << QString("position=") + position;
    for (const char* variant : {"none", "fourier", "gaussian"})
      QTest::newRow(variant) << "fourier-qk" << QString("variant=") + variant;
  }
  void onAGpuGraphedTransformersFollowTheirEagerSteps() {
    if (!torch::cuda::is_available()) QSKIP("no CUDA device here");
    QFETCH(QString, experiment);
    QFETCH(QString, setting);
    const c10::Device gpu(torch::kCUDA, 0);
    auto make = [&] {
      std::vector<std::string> sets{setting.toStdString()};
      if (experiment == "fope") {
        sets.push_back("passkey_mix=0");
        return charLmTrial(fope::FopeExperiment(), sets, gpu);
      }
      return charLmTrial(fourier_qk::FourierQkExperiment(), sets, gpu);
    };
    auto graphed = make();
    const auto graphedLosses = train(*graphed, 12, /*evalAfter=*/5);
    QVERIFY2(notGraphed(graphed->lossStep()).empty(), notGraphed(graphed->lossStep()).c_str());
    std::vector<double> eagerLosses;
    {
      EagerSteps eagerSteps;
      auto eager = make();
      eagerLosses = train(*eager, 12, /*evalAfter=*/5);
      QVERIFY(!eager->lossStep().isGraph());
    }
    compareWithin(graphedLosses, eagerLosses, 2e-3);
  }

  // The addition task's steps (pairs drawn by index from the training split on the device).
  void onAGpuTheAdditionTasksGraphFollowsItsEagerSteps() {
    if (!torch::cuda::is_available()) QSKIP("no CUDA device here");
    const c10::Device gpu(torch::kCUDA, 0);
    addition::AdditionExperiment experiment;
    auto config =
        buildConfig(experiment, "",
                    {"operands=20", "d_model=32", "heads=2", "layers=1", "steps=20", "dropout=0"});
    QVERIFY2(config.ok(), config.summary().c_str());
    auto losses = [&] {
      SeededScope seeded(3);
      addition::AdditionTrial trial(addition::AdditionSettings::fromConfig(config.values), gpu, 3);
      std::vector<StepLoss> steps;
      for (int step = 0; step < 6; ++step) steps.push_back(trial.trainStep(step));
      std::vector<double> out;
      for (const auto& l : steps) out.push_back(l.read());
      return std::make_pair(out, notGraphed(trial.lossStep()));
    };
    const auto [graphed, why] = losses();
    QVERIFY2(why.empty(), why.c_str());
    std::vector<double> eager;
    {
      EagerSteps eagerSteps;
      eager = losses().first;
    }
    compareWithin(graphed, eager, 2e-3);
  }

  // Runs side by side on one GPU, each recording its step again after an evaluation while the
  // other replays: each gets its own eager numbers (a capture that took in the other's work, or
  // a replay that drew from the generator during a capture, would not).
  void onAGpuRunsSideBySideEachKeepTheirOwnSteps() {
    if (!torch::cuda::is_available()) QSKIP("no CUDA device here");
    const c10::Device gpu(torch::kCUDA, 0);
    const std::vector<std::string> positions{"rope", "fope", "alibi"};
    std::vector<std::vector<double>> eager;
    {
      EagerSteps eagerSteps;
      for (size_t i = 0; i < positions.size(); ++i) {
        auto trial = fopeTrial(positions[i], gpu, 20 + i);
        eager.push_back(train(*trial, 16, /*evalAfter=*/4 + 3 * static_cast<int>(i)));
      }
    }
    std::vector<std::vector<double>> graphed(positions.size());
    std::vector<std::string> errors(positions.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < positions.size(); ++i)
      threads.emplace_back([&, i] {
        try {
          auto trial = fopeTrial(positions[i], gpu, 20 + i);
          graphed[i] = train(*trial, 16, /*evalAfter=*/4 + 3 * static_cast<int>(i));
          errors[i] = notGraphed(trial->lossStep());
        } catch (const std::exception& e) {
          errors[i] = e.what();
        }
      });
    for (auto& t : threads) t.join();
    for (size_t i = 0; i < positions.size(); ++i) {
      QVERIFY2(errors[i].empty(), (positions[i] + ": " + errors[i]).c_str());
      compareWithin(graphed[i], eager[i], 2e-3);
    }
  }
};

QTEST_APPLESS_MAIN(TestCapturedLossStep)
#include "test_captured_loss_step.moc"
