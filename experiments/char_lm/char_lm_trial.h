// CharLmTrial: training a char-level GPT (core/nn/transformer) on a corpus with AdamW, warm-up
// and cosine decay, gradient clipping and checkpoints. Experiments derive from it and add their
// evaluation (FoPE: perplexity against length and passkey; FourierQK: leakage probes).
#pragma once

#include <memory>
#include <random>

#include "core/engine/experiment.h"
#include "core/lm/char_lm_data.h"
#include "core/nn/transformer/gpt.h"
#include "core/optim/flat_adam.h"
#include "core/optim/lr_schedule.h"
#include "experiments/char_lm/char_lm_settings.h"

namespace fl {
class CapturedLossStep;
}

namespace fl::char_lm {

class CharLmTrial : public Trial {
 public:
  // `model`: the architecture; its vocabulary size is set from the corpus. `extraCharacters`
  // join the vocabulary (tasks evaluated besides the corpus need their characters).
  CharLmTrial(const CharLmSettings& settings, nn::GptOptions model, c10::Device device,
              uint64_t seed, const std::u32string& extraCharacters = {});
  ~CharLmTrial() override;

  TrialPlan plan() const override;
  StepLoss trainStep(int64_t stepIndex) override;
  bool supportsCheckpoints() const override { return true; }
  std::string stepDescription() const override;
  void saveCheckpoint(const std::string& path) const override;
  void loadCheckpoint(const std::string& path) override;

  // The device half of a training step (captured_loss_step.h): whether it replays a CUDA
  // graph, and if not, why.
  const CapturedLossStep& lossStep() const { return *m_lossStep; }

  nn::Gpt model() const { return m_model; }
  const lm::CharLmData& data() const { return m_data; }

 protected:
  // The next training batch (inputs, targets), each (B, T) on the CPU. Derived experiments can
  // mix in task data (FoPE: passkey samples).
  virtual std::pair<torch::Tensor, torch::Tensor> nextBatch(std::mt19937_64& rng);

  // Mean next-token loss (nats) over every position of the given windows (CPU, (N, T)), in
  // chunks that bound the T x T attention memory. Eval mode, no gradients.
  double meanLoss(const torch::Tensor& inputs, const torch::Tensor& targets);
  // Log-probabilities (N, T, V) of the windows, in the same chunks.
  torch::Tensor logProbabilities(const torch::Tensor& inputs);
  // How many windows of length T fit the evaluation memory budget at once.
  int64_t evaluationChunk(int64_t length) const;

  // The mean next-token loss of one batch on the device, with its autograd graph: the step's.
  torch::Tensor batchLoss(const torch::Tensor& inputs, const torch::Tensor& targets);

  const CharLmSettings& settings() const { return m_settings; }
  c10::Device device() const { return m_device; }

 private:
  CharLmSettings m_settings;
  c10::Device m_device;
  lm::CharLmData m_data;
  nn::Gpt m_model{nullptr};
  std::unique_ptr<optim::FlatAdam> m_optimizer;
  optim::WarmupCosine m_schedule;
  std::mt19937_64 m_batchRng;
  std::unique_ptr<CapturedLossStep> m_lossStep;
};

}  // namespace fl::char_lm
