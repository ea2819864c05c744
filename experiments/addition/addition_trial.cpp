#include "experiments/addition/addition_trial.h"

#include <sstream>

#include <torch/torch.h>

#include "core/analysis/number_spectrum.h"
#include "core/engine/seeding.h"
#include "core/engine/tensor_values.h"
#include "core/optim/decay_selection.h"
#include "core/optim/flat_adam_checkpoint.h"
#include "experiments/addition/number_embedding_init.h"

namespace fl::addition {

AdditionTrial::AdditionTrial(const AdditionSettings& s, c10::Device device, uint64_t seed)
    : m_settings(s), m_device(device), m_batchRng(makeStream(seed, "batches")) {
  auto splitRng = makeStream(seed, "split");
  m_split = splitPairs(s.task, s.testFraction, splitRng);
  nn::GptOptions o;
  o.vocabSize = s.task.vocabularySize();
  s.model.applyTo(o);
  o.dropoutSeed = makeStream(seed, "dropout")();
  o.position.kind = nn::PositionKind::Learned;
  o.position.maxLength = AdditionTask::kSequenceLength;
  m_model = nn::Gpt(o);  // the Runner seeded the global generator
  if (s.embeddingInit == "fourier")
    writeFourierFeatures(m_model->tokenEmbedding()->weight, s.task.numberTokens(), s.fourierPeriods,
                         s.fourierAmplitude);
  m_model->to(device);

  // Frozen number embeddings are restored after each step, decay or not.
  auto selection = optim::decayWeightMatricesOnly(m_model->named_parameters());
  m_optimizer = std::make_unique<optim::FlatAdam>(
      selection.parameters, s.training.adamOptions(/*beta2=*/0.98), selection.decay);
  if (s.embeddingFrozen) m_frozenRows = numberEmbedding().detach().clone();
  m_split.trainInputs = m_split.trainInputs.to(device);
  m_split.trainAnswers = m_split.trainAnswers.to(device);
  m_split.testInputs = m_split.testInputs.to(device);
  m_split.testAnswers = m_split.testAnswers.to(device);
  m_schedule = s.training.schedule();
}

int64_t additionStepsPerEpoch(const AdditionSettings& s) {
  const int64_t pairs = s.task.operands * s.task.operands;
  return std::max<int64_t>(1,
                           (pairs - testPairCount(s.task, s.testFraction)) / s.training.batchSize);
}

TrialPlan AdditionTrial::plan() const {
  TrialPlan p;
  const auto& t = m_settings.training;
  p.totalSteps = t.steps;
  p.stepsPerEpoch = additionStepsPerEpoch(m_settings);
  p.logEvery = std::max<int64_t>(1, std::min<int64_t>(20, t.evalEvery));
  p.evalEvery = t.evalEvery;
  return p;
}

torch::Tensor AdditionTrial::numberEmbedding() const {
  return m_model->tokenEmbedding()->weight.narrow(0, 0, m_settings.task.numberTokens());
}

torch::Tensor AdditionTrial::answerLogits(const torch::Tensor& inputs,
                                          const nn::SublayerHook& hook) {
  return m_model->forward(inputs, hook).select(1, AdditionTask::kSequenceLength - 1);  // after '='
}

StepLoss AdditionTrial::trainStep(int64_t stepIndex) {
  m_model->train();
  const int64_t n = m_split.trainInputs.size(0);
  std::uniform_int_distribution<int64_t> pick(0, n - 1);
  std::vector<int64_t> rows(static_cast<size_t>(m_settings.training.batchSize));
  for (auto& r : rows) r = pick(m_batchRng);
  auto index = torch::tensor(rows, torch::kLong).to(m_device);
  auto inputs = m_split.trainInputs.index_select(0, index);
  auto answers = m_split.trainAnswers.index_select(0, index);
  m_optimizer->setLr(m_schedule.at(stepIndex));
  m_optimizer->zeroGrad();
  auto loss = torch::nn::functional::cross_entropy(answerLogits(inputs, nullptr), answers);
  loss.backward();
  if (m_settings.training.gradClip > 0) m_optimizer->clipGradNorm(m_settings.training.gradClip);
  m_optimizer->step();
  if (m_frozenRows.defined()) {
    torch::NoGradGuard noGrad;
    numberEmbedding().copy_(m_frozenRows);
  }
  return loss;
}

double AdditionTrial::accuracy(bool test, const Ablation* ablation) {
  torch::NoGradGuard noGrad;
  m_model->eval();
  const auto& inputs = test ? m_split.testInputs : m_split.trainInputs;
  const auto& answers = test ? m_split.testAnswers : m_split.trainAnswers;
  nn::SublayerHook hook;
  if (ablation) {
    auto unembedding = m_model->unembedding().narrow(0, 0, m_settings.task.numberTokens());
    hook = makeAblationHook(
        *ablation, bandRemovalMatrix(unembedding, ablation->removeLow, m_settings.cutoffPeriod));
  }
  int64_t correct = 0;
  const int64_t chunk = 8192;
  for (int64_t i = 0; i < inputs.size(0); i += chunk) {
    const int64_t n = std::min(chunk, inputs.size(0) - i);
    auto predicted = answerLogits(inputs.narrow(0, i, n), hook).argmax(-1);
    correct += predicted.eq(answers.narrow(0, i, n)).sum().item<int64_t>();
  }
  return static_cast<double>(correct) / static_cast<double>(inputs.size(0));
}

void AdditionTrial::evaluate(int64_t, bool, EvalReport& out) {
  const double testAcc = accuracy(true);
  out.metric("train/acc", accuracy(false));
  out.metric("test/acc", testAcc);

  // The number-embedding spectrum over the number axis.
  const int64_t numbers = m_settings.task.numberTokens();
  auto magnitudes = analysis::numberAxisMagnitudes(numberEmbedding().detach().to(torch::kCPU));
  const auto peaks = analysis::topPeriods(magnitudes, numbers, m_settings.topPeriods);
  for (size_t i = 0; i < peaks.size(); ++i)
    out.metric("spectrum/top" + std::to_string(i + 1) + "_period", peaks[i].period);
  Snapshot spectrum;
  spectrum.name = "spectrum/embedding";
  spectrum.shape = {magnitudes.size(0)};
  spectrum.data = toFloatVector(magnitudes);
  std::vector<float> bins;
  for (int64_t k = 0; k < magnitudes.size(0); ++k) bins.push_back(static_cast<float>(k));
  spectrum.axes = {{"frequency k (period " + std::to_string(numbers) + "/k numbers)", "", bins}};
  spectrum.valueLabel = "|DFT| of the number embeddings";
  nlohmann::json top = nlohmann::json::array();
  for (const auto& p : peaks) top.push_back({{"k", p.bin}, {"period", p.period}});
  spectrum.meta["top"] = top;
  out.snapshot(std::move(spectrum));

  // The logit-lens ablations.
  std::vector<float> accuracies{static_cast<float>(testAcc)};
  nlohmann::json labels = nlohmann::json::array({"full"});
  for (const auto& ablation : paperAblations()) {
    const double acc = accuracy(true, &ablation);
    out.metric("test/acc_" + ablation.key, acc);
    accuracies.push_back(static_cast<float>(acc));
    labels.push_back(ablation.label);
  }
  Snapshot bars;
  bars.name = "ablation/acc";
  bars.shape = {static_cast<int64_t>(accuracies.size())};
  bars.data = accuracies;
  std::vector<float> index;
  for (size_t i = 0; i < accuracies.size(); ++i) index.push_back(static_cast<float>(i));
  bars.axes = {{"ablation", "", index}};
  bars.valueLabel = "test accuracy";
  bars.meta["labels"] = labels;
  bars.meta["cutoff_period"] = m_settings.cutoffPeriod;
  bars.keep = SnapshotKeep::LatestStep;  // its panel shows the latest
  out.snapshot(std::move(bars));
}

void AdditionTrial::saveCheckpoint(const std::string& path) const {
  torch::serialize::OutputArchive archive;
  optim::writeOptimizerState(archive, *m_optimizer);
  optim::writeStreamState(archive, "batches.rng", m_batchRng);
  optim::writeGeneratorState(archive, "dropout.rng", m_model->dropoutGenerator());
  optim::saveArchive(archive, path);
}

void AdditionTrial::loadCheckpoint(const std::string& path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path, m_device);
  optim::readOptimizerState(archive, *m_optimizer);
  optim::readStreamState(archive, "batches.rng", m_batchRng);
  auto dropout = m_model->dropoutGenerator();
  optim::readGeneratorState(archive, "dropout.rng", dropout);
}

}  // namespace fl::addition
