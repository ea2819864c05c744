#include "core/text/char_corpus.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "core/text/utf8.h"

namespace fl::text {

namespace fs = std::filesystem;

namespace {

// The encoding a UTF-16 or UTF-32 byte-order mark names ("UTF-32" first: UTF-32LE's mark
// begins with UTF-16LE's), or null. iconv reads the byte order from the mark.
const char* wideEncodingOf(std::string_view start) {
  if (start.substr(0, 4) == std::string_view("\xff\xfe\0\0", 4) ||
      start.substr(0, 4) == std::string_view("\0\0\xfe\xff", 4))
    return "UTF-32";
  if (start.substr(0, 2) == "\xff\xfe" || start.substr(0, 2) == "\xfe\xff") return "UTF-16";
  return nullptr;
}

}  // namespace

std::u32string loadTextFile(const std::string& path) {
  auto fail = [&](const std::string& why) {
    throw std::runtime_error("corpus '" + path + "': " + why);
  };
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) fail("no such file");
  if (fs::is_directory(status)) fail("is a folder, not a text file");
  // A pipe would block the open until a writer came (no signal ends that wait), and a device
  // such as /dev/zero never ends: only a file has a size to read up to.
  if (!fs::is_regular_file(status)) fail("is not a regular file (a device, a pipe or a socket)");
  const auto size = fs::file_size(path, ec);
  if (ec) fail("cannot be read (" + ec.message() + ")");
  if (size == 0) fail("is empty");
  if (size > kMaxCorpusBytes)
    fail("is " + std::to_string((size + (1 << 20) - 1) >> 20) +
         " MiB; a character-level corpus may have at most " +
         std::to_string(kMaxCorpusBytes >> 20) +
         " MiB (it is held in memory, 4 bytes a character)");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot be read (permission denied?)");
  // Read in chunks, each checked as it comes: a binary file is refused at its first NUL byte
  // without reading the rest.
  std::string bytes;
  bytes.reserve(static_cast<size_t>(size));
  std::vector<char> chunk(1 << 20);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<size_t>(in.gcount());
    // UTF-16 and UTF-32 text starts with its byte-order mark and holds NUL bytes: named as
    // such, not as binary, with the command that makes it UTF-8.
    if (bytes.empty())
      if (const char* encoding = wideEncodingOf(std::string_view(chunk.data(), got)))
        fail(std::string("is ") + encoding +
             " text (its byte-order mark says so); FourierLab reads UTF-8: convert it with iconv "
             "-f " +
             encoding + " -t UTF-8 '" + path + "' > corpus-utf8.txt");
    if (const auto* nul = static_cast<const char*>(std::memchr(chunk.data(), '\0', got)))
      fail("is binary, not text (a NUL byte at offset " +
           std::to_string(bytes.size() + static_cast<size_t>(nul - chunk.data())) + ")");
    bytes.append(chunk.data(), got);
    if (bytes.size() > kMaxCorpusBytes) fail("grew past the size limit while being read");
  }
  if (in.bad()) fail("read error");
  // A UTF-8 byte-order mark (some editors write one) is not a character of the text.
  const size_t mark = bytes.rfind("\xef\xbb\xbf", 0) == 0 ? 3 : 0;
  bytes.erase(0, mark);
  if (bytes.empty()) fail("is empty");
  size_t bad = 0;
  auto decoded = decodeUtf8(bytes, &bad);
  if (!decoded)
    fail("is not UTF-8 text (invalid byte at offset " + std::to_string(bad + mark) + ")");
  return *decoded;
}

std::string tooFewCharacters(const std::string& source, size_t characters) {
  if (characters >= kMinLanguageModelCharacters) return {};
  return source + ": only " + std::to_string(characters) +
         (characters == 1 ? " character" : " characters") + "; a language model needs at least " +
         std::to_string(kMinLanguageModelCharacters);
}

CharVocabulary::CharVocabulary(const std::u32string& text, const std::u32string& extra) {
  std::set<char32_t> all(text.begin(), text.end());
  all.insert(extra.begin(), extra.end());
  for (char32_t c : all) {
    m_ids[c] = static_cast<int32_t>(m_chars.size());
    m_chars.push_back(c);
  }
}

int32_t CharVocabulary::id(char32_t c) const {
  auto it = m_ids.find(c);
  if (it == m_ids.end())
    throw std::invalid_argument("character '" + encodeUtf8(c) + "' is not in the vocabulary");
  return it->second;
}

std::vector<int32_t> CharVocabulary::encode(const std::u32string& text) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size());
  for (char32_t c : text) ids.push_back(id(c));
  return ids;
}

std::u32string CharVocabulary::decode(const std::vector<int32_t>& ids) const {
  std::u32string out;
  for (int32_t i : ids) out.push_back(character(i));
  return out;
}

}  // namespace fl::text
