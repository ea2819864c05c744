#include "core/lm/char_lm_data.h"

#include <stdexcept>

#include <torch/torch.h>

#include "core/text/structured_text.h"

namespace fl::lm {

namespace {
torch::Tensor toTensor(const std::vector<int32_t>& ids) {
  return torch::tensor(std::vector<int64_t>(ids.begin(), ids.end()), torch::kLong);
}

// FNV-1a over each code point's four bytes: cheap, and any edit of a text changes it.
uint64_t fnv1a(const std::u32string& text) {
  uint64_t hash = 14695981039346656037ull;
  for (const char32_t c : text)
    for (int shift = 0; shift < 32; shift += 8) {
      hash ^= (static_cast<uint32_t>(c) >> shift) & 0xff;
      hash *= 1099511628211ull;
    }
  return hash;
}
}  // namespace

CharLmData::CharLmData(const CharLmDataOptions& options, uint64_t seed) {
  const std::u32string corpus =
      options.corpusPath.empty() ? text::generateStructuredText(options.syntheticCharacters, seed)
                                 : text::loadTextFile(options.corpusPath);
  if (const std::string why = text::tooFewCharacters(
          "corpus '" + (options.corpusPath.empty() ? "built-in" : options.corpusPath) + "'",
          corpus.size());
      !why.empty())
    throw std::runtime_error(why);
  m_characters = static_cast<int64_t>(corpus.size());
  m_digest = fnv1a(corpus);
  m_vocabulary = text::CharVocabulary(corpus, options.extraCharacters);
  auto tokens = toTensor(m_vocabulary.encode(corpus));
  const int64_t n = tokens.numel();
  const int64_t trainCount =
      n - static_cast<int64_t>(static_cast<double>(n) * options.validationFraction);
  m_train = tokens.narrow(0, 0, trainCount).clone();
  m_validation = tokens.narrow(0, trainCount, n - trainCount).clone();
}

std::pair<torch::Tensor, torch::Tensor> CharLmData::sampleTrainBatch(int64_t batch, int64_t length,
                                                                     std::mt19937_64& rng) const {
  const int64_t n = m_train.numel();
  if (n < length + 1)
    throw std::runtime_error("the training split has " + std::to_string(n) +
                             " tokens, fewer than train_len + 1 = " + std::to_string(length + 1));
  std::uniform_int_distribution<int64_t> offset(0, n - length - 1);
  auto windows = torch::empty({batch, length + 1}, torch::kLong);
  const int64_t* source = m_train.data_ptr<int64_t>();
  int64_t* out = windows.data_ptr<int64_t>();
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t start = offset(rng);
    std::copy(source + start, source + start + length + 1, out + b * (length + 1));
  }
  return {windows.narrow(1, 0, length), windows.narrow(1, 1, length)};
}

std::pair<torch::Tensor, torch::Tensor> CharLmData::validationWindows(int64_t count,
                                                                      int64_t length) const {
  const int64_t n = m_validation.numel();
  if (n < length + 1)
    throw std::runtime_error("the validation split has " + std::to_string(n) +
                             " tokens, too few for windows of " + std::to_string(length) +
                             " (use a longer corpus or shorter evaluation lengths)");
  const int64_t span = n - length - 1;
  auto windows = torch::empty({count, length + 1}, torch::kLong);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t start = count > 1 ? span * i / (count - 1) : 0;
    windows[i].copy_(m_validation.narrow(0, start, length + 1));
  }
  return {windows.narrow(1, 0, length), windows.narrow(1, 1, length)};
}

}  // namespace fl::lm
