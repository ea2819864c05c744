#include "app/cli/option_checks.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>

#include "core/text/utf8.h"

namespace fl::cli {

CLI::Validator nonEmpty(const std::string& allowed) {
  return CLI::Validator(
      [allowed](std::string& value) {
        const bool blank = fl::text::isBlank(value);
        return blank ? (value.empty() ? "is empty; give " : "is blank; give ") + allowed
                     : std::string();
      },
      "", "non-empty");
}

void addStoreOption(CLI::App* command, std::string& db) {
  command->add_option("--db", db, "Run store file (default: $XDG_DATA_HOME/fourierlab/runs.db)")
      ->check(nonEmpty("a store file, or leave --db out for the default store"));
}

std::optional<std::string> emptyAfterEquals(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;
    if (word.size() > 3 && word.starts_with("--") && word.back() == '=' &&
        word.find('=') == word.size() - 1)
      return word.substr(0, word.size() - 1) + ": is empty (written '" + word +
             "'); give its value after the '=', or leave the option out";
  }
  return std::nullopt;
}

CLI::Validator wholeNumberIn(int64_t lowest, int64_t highest) {
  const std::string range = std::to_string(lowest) + " to " + std::to_string(highest);
  return CLI::Validator(
      [lowest, highest, range](std::string& value) {
        int64_t n = 0;
        const char* end = value.data() + value.size();
        const bool digits =
            !value.empty() && std::all_of(value.begin(), value.end(),
                                          [](unsigned char c) { return std::isdigit(c) != 0; });
        const auto [stop, error] = std::from_chars(value.data(), end, n);
        if (!digits || error != std::errc() || stop != end || n < lowest || n > highest)
          return "'" + value + "' is not a whole number from " + range;
        return std::string();
      },
      "INT in [" + std::to_string(lowest) + " - " + std::to_string(highest) + "]", "whole number");
}

CLI::Validator storeId() {
  return CLI::Validator(
      [](std::string& value) {
        int64_t id = 0;
        const char* end = value.data() + value.size();
        const auto [stop, error] = std::from_chars(value.data(), end, id);
        if (error == std::errc::result_out_of_range)
          return "'" + value + "' is past the largest id (" + std::to_string(INT64_MAX) +
                 "); ids are whole numbers from 1";
        if (error != std::errc() || stop != end || id < 1)
          return "'" + value + "' is not an id; ids are whole numbers from 1";
        return std::string();
      },
      "ID", "store id");
}

}  // namespace fl::cli
