// CharLmData: a char-level corpus as token tensors, split 90/10 into training and validation
// (contiguous, so no validation window overlaps training text), with seeded batch sampling.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include <torch/types.h>

#include "core/text/char_corpus.h"

namespace fl::lm {

struct CharLmDataOptions {
  std::string corpusPath;  // empty: the built-in structured text
  int64_t syntheticCharacters = 400000;
  double validationFraction = 0.1;
  std::u32string extraCharacters;  // added to the vocabulary (e.g. the passkey alphabet)
};

class CharLmData {
 public:
  // Throws std::runtime_error naming the corpus on a bad file.
  CharLmData(const CharLmDataOptions& options, uint64_t seed);

  const text::CharVocabulary& vocabulary() const { return m_vocabulary; }
  // What text this is, for a checkpoint to tell whether a resume reads the one it trained on:
  // its length in characters and a 64-bit FNV-1a digest of its code points.
  int64_t characters() const { return m_characters; }
  uint64_t digest() const { return m_digest; }
  const torch::Tensor& train() const { return m_train; }            // (N) int64, CPU
  const torch::Tensor& validation() const { return m_validation; }  // (M) int64, CPU

  // `batch` random windows of length+1 tokens from the training split: inputs (B, T) and
  // next-token targets (B, T).
  std::pair<torch::Tensor, torch::Tensor> sampleTrainBatch(int64_t batch, int64_t length,
                                                           std::mt19937_64& rng) const;
  // `count` windows of length+1 validation tokens at evenly spaced offsets (the same windows
  // at every evaluation, so curves compare like with like). Throws if the split is too short.
  std::pair<torch::Tensor, torch::Tensor> validationWindows(int64_t count, int64_t length) const;

 private:
  text::CharVocabulary m_vocabulary;
  int64_t m_characters = 0;
  uint64_t m_digest = 0;
  torch::Tensor m_train;
  torch::Tensor m_validation;
};

}  // namespace fl::lm
