// The zero-shot passkey test the FoPE paper runs (Hua et al., arXiv 2412.17739), through YaRN's
// eval/passkey.py (itself from landmark-attention), here at char level: every character one
// token, so every digit of the key is one token. The prompt, its lines joined by '\n':
//
//   There is an important info hidden inside a lot of irrelevant text. Find it and memorize
//   them. I will quiz you about the important information there.          (one line)
//   <the first p characters of the filler>
//   The pass key is 71432. Remember it. 71432 is the pass key.
//   <the first n - p characters of the filler>
//   What is the pass key? The pass key is 71432
//
// The filler is "The grass is green. The sky is blue. The sun is yellow. Here we go. There and
// back again." repeated, joined by single spaces, cut at a character count; as in YaRN both
// pieces start at the filler's beginning, and p is uniform over 0..n (n + 1 insertion points,
// cuts inside words included). n is whatever makes the text exactly the requested length.
//
// The key, as YaRN draws it: random.randint(1, 50000), a whole number written without leading
// zeros (so 80% of keys have 5 digits, the rest fewer); with `digits` d the range is
// 1..5 x 10^(d-1). The letters variant (a FourierLab departure, for corpora without digits)
// draws exactly d characters from a given alphabet.
//
// Scoring: YaRN generates after "The pass key is" and passes a trial when the first run of
// digits in the answer equals the key. Teacher-forced, one forward pass: the model's argmax at
// each key position (given the correct prefix) is the key's character, and its argmax after the
// key's last character is not a key character (else greedy decoding would read a longer
// number). The space after "is" belongs to the prompt here; YaRN lets the model write it.
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace fl::text {

struct ZeroShotPasskey {
  std::u32string text;      // exactly the requested length: the prompt, then the key
  std::u32string key;       // the answer
  int64_t filler = 0;       // n: filler characters in all (before and after the statement)
  int64_t insertAt = 0;     // p: filler characters before the statement, uniform in [0, n]
  int64_t statementAt = 0;  // index of the statement's first character ("The pass key is ...")
  int64_t answerAt = 0;     // index of the answer's first character: text.size() - key.size()
};

// The prompt's fixed parts, as in YaRN's generate_prompt.
const std::u32string& zeroShotTaskDescription();
const std::u32string& zeroShotFillerSentence();
const std::u32string& zeroShotQuestion();  // "What is the pass key? The pass key is"
std::u32string zeroShotStatement(const std::u32string& key);

// Every character the prompt uses around the key (the key's alphabet not included).
const std::u32string& zeroShotPromptCharacters();
// The key alphabet of the digits protocol.
const std::u32string& passkeyDigitCharacters();

// The shortest prompt that holds a key of `keyLength` characters (n = 0).
int64_t minimumZeroShotPasskeyLength(int64_t keyLength);

// A prompt of exactly `length` characters around `key`, the statement at a uniformly random
// point of the filler. Throws std::invalid_argument naming the minimum when `length` is below
// minimumZeroShotPasskeyLength(key.size()).
ZeroShotPasskey makeZeroShotPasskey(int64_t length, const std::u32string& key,
                                    std::mt19937_64& rng);

// YaRN's key: a whole number uniform in [1, 5 x 10^(digits-1)] (digits 5: 1..50000), in
// decimal without leading zeros. digits in [1, 18].
std::u32string drawYarnKey(int64_t digits, std::mt19937_64& rng);
// Exactly `length` characters, each uniform over `alphabet` (the letters variant).
std::u32string drawKeyFrom(const std::u32string& alphabet, int64_t length, std::mt19937_64& rng);

// The exact check of one trial. `predicted`: the model's argmax at each of the key's positions
// (given the correct prefix), then its argmax after the key, key.size() + 1 characters in all.
// True when every key character is right and the next is not in `keyAlphabet` (the answer ends
// where the key ends).
bool zeroShotAnswerIsExact(const std::u32string& key, const std::u32string& predicted,
                           const std::u32string& keyAlphabet);

}  // namespace fl::text
