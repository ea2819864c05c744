#include "core/text/char_corpus.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/text/utf8.h"

namespace fl::text {

namespace fs = std::filesystem;

std::u32string loadTextFile(const std::string& path) {
  auto fail = [&](const std::string& why) {
    throw std::runtime_error("corpus '" + path + "': " + why);
  };
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) fail("no such file");
  if (fs::is_directory(status)) fail("is a folder, not a text file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot be read (permission denied?)");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) fail("read error");
  const std::string bytes = buffer.str();
  if (bytes.empty()) fail("is empty");
  if (const auto nul = bytes.find('\0'); nul != std::string::npos)
    fail("is binary, not text (a NUL byte at offset " + std::to_string(nul) + ")");
  size_t bad = 0;
  auto decoded = decodeUtf8(bytes, &bad);
  if (!decoded) fail("is not UTF-8 text (invalid byte at offset " + std::to_string(bad) + ")");
  return *decoded;
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
