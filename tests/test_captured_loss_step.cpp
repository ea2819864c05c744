// Tests core/engine/captured_loss_step: a training step's forward and backward over the step's
// own input buffers gives the numbers of the plain loop (bit for bit where it runs eagerly,
// within float tolerance where a GPU replays a graph), and the step is recorded again exactly
// when what a graph reads may have moved: the batch's shape, the model's constant tables, a
// loaded checkpoint. On a GPU, a FoPE and an addition trial's graphed steps follow their eager
// ones.
#include <QtTest>

#include <cstdlib>

#include <torch/cuda.h>
#include <torch/torch.h>

#include "core/engine/captured_loss_step.h"
#include "core/engine/config.h"
#include "core/engine/registry.h"
#include "core/engine/seeding.h"
#include "core/optim/flat_adam.h"
#include "experiments/addition/addition_experiment.h"
#include "experiments/addition/addition_settings.h"
#include "experiments/addition/addition_trial.h"
#include "experiments/fope/fope_experiment.h"
#include "experiments/fope/fope_trial.h"

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

nlohmann::json fopeConfig(const std::string& device) {
  fope::FopeExperiment experiment;
  auto c = buildConfig(
      experiment, "",
      {"d_model=32", "heads=2", "layers=2", "train_len=16", "batch_size=8", "synthetic_chars=20000",
       "passkey_mix=0", "dropout=0", "steps=40", "warmup=2", "lr=0.003", "device=" + device});
  if (!c.ok()) throw std::invalid_argument(c.summary());
  return c.values;
}

std::unique_ptr<fope::FopeTrial> fopeTrial(const nlohmann::json& config, c10::Device device) {
  SeededScope scope(7);
  return std::make_unique<fope::FopeTrial>(fope::FopeSettings::fromConfig(config), device, 7);
}

// Steps 0..n-1, with a forward pass at twice the training length after step `evalAfter` (what
// an evaluation of length generalisation does between steps). The losses, read at the end.
std::vector<double> trainFope(fope::FopeTrial& trial, int n, int evalAfter) {
  std::vector<StepLoss> losses;
  for (int step = 0; step < n; ++step) {
    losses.push_back(trial.trainStep(step));
    if (step == evalAfter) {
      torch::NoGradGuard noGrad;
      trial.model()->eval();
      auto tokens = torch::zeros({1, 32}, torch::TensorOptions()
                                              .dtype(torch::kLong)
                                              .device(trial.model()->parameters()[0].device()));
      trial.model()->forward(tokens);
    }
  }
  std::vector<double> out;
  for (const auto& l : losses) out.push_back(l.read());
  return out;
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
    auto trial = fopeTrial(fopeConfig("cpu"), torch::kCPU);
    trial->trainStep(0);
    const auto generation = trial->model()->position()->cacheGeneration();
    trial->trainStep(1);
    QCOMPARE(trial->model()->position()->cacheGeneration(), generation);
    QCOMPARE(trial->lossStep().recordings(), 1);
    trainFope(*trial, 2, /*evalAfter=*/0);
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
      QVERIFY2(step.isGraph() || step.reason().rfind("built without", 0) == 0,
               step.reason().c_str());
      for (size_t i = 1; i < losses.size(); ++i)
        QVERIFY2(losses[i] != losses[i - 1],
                 qPrintable(QString("%1: steps %2 and %3 drew the same mask")
                                .arg(name.c_str())
                                .arg(i - 1)
                                .arg(i)));
    }
  }

  // On a GPU, the replayed graph gives the eager step's numbers: the classifier's, a FoPE
  // transformer's (bf16 autocast, fused attention, FoPE's factors) across an evaluation at
  // another length, which records the graph again, and the addition task's.
  void onAGpuTheGraphFollowsTheEagerSteps() {
    if (!torch::cuda::is_available()) QSKIP("no CUDA device here");
    const c10::Device gpu(torch::kCUDA, 0);
    const auto data = batches(12, 9, 3);
    Classifier plain(11, gpu);
    const auto expected = plainLoop(plain, data, gpu);
    Captured captured(11, gpu);
    const auto got = captured.train(data);
    QVERIFY2(captured.step.isGraph() || captured.step.reason().rfind("built without", 0) == 0,
             captured.step.reason().c_str());
    compareWithin(got, expected, 1e-5);

    const auto config = fopeConfig("cuda");
    auto graphed = fopeTrial(config, gpu);
    const auto graphedLosses = trainFope(*graphed, 12, /*evalAfter=*/5);
    QVERIFY2(graphed->lossStep().isGraph() ||
                 graphed->lossStep().reason().rfind("built without", 0) == 0,
             graphed->lossStep().reason().c_str());
    QCOMPARE(graphed->lossStep().recordings(), 2);
    setenv("FOURIERLAB_CUDA_GRAPHS", "0", 1);
    auto eager = fopeTrial(config, gpu);
    const auto eagerLosses = trainFope(*eager, 12, /*evalAfter=*/5);
    unsetenv("FOURIERLAB_CUDA_GRAPHS");
    QVERIFY(!eager->lossStep().isGraph());
    // bf16 autocast: the same kernels in the same order, up to the fused attention's
    // non-deterministic backward.
    compareWithin(graphedLosses, eagerLosses, 2e-3);

    // The addition task's steps (pairs drawn by index from the training split on the device).
    addition::AdditionExperiment additionExperiment;
    auto additionConfig =
        buildConfig(additionExperiment, "",
                    {"operands=20", "d_model=32", "heads=2", "layers=1", "steps=20", "dropout=0"});
    QVERIFY2(additionConfig.ok(), additionConfig.summary().c_str());
    auto additionLosses = [&] {
      SeededScope seeded(3);
      addition::AdditionTrial trial(addition::AdditionSettings::fromConfig(additionConfig.values),
                                    gpu, 3);
      std::vector<StepLoss> losses;
      for (int step = 0; step < 6; ++step) losses.push_back(trial.trainStep(step));
      std::vector<double> out;
      for (const auto& l : losses) out.push_back(l.read());
      return std::make_pair(out, trial.lossStep().isGraph() ? "" : trial.lossStep().reason());
    };
    const auto [graphedAddition, eagerWhy] = additionLosses();
    QVERIFY2(eagerWhy.empty() || eagerWhy.rfind("built without", 0) == 0, eagerWhy.c_str());
    setenv("FOURIERLAB_CUDA_GRAPHS", "0", 1);
    const auto eagerAddition = additionLosses().first;
    unsetenv("FOURIERLAB_CUDA_GRAPHS");
    compareWithin(graphedAddition, eagerAddition, 2e-3);
  }
};

QTEST_APPLESS_MAIN(TestCapturedLossStep)
#include "test_captured_loss_step.moc"
