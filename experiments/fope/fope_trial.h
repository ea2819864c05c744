// FopeTrial: a char-level GPT with the chosen position encoding, trained at train_len and
// evaluated at several lengths: validation perplexity and passkey accuracy per length, plus
// snapshots of the frequencies in use and FoPE's coefficient matrices, and the spectrum meter
// (how purely each layer's rotated pairs keep their frequency).
#pragma once

#include "experiments/char_lm/char_lm_trial.h"
#include "experiments/fope/fope_settings.h"

namespace fl::fope {

nn::GptOptions fopeModelOptions(const FopeSettings& settings);

class FopeTrial : public char_lm::CharLmTrial {
 public:
  FopeTrial(const FopeSettings& settings, c10::Device device, uint64_t seed);

  void evaluate(int64_t stepsDone, bool final, EvalReport& out) override;

  // Share of the samples whose every key digit is the model's argmax (teacher-forced: the same
  // as exact greedy retrieval). Samples are drawn from a fixed stream, the same at every call.
  struct PasskeyScore {
    double exact = 0;   // every digit right
    double digits = 0;  // share of digits right (partial retrieval)
  };
  PasskeyScore passkeyAccuracy(int64_t length, int64_t samples);
  double perplexity(int64_t length);

 protected:
  std::pair<torch::Tensor, torch::Tensor> nextBatch(std::mt19937_64& rng) override;

 private:
  void frequencySnapshots(EvalReport& out) const;
  // The spectrum meter: each layer's position-encoded queries and keys over one long validation
  // window, the purity of every dimension pair's frequency (core/analysis/spectral_purity.h), as
  // a layer x pair snapshot and a mean per layer.
  void spectrumMeter(EvalReport& out);

  FopeSettings m_fope;
  uint64_t m_seed;
};

}  // namespace fl::fope
