// The passkey retrieval task (Mohtashami & Jaggi), char-level and generated at any length:
//
//   <filler> the key is 4821. <filler> what is the key? the key is 4821
//
// Short enough (49 characters with 4 digits) to be mixed into training at small train_len, so
// evaluation at 2x, 4x, 8x that length tests whether retrieval survives longer distances.
//
// The key (random digits) sits at a random depth of the filler; a model passes when it
// predicts every digit of the final key (greedy decoding = argmax at each key position given
// the correct prefix, so one forward pass scores it).
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace fl::text {

struct PasskeySample {
  std::u32string text;   // exactly the requested length
  std::u32string key;    // the digits
  int64_t keyAt = 0;     // where the key is stated (index of its first digit)
  int64_t answerAt = 0;  // where the answer's first digit is (the positions that are scored)
};

// The characters the task uses (its vocabulary must contain them).
const std::u32string& passkeyAlphabet();

// The shortest text that holds the key statement and the question for `digits` digits.
int64_t minimumPasskeyLength(int64_t digits);

// A sample of exactly `length` characters with a `digits`-digit key at a uniformly random depth
// of the filler. Throws std::invalid_argument when `length` is below minimumPasskeyLength.
PasskeySample makePasskeySample(int64_t length, int64_t digits, std::mt19937_64& rng);

}  // namespace fl::text
