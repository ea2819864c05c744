#include "experiments/common/number_list.h"

#include <sstream>

namespace fl::transformer_setup {

std::optional<std::string> checkNumberList(
    const std::string& text, const std::function<std::optional<std::string>(double)>& accept,
    const std::string& example) {
  std::stringstream in(text);
  std::string item;
  int count = 0;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    double value = 0;
    try {
      value = std::stod(item, &used);
    } catch (...) {
      used = 0;
    }
    while (used < item.size() && item[used] == ' ') ++used;
    if (used == 0 || used != item.size()) return "'" + item + "' is not a number; expected e.g. " + example;
    if (auto why = accept(value)) return "'" + item + "' " + *why + "; expected e.g. " + example;
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
