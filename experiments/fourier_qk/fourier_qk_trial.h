// FourierQkTrial: a char-level GPT whose queries and keys pass through the chosen filter, with
// the leakage diagnostics at every evaluation:
//   val/loss, val/loss_shuffled (each window's characters shuffled) and leak/gap = their
//   difference (a small gap: the model barely uses order, or it reads the future);
//   leak/causality: replace the tokens from a random position t on and take the largest change
//   of the log-probabilities at positions before t (0 for a causal model, up to round-off);
//   leak/filter_causality: the same for the Q/K filters alone on random inputs, relative to
//   their output's size. Weights can hide a leak early in training (an untrained model barely
//   attends); the filter probe shows the structure. Either one above tolerance: LEAKS.
#pragma once

#include "experiments/char_lm/char_lm_trial.h"
#include "experiments/fourier_qk/fourier_qk_settings.h"

namespace fl::fourier_qk {

// The leak verdict's sentence, opened by the probe that found the leak: a tiny model whose
// filters read the future but whose weights barely attend yet led its LEAKS verdict with an
// end-to-end change under the tolerance, which read as a contradiction.
std::string leakVerdictDetail(double causality, double filterCausality, double gap,
                              double tolerance, const std::string& variant, bool claimedCausal);

class FourierQkTrial : public char_lm::CharLmTrial {
 public:
  FourierQkTrial(const FourierQkSettings& settings, c10::Device device, uint64_t seed);

  void evaluate(int64_t stepsDone, bool final, EvalReport& out) override;

  // The probes, public for the tests.
  double causalityProbe();
  double filterCausalityProbe() const;
  std::pair<double, double> orderedAndShuffledLoss();
  // Learned centres of every layer as periods in tokens: (layers, heads, K); undefined for
  // variants without learned centres.
  torch::Tensor learnedPeriods() const;

 private:
  void filterSnapshots(EvalReport& out) const;
  Snapshot verdict(double causality, double filterCausality, double gap) const;

  FourierQkSettings m_qk;
  uint64_t m_seed;
};

}  // namespace fl::fourier_qk
