// The fourierlab-cli subcommands. Each returns the process exit code; main() only parses.
#pragma once

#include <string>
#include <vector>

#include "core/engine/registry.h"

namespace fl::cli {

// Exit codes, as documented in the README and `fourierlab-cli --help`.
enum ExitCode : int {
  kExitOk = 0,
  kExitRunFailed = 1,
  kExitBadUsage = 2,  // bad arguments or config: the message names the key
  kExitStoreError = 3,
  kExitCancelled = 130,  // a clean cancel after Ctrl-C (128 + SIGINT)
};

struct RunArgs {
  std::string experiment;
  std::string preset;
  std::vector<std::string> assignments;  // --set KEY=VALUE, in order
  std::string device;                    // --device, applied after the assignments
  bool json = false;
  int threads = 0;
};

int listCommand(const ExperimentRegistry& registry, bool json);
int runCommand(const ExperimentRegistry& registry, const RunArgs& args);

}  // namespace fl::cli
