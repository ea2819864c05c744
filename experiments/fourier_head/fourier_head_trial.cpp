#include "experiments/fourier_head/fourier_head_trial.h"

#include <algorithm>

#include <torch/torch.h>

#include "core/engine/seeding.h"
#include "experiments/fourier_head/toy_checkpoint.h"

namespace fl::fourier_head {

FourierHeadTrial::FourierHeadTrial(const ToyBenchmarkSettings& settings, c10::Device device,
                                   uint64_t seed)
    : m_settings(settings),
      m_device(device),
      m_shuffleRng(makeStream(seed, "shuffle")),
      // Data and split come from their own streams, so changing the model never changes the data.
      m_data(drawToyBenchmarkData(settings, seed, device)),
      m_evaluation(settings.bins, device) {
  m_model = makeToyModel(m_settings);
  m_model->to(device);
  m_optimizer = std::make_unique<optim::FlatAdam>(m_model->parameters(),
                                                  optim::FlatAdamOptions().lr(m_settings.lr));
  m_stepsPerEpoch = plan().stepsPerEpoch;
}

TrialPlan FourierHeadTrial::plan() const {
  return toyBenchmarkPlan(m_settings, m_data.trainSize());
}

StepLoss FourierHeadTrial::trainStep(int64_t stepIndex) {
  const int64_t batchIndex = stepIndex % m_stepsPerEpoch;
  if (batchIndex == 0)
    m_permutation =
        torch::tensor(drawEpochOrder(m_data.trainSize(), m_shuffleRng), torch::kLong).to(m_device);
  const int64_t start = batchIndex * m_settings.batchSize;
  const int64_t count = std::min(m_settings.batchSize, m_data.trainSize() - start);
  auto index = m_permutation.narrow(0, start, count);
  auto inputs = m_data.trainInputs.index_select(0, index);    // (b, 2)
  auto targets = m_data.trainTargets.index_select(0, index);  // (b)

  m_model->train();
  auto out = m_model->forward(inputs);
  auto loss = torch::nn::functional::cross_entropy(out.logits, targets);
  if (out.penalty.defined()) loss = loss + out.penalty;
  m_optimizer->zeroGrad();
  loss.backward();
  m_optimizer->step();
  return loss;
}

void FourierHeadTrial::evaluate(int64_t /*stepsDone*/, bool final, EvalReport& out) {
  const auto predictions = predictTestSet(*m_model, m_data.testInputs);
  for (const auto& [key, rows] : m_evaluation.metricRows(m_data.testTruePmf, predictions.logQ,
                                                         predictions.q, m_data.testTargets))
    out.metric(key, rows.mean().item<double>());
  m_evaluation.appendSnapshots(out, m_settings, *m_model, m_data, predictions, final);
}

void FourierHeadTrial::saveCheckpoint(const std::string& path) const {
  saveToyCheckpoint({m_optimizer->state(), m_shuffleRng, m_permutation}, path);
}

void FourierHeadTrial::loadCheckpoint(const std::string& path) {
  auto checkpoint = loadToyCheckpoint(path, m_device);
  m_optimizer->loadState(checkpoint.optimizer);
  m_shuffleRng = checkpoint.shuffleRng;
  if (checkpoint.permutation.defined()) m_permutation = checkpoint.permutation;
}

std::vector<Snapshot> FourierHeadTrial::probe(const std::map<std::string, double>& inputs) {
  return m_evaluation.probe(m_settings, *m_model, inputs);
}

}  // namespace fl::fourier_head
