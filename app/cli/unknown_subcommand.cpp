#include "app/cli/unknown_subcommand.h"

#include <vector>

#include "core/engine/closest_name.h"

namespace fl::cli {

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
  std::string names;
  std::vector<std::string> candidates;
  for (const CLI::App* sub : subcommands) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    candidates.push_back(sub->get_name());
  }
  const std::string closest = closestName(word, candidates);
  return "'" + word + "' is not a command of `" + path + "`" +
         (closest.empty() ? "" : " (did you mean " + closest + "?)") + "; it has: " + names;
}

}  // namespace fl::cli
