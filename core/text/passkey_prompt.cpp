#include "core/text/passkey_prompt.h"

#include <algorithm>
#include <stdexcept>

namespace fl::text {

namespace {
// YaRN's eval/passkey.py, generate_prompt, word for word.
const std::u32string kTask =
    U"There is an important info hidden inside a lot of irrelevant text. Find it and memorize "
    U"them. I will quiz you about the important information there.";
const std::u32string kGarbage =
    U"The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again.";
const std::u32string kQuestion = U"What is the pass key? The pass key is";

// garbage_inf[:n] with garbage_inf = " ".join([garbage] * 10000): the sentence and one space,
// repeated, cut at n characters.
std::u32string filler(int64_t n) {
  const size_t period = kGarbage.size() + 1;
  std::u32string out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const size_t at = static_cast<size_t>(i) % period;
    out.push_back(at < kGarbage.size() ? kGarbage[at] : U' ');
  }
  return out;
}
}  // namespace

const std::u32string& zeroShotTaskDescription() { return kTask; }
const std::u32string& zeroShotFillerSentence() { return kGarbage; }
const std::u32string& zeroShotQuestion() { return kQuestion; }

std::u32string zeroShotStatement(const std::u32string& key) {
  return U"The pass key is " + key + U". Remember it. " + key + U" is the pass key.";
}

const std::u32string& zeroShotPromptCharacters() {
  static const std::u32string characters =
      kTask + kGarbage + zeroShotStatement(U"") + kQuestion + U" \n";
  return characters;
}

const std::u32string& passkeyDigitCharacters() {
  static const std::u32string digits = U"0123456789";
  return digits;
}

int64_t minimumZeroShotPasskeyLength(int64_t keyLength) {
  // task \n prefix \n statement \n suffix \n question ' ' key, with no filler.
  const std::u32string key(static_cast<size_t>(std::max<int64_t>(keyLength, 0)), U'0');
  return static_cast<int64_t>(kTask.size() + 1 + 1 + zeroShotStatement(key).size() + 1 + 1 +
                              kQuestion.size() + 1 + key.size());
}

ZeroShotPasskey makeZeroShotPasskey(int64_t length, const std::u32string& key,
                                    std::mt19937_64& rng) {
  if (key.empty()) throw std::invalid_argument("a passkey needs at least one character");
  const int64_t keyLength = static_cast<int64_t>(key.size());
  const int64_t minimum = minimumZeroShotPasskeyLength(keyLength);
  if (length < minimum)
    throw std::invalid_argument("the zero-shot passkey prompt with a " + std::to_string(keyLength) +
                                "-character key needs at least " + std::to_string(minimum) +
                                " characters, got " + std::to_string(length));
  ZeroShotPasskey s;
  s.key = key;
  s.filler = length - minimum;
  // random.randint(0, n_garbage): every one of the n + 1 insertion points equally likely.
  s.insertAt = std::uniform_int_distribution<int64_t>(0, s.filler)(rng);
  s.text.reserve(static_cast<size_t>(length));
  s.text += kTask;
  s.text += U'\n';
  s.text += filler(s.insertAt);
  s.text += U'\n';
  s.statementAt = static_cast<int64_t>(s.text.size());
  s.text += zeroShotStatement(key);
  s.text += U'\n';
  s.text += filler(s.filler - s.insertAt);
  s.text += U'\n';
  s.text += kQuestion;
  s.text += U' ';
  s.answerAt = static_cast<int64_t>(s.text.size());
  s.text += key;
  return s;
}

std::u32string drawYarnKey(int64_t digits, std::mt19937_64& rng) {
  if (digits < 1 || digits > 18)
    throw std::invalid_argument("a YaRN passkey has 1 to 18 digits, got " + std::to_string(digits));
  uint64_t top = 5;
  for (int64_t i = 1; i < digits; ++i) top *= 10;
  const uint64_t value = std::uniform_int_distribution<uint64_t>(1, top)(rng);
  std::u32string key;
  for (char c : std::to_string(value)) key.push_back(static_cast<char32_t>(c));
  return key;
}

std::u32string drawKeyFrom(const std::u32string& alphabet, int64_t length, std::mt19937_64& rng) {
  if (alphabet.empty() || length < 1)
    throw std::invalid_argument("a passkey needs an alphabet and at least one character");
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  std::u32string key;
  for (int64_t i = 0; i < length; ++i) key.push_back(alphabet[pick(rng)]);
  return key;
}

bool zeroShotAnswerIsExact(const std::u32string& key, const std::u32string& predicted,
                           const std::u32string& keyAlphabet) {
  if (predicted.size() != key.size() + 1)
    throw std::invalid_argument(
        "the answer check needs one prediction per key character and "
        "one after the key");
  return predicted.compare(0, key.size(), key) == 0 &&
         keyAlphabet.find(predicted.back()) == std::u32string::npos;
}

}  // namespace fl::text
