#include "experiments/addition/addition_task.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <torch/torch.h>

namespace fl::addition {

int64_t testPairCount(const AdditionTask& task, double testFraction) {
  return std::lround(testFraction * static_cast<double>(task.operands * task.operands));
}

PairSplit splitPairs(const AdditionTask& task, double testFraction, std::mt19937_64& rng) {
  const int64_t n = task.operands;
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t a = 0; a < n; ++a)
    for (int64_t b = 0; b < n; ++b) pairs.emplace_back(a, b);
  std::shuffle(pairs.begin(), pairs.end(), rng);
  const int64_t testCount = testPairCount(task, testFraction);
  if (testCount < 1 || testCount >= static_cast<int64_t>(pairs.size()))
    throw std::invalid_argument("test_fraction " + std::to_string(testFraction) + " of " +
                                std::to_string(pairs.size()) +
                                " pairs leaves an empty train or test split");
  auto encode = [&](int64_t from, int64_t to, torch::Tensor& inputs, torch::Tensor& answers) {
    inputs = torch::empty({to - from, AdditionTask::kSequenceLength}, torch::kLong);
    answers = torch::empty({to - from}, torch::kLong);
    auto in = inputs.accessor<int64_t, 2>();
    auto out = answers.accessor<int64_t, 1>();
    for (int64_t i = from; i < to; ++i) {
      const auto [a, b] = pairs[static_cast<size_t>(i)];
      in[i - from][0] = a;
      in[i - from][1] = task.plusToken();
      in[i - from][2] = b;
      in[i - from][3] = task.equalsToken();
      out[i - from] = task.answer(a, b);
    }
  };
  PairSplit split;
  encode(0, testCount, split.testInputs, split.testAnswers);
  encode(testCount, static_cast<int64_t>(pairs.size()), split.trainInputs, split.trainAnswers);
  return split;
}

}  // namespace fl::addition
