#include "app/cli/unknown_subcommand.h"

#include <algorithm>
#include <vector>

namespace fl::cli {

namespace {

// Letters to insert, delete or change to turn one word into the other.
size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string unknownSubcommand(const CLI::App& app) {
  // The deepest command given: each level's parsed subcommand, while it has one.
  const CLI::App* level = &app;
  std::string path = "fourierlab-cli";
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (const CLI::App* sub : level->get_subcommands({})) {
      if (sub->parsed()) {
        level = sub;
        path += " " + sub->get_name();
        deeper = true;
        break;
      }
    }
  }
  const auto subcommands = level->get_subcommands({});
  if (subcommands.empty()) return "";
  // The word CLI11 could not place: the first left over that is not an option (a command's
  // leftovers fall through to the commands above it).
  std::string word;
  for (const std::string& left : app.remaining(/*recurse=*/true))
    if (!left.empty() && left[0] != '-') {
      word = left;
      break;
    }
  if (word.empty()) return "";
  std::string names, closest;
  size_t closestDistance = 3;  // a typo, not another word
  for (const CLI::App* sub : subcommands) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    if (const size_t d = editDistance(word, sub->get_name()); d < closestDistance) {
      closestDistance = d;
      closest = sub->get_name();
    }
  }
  return "'" + word + "' is not a command of `" + path + "`" +
         (closest.empty() ? "" : " (did you mean " + closest + "?)") + "; it has: " + names;
}

}  // namespace fl::cli
