#include "experiments/addition/addition_trial.h"

#include <sstream>

#include <torch/torch.h>

#include "core/analysis/number_spectrum.h"
#include "core/engine/captured_loss_step.h"
#include "core/engine/seeding.h"
#include "core/engine/tensor_values.h"
#include "core/optim/checkpoint_file.h"
#include "core/optim/decay_selection.h"
#include "core/optim/flat_adam_checkpoint.h"
#include "experiments/addition/error_type_verdict.h"
#include "experiments/addition/lens_snapshots.h"
#include "experiments/addition/number_embedding_init.h"

namespace fl::addition {

namespace {

// A test-set histogram of prediction - answer over the wrong answers, as shares of them, so
// that ablations with many and few mistakes draw side by side.
Snapshot errorHistogram(const std::string& key, const ErrorTypes& e) {
  Snapshot s;
  s.name = "errors/" + key;
  s.shape = {static_cast<int64_t>(e.counts.size())};
  std::vector<float> errors;
  for (size_t bin = 0; bin < e.counts.size(); ++bin) {
    s.data.push_back(e.wrong > 0 ? static_cast<float>(e.counts[bin]) / e.wrong : 0.0f);
    errors.push_back(static_cast<float>(e.errorAt(bin)));
  }
  s.axes = {{"prediction - answer (+-" + std::to_string(e.window + 1) + ": beyond +-" +
                 std::to_string(e.window) + ")",
             "", errors}};
  s.valueLabel = "share of the wrong answers";
  s.meta["wrong"] = e.wrong;
  s.meta["not_a_number"] = e.notANumber;
  s.keep = SnapshotKeep::LatestStep;  // its panel shows the latest
  return s;
}

// The share of predictions equal to the answers. A sync point: the count comes back to the CPU.
double shareCorrect(const torch::Tensor& predicted, const torch::Tensor& answers) {
  const auto correct = predicted.eq(answers).sum().item<int64_t>();
  return static_cast<double>(correct) / static_cast<double>(answers.size(0));
}

}  // namespace

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
  m_lossStep = std::make_unique<CapturedLossStep>(
      device,
      [this](const std::vector<torch::Tensor>& batch) {
        const auto& rows = batch[0];
        return torch::nn::functional::cross_entropy(
            answerLogits(m_split.trainInputs.index_select(0, rows), nullptr),
            m_split.trainAnswers.index_select(0, rows));
      },
      [this] { m_optimizer->zeroGrad(); },
      [this] { return m_model->position()->cacheGeneration(); });
}

AdditionTrial::~AdditionTrial() = default;

std::string AdditionTrial::stepDescription() const { return m_lossStep->description(); }

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
  m_optimizer->setLr(m_schedule.at(stepIndex));
  // Zeroed gradients, the loss of the pairs drawn, backward (captured_loss_step.h).
  auto loss = m_lossStep->run({torch::tensor(rows, torch::kLong)});
  if (m_settings.training.gradClip > 0) m_optimizer->clipGradNorm(m_settings.training.gradClip);
  m_optimizer->step();
  if (m_frozenRows.defined()) {
    torch::NoGradGuard noGrad;
    numberEmbedding().copy_(m_frozenRows);
  }
  return loss;
}

torch::Tensor AdditionTrial::predictions(bool test, const Ablation* ablation) {
  return predictionsWith(
      test, ablation ? makeAblationHook(*ablation, removalMatrix(*ablation)) : nullptr);
}

torch::Tensor AdditionTrial::predictionsWith(bool test, const nn::SublayerHook& hook,
                                             const std::function<void()>& afterBatch) {
  torch::NoGradGuard noGrad;
  m_model->eval();
  const auto& inputs = test ? m_split.testInputs : m_split.trainInputs;
  std::vector<torch::Tensor> parts;
  const int64_t chunk = 8192;
  for (int64_t i = 0; i < inputs.size(0); i += chunk) {
    const int64_t n = std::min(chunk, inputs.size(0) - i);
    parts.push_back(answerLogits(inputs.narrow(0, i, n), hook).argmax(-1));
    if (afterBatch) afterBatch();
  }
  return torch::cat(parts);
}

torch::Tensor AdditionTrial::numberUnembedding() const {
  return m_model->unembedding().narrow(0, 0, m_settings.task.numberTokens());
}

torch::Tensor AdditionTrial::removalMatrix(const Ablation& ablation) const {
  return bandRemovalMatrix(numberUnembedding(), ablation.removeLow, m_settings.cutoffPeriod);
}

double AdditionTrial::accuracy(bool test, const Ablation* ablation) {
  return shareCorrect(predictions(test, ablation),
                      test ? m_split.testAnswers : m_split.trainAnswers);
}

void AdditionTrial::evaluate(int64_t, bool final, EvalReport& out) {
  // The test predictions and, in the same forward passes, the logit-lens spectra.
  LensSpectraRecorder lens(numberUnembedding(), m_settings.model.layers, m_settings.cutoffPeriod);
  auto predicted = predictionsWith(true, lens.hook(), [&lens] { lens.finishBatch(); });
  reportLensSpectra(lens.result(), out);
  const double testAcc = shareCorrect(predicted, m_split.testAnswers);
  out.metric("train/acc", accuracy(false));
  out.metric("test/acc", testAcc);

  // The number-embedding spectrum over the number axis.
  auto magnitudes = analysis::numberAxisMagnitudes(numberEmbedding().detach().to(torch::kCPU));
  const auto peaks =
      analysis::topPeriods(magnitudes, m_settings.task.numberTokens(), m_settings.topPeriods);
  for (size_t i = 0; i < peaks.size(); ++i)
    out.metric("spectrum/top" + std::to_string(i + 1) + "_period", peaks[i].period);
  Snapshot spectrum;
  spectrum.name = "spectrum/embedding";
  spectrum.shape = {magnitudes.size(0)};
  spectrum.data = toFloatVector(magnitudes);
  std::vector<float> bins;
  for (int64_t k = 0; k < magnitudes.size(0); ++k) bins.push_back(static_cast<float>(k));
  spectrum.axes = {
      {"frequency k (period " + std::to_string(m_settings.task.numberTokens()) + "/k numbers)", "",
       bins}};
  spectrum.valueLabel = "|DFT| of the number embeddings";
  nlohmann::json top = nlohmann::json::array();
  for (const auto& p : peaks) top.push_back({{"k", p.bin}, {"period", p.period}});
  spectrum.meta["top"] = top;
  out.snapshot(std::move(spectrum));

  // The logit-lens ablations, and the kinds of mistakes the model makes with and without each.
  const int64_t numbers = m_settings.task.numberTokens();
  std::vector<AblationErrors> outcomes{
      {"full", countErrorTypes(predicted, m_split.testAnswers, numbers), 0}};
  std::vector<float> accuracies{static_cast<float>(testAcc)};
  nlohmann::json labels = nlohmann::json::array({"full"});
  for (const auto& ablation : paperAblations()) {
    auto removal = removalMatrix(ablation);
    auto ablated = predictionsWith(true, makeAblationHook(ablation, removal));
    const double acc = shareCorrect(ablated, m_split.testAnswers);
    out.metric("test/acc_" + ablation.key, acc);
    accuracies.push_back(static_cast<float>(acc));
    labels.push_back(ablation.label);
    // R is a projector: its trace is the number of directions it removes.
    const auto removed = std::lround(removal.trace().item<double>());
    outcomes.push_back(
        {ablation.key, countErrorTypes(ablated, m_split.testAnswers, numbers), removed});
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

  for (const auto& outcome : outcomes) {
    const auto& e = outcome.errors;
    if (e.wrong > 0) {
      out.metric("errors/share_mult10_" + outcome.key, e.shareMultipleOf10);
      out.metric("errors/share_small_" + outcome.key, e.shareSmall);
      out.metric("errors/share_within2_" + outcome.key, e.shareWithin2);
    }
    out.snapshot(errorHistogram(outcome.key, e));
  }
  if (final) {
    ErrorVerdictSetting setting;
    setting.modular = m_settings.task.modular;
    setting.numbers = numbers;
    setting.layers = m_settings.model.layers;
    setting.dModel = m_settings.model.dModel;
    setting.fromScratch = m_settings.embeddingInit == "random";
    setting.testAccuracy = testAcc;
    if (auto verdict = errorTypeVerdict(setting, outcomes)) out.snapshot(std::move(*verdict));
  }
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
  optim::loadArchive(archive, path, m_device);
  optim::readOptimizerState(archive, *m_optimizer);
  m_lossStep->invalidate();
  optim::readStreamState(archive, "batches.rng", m_batchRng);
  auto dropout = m_model->dropoutGenerator();
  optim::readGeneratorState(archive, "dropout.rng", dropout);
}

}  // namespace fl::addition
