// Comma-separated number lists in text parameters ("1,2,4,8", "2,2.5,5,10,100").
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fl::transformer_setup {

// Parses every item as a number and checks it with `accept` (which returns what is wrong, or
// nothing). The error names the offending item and shows `example`.
std::optional<std::string> checkNumberList(
    const std::string& text, const std::function<std::optional<std::string>(double)>& accept,
    const std::string& example);
// The numbers of a list that passed checkNumberList.
std::vector<double> parseNumberList(const std::string& text);

}  // namespace fl::transformer_setup
