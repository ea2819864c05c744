#include "experiments/char_lm/char_lm_trial.h"

#include <cstdio>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <torch/torch.h>

#include "core/engine/captured_loss_step.h"
#include "core/engine/resume_refused.h"
#include "core/engine/seeding.h"
#include "core/optim/checkpoint_file.h"
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

// Checkpoints from before FoPE's coefficients were per layer hold one set, shared by every
// layer, as "position.fourier.cos_coef" / "sin_coef"; layer l's is now
// "position.fourier.<l>.cos_coef". The shared name of a per-layer entry, or none.
std::optional<std::string> sharedFopeName(const std::string& name) {
  static const std::string prefix = "position.fourier.";
  if (name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const auto dot = name.find('.', prefix.size());
  if (dot == std::string::npos) return std::nullopt;
  return prefix + name.substr(dot + 1);
}

// Learnable FoPE coefficients are parameters, in the optimizer's flat vector: a checkpoint with
// one shared set holds (layers - 1) sets fewer than the model. Such a run cannot continue: its
// one set was trained by every layer's gradient at once, and no split of it (or of its Adam
// moments) into per-layer sets is the run it was. Refused, with the reason; one layer's
// checkpoint has the same layout either way and loads as it is.
void refuseSharedLearnableFope(torch::serialize::InputArchive& archive, const nn::Gpt& model) {
  const auto position = model->position();
  const auto& sets = position->fourierLayers();
  if (sets.size() < 2 || !position->options().fopeLearnable) return;
  torch::Tensor saved;
  if (!archive.try_read("parameters", saved)) return;  // readOptimizerState names what is missing
  const int64_t perLayer =
      sets.front()->cosCoefficients().numel() + sets.front()->sinCoefficients().numel();
  const auto layers = static_cast<int64_t>(sets.size());
  if (saved.numel() != model->parameterCount() - (layers - 1) * perLayer) return;
  throw std::runtime_error(
      "this checkpoint holds one set of learnable FoPE coefficients shared by every layer (saved "
      "before FoPE's coefficients became per layer, as in the official code); the model has its "
      "own set in each of its " +
      std::to_string(layers) +
      " layers, and a shared set's training cannot continue as per-layer sets: start the run "
      "again");
}
// The text a checkpoint's run trained on, as (characters, digest): a resume that reads another
// (a relative path resolved from another folder, an edited file) would go on training on it
// as if nothing had changed, or fail on a vocabulary of another size after marking the run.
constexpr const char* kCorpusIdentity = "corpus.identity";

torch::Tensor corpusIdentity(const lm::CharLmData& data) {
  return torch::tensor({data.characters(), static_cast<int64_t>(data.digest())}, torch::kLong);
}

void refuseAnotherCorpus(torch::serialize::InputArchive& archive, const lm::CharLmData& data,
                         const std::string& corpus) {
  torch::Tensor saved;
  if (!archive.try_read(kCorpusIdentity, saved)) return;  // saved before texts were identified
  saved = saved.to(torch::kCPU);
  const auto now = corpusIdentity(data);
  if (saved.numel() != 2 || saved.scalar_type() != torch::kLong)
    throw std::runtime_error("checkpoint entry '" + std::string(kCorpusIdentity) +
                             "' is not two whole numbers: the file is damaged");
  if (torch::equal(saved, now)) return;
  const auto digest = [](int64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
    return std::string(text);
  };
  const std::string source = corpus.empty() ? "the built-in text" : "corpus '" + corpus + "'";
  const auto held = saved.accessor<int64_t, 1>();
  throw ResumeRefused(source + " is not the text this run trained on: it now has " +
                      std::to_string(data.characters()) + " characters (digest " +
                      digest(static_cast<int64_t>(data.digest())) +
                      "), the checkpoint's text had " + std::to_string(held[0]) + " (digest " +
                      digest(held[1]) + "); put that text back at the path, or start a new run");
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
  m_lossStep = std::make_unique<CapturedLossStep>(
      device,
      [this](const std::vector<torch::Tensor>& batch) { return batchLoss(batch[0], batch[1]); },
      [this] { m_optimizer->zeroGrad(); },
      [this] { return m_model->position()->cacheGeneration(); });
}

CharLmTrial::~CharLmTrial() = default;

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

std::string CharLmTrial::stepDescription() const { return m_lossStep->description(); }

torch::Tensor CharLmTrial::batchLoss(const torch::Tensor& inputs, const torch::Tensor& targets) {
  auto logits = m_model->forward(inputs);
  return torch::nn::functional::cross_entropy(logits.view({-1, logits.size(-1)}),
                                              targets.reshape({-1}));
}

StepLoss CharLmTrial::trainStep(int64_t stepIndex) {
  m_model->train();
  auto [inputs, targets] = nextBatch(m_batchRng);
  m_optimizer->setLr(m_schedule.at(stepIndex));
  auto loss = m_lossStep->run({inputs, targets});  // zeroed gradients, forward, backward
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
  archive.write(kCorpusIdentity, corpusIdentity(m_data));
  optim::saveArchive(archive, path);
}

void CharLmTrial::loadCheckpoint(const std::string& path) {
  torch::serialize::InputArchive archive;
  optim::loadArchive(archive, path, m_device);
  refuseAnotherCorpus(archive, m_data, m_settings.corpus);
  refuseSharedLearnableFope(archive, m_model);
  optim::readOptimizerState(archive, *m_optimizer);
  torch::NoGradGuard noGrad;
  for (auto& b : m_model->named_buffers()) {
    torch::Tensor saved;
    std::string key = "buffer." + b.key();
    if (!archive.try_read(key, saved)) {
      // Fixed FoPE coefficients from before they were per layer: the one set was every
      // layer's, so copying it into each layer continues the run exactly as it was.
      const auto shared = sharedFopeName(b.key());
      if (!shared) continue;  // a buffer the checkpoint predates
      key = "buffer." + *shared;
      if (!archive.try_read(key, saved))
        throw std::runtime_error("checkpoint holds no FoPE coefficients for '" + b.key() +
                                 "' (was it saved with another position encoding?)");
    }
    optim::checkLoadedTensor(saved, key);
    if (saved.sizes() != b.value().sizes()) {
      std::ostringstream message;
      message << "checkpoint entry '" << key << "' has shape " << saved.sizes()
              << ", the model's is " << b.value().sizes()
              << " (was it saved with another configuration?)";
      throw std::runtime_error(message.str());
    }
    b.value().copy_(saved);
  }
  m_model->position()->invalidateCache();
  m_lossStep->invalidate();
  optim::readStreamState(archive, "batches.rng", m_batchRng);
  auto dropout = m_model->dropoutGenerator();
  optim::readGeneratorState(archive, "dropout.rng", dropout);
}

}  // namespace fl::char_lm
