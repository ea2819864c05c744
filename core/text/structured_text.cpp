#include "core/text/structured_text.h"

#include <array>
#include <random>

namespace fl::text {

namespace {

constexpr int kSlots = 6;
constexpr int kWordsPerSlot = 8;
constexpr int kLinesPerStanza = 4;

// The lexicon: fixed (seed 2024), pronounceable consonant-vowel words.
std::array<std::array<std::u32string, kWordsPerSlot>, kSlots> lexicon() {
  std::mt19937_64 rng(2024);
  const std::u32string consonants = U"bcdfghklmnprstvz";
  const std::u32string vowels = U"aeiou";
  std::array<std::array<std::u32string, kWordsPerSlot>, kSlots> words;
  for (auto& slot : words)
    for (auto& w : slot) {
      w = {consonants[rng() % consonants.size()], vowels[rng() % vowels.size()],
           consonants[rng() % consonants.size()], vowels[rng() % vowels.size()]};
    }
  return words;
}

}  // namespace

std::u32string generateStructuredText(int64_t characters, uint64_t seed) {
  static const auto words = lexicon();
  std::mt19937_64 rng(seed);
  std::u32string out;
  out.reserve(static_cast<size_t>(characters + StructuredTextPeriods::kStanza));
  auto line = [&] {
    std::u32string l;
    for (int s = 0; s < kSlots; ++s) {
      l += words[s][rng() % kWordsPerSlot];
      l.push_back(s + 1 < kSlots ? U' ' : U'\n');
    }
    return l;
  };
  while (static_cast<int64_t>(out.size()) < characters) {
    const auto first = line();
    out += first;
    for (int l = 1; l < kLinesPerStanza - 1; ++l) out += line();
    out += first;  // the stanza's closing line repeats its opening line
    out.push_back(U'\n');
  }
  return out;
}

}  // namespace fl::text
