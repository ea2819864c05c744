// The addition task of Zhou et al. (arXiv 2406.03445) at single-token granularity: operands
// 0 .. N-1 and the answer are each one token, so "a + b =" is four tokens and the model predicts
// the answer token after "=".
//
//   token ids: 0 .. M-1 are the numbers (M = 2N-1 answers, or N with `modular`), then '+', '='
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include <torch/types.h>

namespace fl::addition {

struct AdditionTask {
  int64_t operands = 100;  // N
  bool modular = false;    // answer (a + b) mod N instead of a + b

  int64_t numberTokens() const { return modular ? operands : 2 * operands - 1; }  // M
  int64_t plusToken() const { return numberTokens(); }
  int64_t equalsToken() const { return numberTokens() + 1; }
  int64_t vocabularySize() const { return numberTokens() + 2; }
  int64_t answer(int64_t a, int64_t b) const { return modular ? (a + b) % operands : a + b; }
  static constexpr int64_t kSequenceLength = 4;  // a + b =
};

// How many of the N^2 ordered pairs splitPairs holds out for the test: round(testFraction N^2).
int64_t testPairCount(const AdditionTask& task, double testFraction);

// All N^2 ordered pairs, shuffled with `rng` and split: the first testPairCount() test.
struct PairSplit {
  torch::Tensor trainInputs, trainAnswers;  // (P, 4) int64, (P)
  torch::Tensor testInputs, testAnswers;
};
PairSplit splitPairs(const AdditionTask& task, double testFraction, std::mt19937_64& rng);

}  // namespace fl::addition
