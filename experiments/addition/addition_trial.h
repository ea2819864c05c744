// AdditionTrial: a small GPT learns a + b = c with single-token numbers. Every evaluation
// reports train and test accuracy, the DFT of the number-embedding matrix over the number axis
// (with its strongest periods), each layer's attention and MLP spectra through the logit lens
// (the paper's Figure 3: logit_lens_spectra.h), the logit-lens filter ablations of the paper's
// Table 1, and the kinds of mistakes the model makes with and without each (error_types.h).
#pragma once

#include <functional>
#include <memory>
#include <random>

#include "core/engine/experiment.h"
#include "core/nn/transformer/gpt.h"
#include "core/optim/flat_adam.h"
#include "core/optim/lr_schedule.h"
#include "experiments/addition/addition_settings.h"
#include "experiments/addition/logit_lens_ablation.h"
#include "experiments/addition/logit_lens_spectra.h"

namespace fl {
class CapturedLossStep;
}

namespace fl::addition {

// Batches are drawn with replacement, so an epoch is nominal: as many draws as there are
// training pairs, in whole batches (at least one), as the trial's plan counts its epochs.
int64_t additionStepsPerEpoch(const AdditionSettings& settings);

class AdditionTrial : public Trial {
 public:
  AdditionTrial(const AdditionSettings& settings, c10::Device device, uint64_t seed);
  ~AdditionTrial() override;

  TrialPlan plan() const override;
  StepLoss trainStep(int64_t stepIndex) override;
  void evaluate(int64_t stepsDone, bool final, EvalReport& out) override;
  bool supportsCheckpoints() const override { return true; }
  std::string stepDescription() const override;
  void saveCheckpoint(const std::string& path) const override;
  void loadCheckpoint(const std::string& path) override;

  // Accuracy of the answer token on a split, optionally under an ablation.
  double accuracy(bool test, const Ablation* ablation = nullptr);
  // The predicted answer token (argmax) of every problem of a split (P), optionally ablated.
  torch::Tensor predictions(bool test, const Ablation* ablation = nullptr);
  // The same through any hook; afterBatch runs after each batch's forward pass (a recording
  // hook closes its batch there).
  torch::Tensor predictionsWith(bool test, const nn::SublayerHook& hook,
                                const std::function<void()>& afterBatch = nullptr);
  const torch::Tensor& testAnswers() const { return m_split.testAnswers; }
  // The number tokens' rows of the embedding (M, d).
  torch::Tensor numberEmbedding() const;
  // The number tokens' rows of the unembedding, W_U (M, d): the logit lens reads through it.
  torch::Tensor numberUnembedding() const;
  nn::Gpt model() const { return m_model; }
  // The device half of a training step: whether it replays a CUDA graph, and if not, why.
  const CapturedLossStep& lossStep() const { return *m_lossStep; }

 private:
  torch::Tensor answerLogits(const torch::Tensor& inputs, const nn::SublayerHook& hook);
  torch::Tensor removalMatrix(const Ablation& ablation) const;

  AdditionSettings m_settings;
  c10::Device m_device;
  PairSplit m_split;
  nn::Gpt m_model{nullptr};
  std::unique_ptr<optim::FlatAdam> m_optimizer;
  optim::WarmupCosine m_schedule;
  std::mt19937_64 m_batchRng;
  torch::Tensor m_frozenRows;  // the number rows to restore after each step, when frozen
  std::unique_ptr<CapturedLossStep> m_lossStep;
};

}  // namespace fl::addition
