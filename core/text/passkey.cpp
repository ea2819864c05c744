#include "core/text/passkey.h"

#include <stdexcept>

namespace fl::text {

namespace {
// The filler never says "is" nor "key", so the key statement is the only earlier match of the
// question's "the key is ": retrieval is an induction-head copy, learnable by small models.
const std::u32string kFiller =
    U"the grass grows green. the sky stays blue. the sun shines. here we go. there and back "
    U"again. ";
std::u32string statement(const std::u32string& key) { return U"the key is " + key + U". "; }
const std::u32string kQuestion = U"what is the key? the key is ";

std::u32string filler(int64_t n, int64_t phase) {
  std::u32string out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(kFiller[static_cast<size_t>((phase + i) % kFiller.size())]);
  return out;
}
}  // namespace

const std::u32string& passkeyAlphabet() {
  static const std::u32string alphabet = [] {
    std::u32string a = kFiller + statement(U"0123456789") + kQuestion;
    return a;
  }();
  return alphabet;
}

int64_t minimumPasskeyLength(int64_t digits) {
  const std::u32string key(static_cast<size_t>(digits), U'0');
  return static_cast<int64_t>(statement(key).size() + kQuestion.size()) + digits;
}

PasskeySample makePasskeySample(int64_t length, int64_t digits, std::mt19937_64& rng) {
  if (digits < 1) throw std::invalid_argument("a passkey needs at least one digit");
  if (length < minimumPasskeyLength(digits))
    throw std::invalid_argument("a passkey sample with " + std::to_string(digits) +
                                " digits needs at least " +
                                std::to_string(minimumPasskeyLength(digits)) + " characters, got " +
                                std::to_string(length));
  PasskeySample s;
  for (int64_t i = 0; i < digits; ++i) s.key.push_back(static_cast<char32_t>(U'0' + rng() % 10));
  const auto stated = statement(s.key);
  const int64_t fill = length - minimumPasskeyLength(digits);
  const int64_t before = static_cast<int64_t>(rng() % static_cast<uint64_t>(fill + 1));
  const int64_t phase = static_cast<int64_t>(rng() % kFiller.size());
  s.text = filler(before, phase);
  s.keyAt = static_cast<int64_t>(s.text.size()) + 11;  // after "the key is "
  s.text += stated;
  s.text += filler(fill - before, phase + before);
  s.text += kQuestion;
  s.answerAt = static_cast<int64_t>(s.text.size());
  s.text += s.key;
  return s;
}

}  // namespace fl::text
