// Char-level corpora: a UTF-8 text file read whole, or the built-in structured text, and the
// vocabulary that maps its characters (code points) to token ids.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fl::text {

// The largest corpus file read (its characters are held as 4-byte code points, then as ids):
// 256 MiB, far above the corpora these models train on (Tiny Shakespeare is 1 MiB).
inline constexpr uint64_t kMaxCorpusBytes = uint64_t{256} << 20;

// Reads a UTF-8 text file. Throws std::runtime_error naming the path when it is missing,
// unreadable, a folder, not a regular file (a device, a pipe), empty, larger than
// kMaxCorpusBytes, UTF-16 or UTF-32 (by its byte-order mark), binary (a NUL byte, found as the
// file is read) or not UTF-8 (with the byte offset). A UTF-8 byte-order mark is left out.
std::u32string loadTextFile(const std::string& path);

// The fewest characters a language model's corpus may have.
inline constexpr size_t kMinLanguageModelCharacters = 100;
// Why `characters` of `source` ("corpus 'x.txt'") are too few for a language model, or "".
std::string tooFewCharacters(const std::string& source, size_t characters);

// Characters -> token ids 0..size-1, in code-point order (so ids are stable for a corpus).
class CharVocabulary {
 public:
  CharVocabulary() = default;
  // Every character of `text` plus `extra` (e.g. the passkey task's digits).
  CharVocabulary(const std::u32string& text, const std::u32string& extra = {});

  int64_t size() const { return static_cast<int64_t>(m_chars.size()); }
  bool contains(char32_t c) const { return m_ids.count(c) > 0; }
  int32_t id(char32_t c) const;  // throws for a character outside the vocabulary
  char32_t character(int32_t id) const { return m_chars.at(static_cast<size_t>(id)); }
  std::vector<int32_t> encode(const std::u32string& text) const;
  std::u32string decode(const std::vector<int32_t>& ids) const;

 private:
  std::u32string m_chars;
  std::map<char32_t, int32_t> m_ids;
};

}  // namespace fl::text
