#include "experiments/common/number_list.h"

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "core/engine/param_spec.h"

namespace fl::transformer_setup {

std::optional<std::string> checkNumberList(
    const std::string& text, const std::function<std::optional<std::string>(double)>& accept,
    const std::string& example) {
  std::stringstream in(text);
  std::string item;
  std::set<double> seen;
  int count = 0;
  while (std::getline(in, item, ',')) {
    // Spaces around an item are fine ("1, 2"); the number itself is strict decimal, finite.
    const auto first = item.find_first_not_of(' ');
    const auto last = item.find_last_not_of(' ');
    const std::string number =
        first == std::string::npos ? "" : item.substr(first, last - first + 1);
    const double value = isDecimalNumber(number) ? std::strtod(number.c_str(), nullptr) : NAN;
    if (!std::isfinite(value)) return "'" + item + "' is not a number; expected e.g. " + example;
    if (auto why = accept(value)) return "'" + item + "' " + *why + "; expected e.g. " + example;
    // A value twice stands for nothing more (a length evaluated once, a period planted once),
    // and made two names of one config: refused as a study's axis refuses one.
    if (!seen.insert(value).second) return "'" + number + "' is given twice";
    ++count;
  }
  if (count == 0) return "expected a comma-separated list such as " + example;
  return std::nullopt;
}

std::vector<double> parseNumberList(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::stod(item));
  return out;
}

}  // namespace fl::transformer_setup
