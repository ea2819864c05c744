#include "app/cli/next_command.h"

#include <filesystem>

#include "core/store/run_store.h"

namespace fl::cli {

namespace {

namespace fs = std::filesystem;

bool isDefaultStore(const std::string& path) {
  return path.empty() || fs::absolute(path).lexically_normal() ==
                             fs::absolute(store::RunStore::defaultPath()).lexically_normal();
}

// A path as a POSIX shell reads it back: bare when it has only safe characters, else in single
// quotes (a quote inside written as '\'').
std::string shellWord(const std::string& text) {
  const bool safe =
      !text.empty() && text.find_first_not_of(
                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
                           "KLMNOPQRSTUVWXYZ0123456789_-.,/+:=@%") == std::string::npos;
  if (safe) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace

std::string nextCommand(const std::string& words, const std::string& dbPath) {
  std::string command = "fourierlab-cli " + words;
  if (!isDefaultStore(dbPath)) command += " --db " + shellWord(dbPath);
  return command;
}

}  // namespace fl::cli
