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

  // Share of the trials whose every key character is the model's argmax (teacher-forced: the
  // same as exact greedy retrieval; zero-shot also asks that the answer end with the key).
  // Trials are drawn from a fixed stream, the same at every call; `length` is the tokens the
  // model reads.
  struct PasskeyScore {
    double exact = 0;   // every key character right
    double digits = 0;  // share of key characters right (partial retrieval)
    int64_t exactCount = 0;
    int64_t trials = 0;
  };
  PasskeyScore passkeyAccuracy(int64_t length, int64_t samples);
  // Zero-shot: the characters keys are drawn from (digits, or the lowercase letters the
  // training split has), and how many characters of the prompt and that alphabet the training
  // split never shows (untrained embeddings: 9 of the digits on TinyShakespeare).
  const std::u32string& passkeyKeyAlphabet() const { return m_keyAlphabet; }
  int64_t passkeyUnseenCharacters() const { return m_unseenPasskeyCharacters; }
  double perplexity(int64_t length);

 protected:
  std::pair<torch::Tensor, torch::Tensor> nextBatch(std::mt19937_64& rng) override;

 private:
  void frequencySnapshots(EvalReport& out) const;
  // The spectrum meter: each layer's position-encoded queries and keys over one long validation
  // window, the purity of every dimension pair's frequency (core/analysis/spectral_purity.h), as
  // a layer x pair snapshot and a mean per layer.
  void spectrumMeter(EvalReport& out);

  PasskeyScore zeroShotPasskeyAccuracy(int64_t length, int64_t samples);
  PasskeyScore trainedInPasskeyAccuracy(int64_t length, int64_t samples);

  FopeSettings m_fope;
  uint64_t m_seed;
  std::u32string m_keyAlphabet;
  int64_t m_unseenPasskeyCharacters = 0;
};

}  // namespace fl::fope
