#include "experiments/char_lm/char_lm_trial.h"

#include <sstream>

#include <torch/torch.h>

#include "core/engine/seeding.h"
#include "core/optim/decay_selection.h"
#include "core/optim/flat_adam_checkpoint.h"

namespace fl::char_lm {

namespace {
lm::CharLmDataOptions dataOptions(const CharLmSettings& s, const std::u32string& extra) {
  lm::CharLmDataOptions o;
  o.corpusPath = s.corpus;
  o.syntheticCharacters = s.syntheticCharacters;
  o.extraCharacters = extra;
  return o;
}
}  // namespace

CharLmTrial::CharLmTrial(const CharLmSettings& settings, nn::GptOptions model, c10::Device device,
                         uint64_t seed, const std::u32string& extraCharacters)
    : m_settings(settings),
      m_device(device),
      m_data(dataOptions(settings, extraCharacters), seed),
      m_batchRng(makeStream(seed, "batches")) {
  model.vocabSize = m_data.vocabulary().size();
  settings.model.applyTo(model);
  model.dropoutSeed = makeStream(seed, "dropout")();
  model.position.trainLength = settings.trainLength;
  m_model = nn::Gpt(model);  // the Runner seeded the global generator (SeededScope)
  m_model->to(device);

  auto selection = optim::decayWeightMatricesOnly(m_model->named_parameters());
  m_optimizer = std::make_unique<optim::FlatAdam>(
      selection.parameters, settings.training.adamOptions(/*beta2=*/0.95), selection.decay);
  m_schedule = settings.training.schedule();
}

TrialPlan CharLmTrial::plan() const {
  TrialPlan p;
  const auto& t = m_settings.training;
  p.totalSteps = t.steps;
  p.stepsPerEpoch = t.steps;
  p.logEvery = std::max<int64_t>(1, std::min<int64_t>(10, t.evalEvery));
  p.evalEvery = t.evalEvery;
  return p;
}

std::pair<torch::Tensor, torch::Tensor> CharLmTrial::nextBatch(std::mt19937_64& rng) {
  return m_data.sampleTrainBatch(m_settings.training.batchSize, m_settings.trainLength, rng);
}

StepLoss CharLmTrial::trainStep(int64_t stepIndex) {
  m_model->train();
  auto [inputs, targets] = nextBatch(m_batchRng);
  inputs = inputs.to(m_device);
  targets = targets.to(m_device);
  m_optimizer->setLr(m_schedule.at(stepIndex));
  m_optimizer->zeroGrad();
  auto logits = m_model->forward(inputs);
  auto loss = torch::nn::functional::cross_entropy(logits.view({-1, logits.size(-1)}),
                                                   targets.reshape({-1}));
  loss.backward();
  if (m_settings.training.gradClip > 0) m_optimizer->clipGradNorm(m_settings.training.gradClip);
  m_optimizer->step();
  return loss;
}

int64_t CharLmTrial::evaluationChunk(int64_t length) const {
  // ~64 MiB of float scores per chunk: heads x T x T x 4 bytes per window.
  const double perWindow = 4.0 * static_cast<double>(m_settings.model.heads) *
                           static_cast<double>(length) * static_cast<double>(length);
  return std::max<int64_t>(1, static_cast<int64_t>((64.0 * 1024 * 1024) / perWindow));
}

torch::Tensor CharLmTrial::logProbabilities(const torch::Tensor& inputs) {
  torch::NoGradGuard noGrad;
  m_model->eval();
  const int64_t chunk = evaluationChunk(inputs.size(1));
  std::vector<torch::Tensor> parts;
  for (int64_t i = 0; i < inputs.size(0); i += chunk) {
    auto x = inputs.narrow(0, i, std::min(chunk, inputs.size(0) - i)).to(m_device);
    parts.push_back(torch::log_softmax(m_model->forward(x), -1).to(torch::kCPU));
  }
  return torch::cat(parts, 0);
}

double CharLmTrial::meanLoss(const torch::Tensor& inputs, const torch::Tensor& targets) {
  torch::NoGradGuard noGrad;
  m_model->eval();
  const int64_t chunk = evaluationChunk(inputs.size(1));
  double total = 0;
  for (int64_t i = 0; i < inputs.size(0); i += chunk) {
    const int64_t n = std::min(chunk, inputs.size(0) - i);
    auto x = inputs.narrow(0, i, n).to(m_device);
    auto y = targets.narrow(0, i, n).to(m_device);
    auto logits = m_model->forward(x);
    auto loss = torch::nn::functional::cross_entropy(
        logits.view({-1, logits.size(-1)}), y.reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
    total += loss.item<double>();
  }
  return total / static_cast<double>(inputs.numel());
}

void CharLmTrial::saveCheckpoint(const std::string& path) const {
  torch::serialize::OutputArchive archive;
  optim::writeOptimizerState(archive, *m_optimizer);
  for (const auto& b : m_model->named_buffers()) archive.write("buffer." + b.key(), b.value());
  optim::writeStreamState(archive, "batches.rng", m_batchRng);
  optim::writeGeneratorState(archive, "dropout.rng", m_model->dropoutGenerator());
  optim::saveArchive(archive, path);
}

void CharLmTrial::loadCheckpoint(const std::string& path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path, m_device);
  optim::readOptimizerState(archive, *m_optimizer);
  torch::NoGradGuard noGrad;
  for (auto& b : m_model->named_buffers()) {
    torch::Tensor saved;
    if (archive.try_read("buffer." + b.key(), saved)) b.value().copy_(saved);
  }
  m_model->position()->invalidateCache();
  optim::readStreamState(archive, "batches.rng", m_batchRng);
  auto dropout = m_model->dropoutGenerator();
  optim::readGeneratorState(archive, "dropout.rng", dropout);
}

}  // namespace fl::char_lm
