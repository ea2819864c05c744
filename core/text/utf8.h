// UTF-8 decoding for the char-level corpora: one token per Unicode code point.
#pragma once

#include <optional>
#include <string>

namespace fl::text {

// Decodes `bytes`; on malformed input returns nullopt and sets `badOffset` to the byte offset
// of the first invalid sequence.
std::optional<std::u32string> decodeUtf8(const std::string& bytes, size_t* badOffset = nullptr);
std::string encodeUtf8(const std::u32string& text);
std::string encodeUtf8(char32_t c);

// Whether `text` shows nothing: empty, or spaces alone, Unicode's too (U+00A0, U+3000, the
// zero-width ones). A name of non-breaking spaces had passed as a name and listed as a blank.
// Text that is not UTF-8 is not blank (its check says what it is).
bool isBlank(const std::string& text);

}  // namespace fl::text
