#include "app/cli/confirm.h"

#include <unistd.h>

#include <cstdio>

namespace fl::cli {

bool confirmedDeletion(const std::string& question, bool yes) {
  if (yes || isatty(STDIN_FILENO) == 0) return true;
  std::fprintf(stderr, "%s [y/N] ", question.c_str());
  std::fflush(stderr);
  std::string answer;
  for (int c = std::getchar(); c != EOF && c != '\n'; c = std::getchar())
    answer += static_cast<char>(c);
  if (answer == "y" || answer == "Y" || answer == "yes") return true;
  std::fprintf(stderr, "nothing deleted\n");
  return false;
}

}  // namespace fl::cli
