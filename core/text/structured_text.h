// Built-in structured text: a corpus with exactly known periodic structure, so a fresh install
// trains without downloads and the periods a model learns can be checked against true ones.
//
//   word   = 4 letters + a separator                       period 5 characters
//   line   = 6 words, the last ending in '\n'               period 30
//   stanza = 4 lines + an empty line                        period 121
//
// Word w of a line is drawn from slot w's own 8 words (a fixed 48-word lexicon), and the 4th
// line of a stanza repeats its 1st: a long-range copy at distance 90 that only attention can
// exploit. The run's seed draws the words; the lexicon is the same for every seed.
#pragma once

#include <cstdint>
#include <string>

namespace fl::text {

struct StructuredTextPeriods {
  static constexpr int64_t kWord = 5;
  static constexpr int64_t kLine = 30;
  static constexpr int64_t kStanza = 121;
};

// At least `characters` characters (whole stanzas), drawn with `seed`.
std::u32string generateStructuredText(int64_t characters, uint64_t seed);

}  // namespace fl::text
