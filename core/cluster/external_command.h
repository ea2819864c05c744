// Running a program (sbatch, squeue, sacct, scancel) and reading what it prints, without a
// shell and without Qt (core/ is Qt-free; the GUI calls the same functions).
//
//   CommandResult r = runCommand({"squeue", "-h", "-j", "42"}, 30000);
//   if (r.ok()) parse(r.out); else report(r.describe());
#pragma once

#include <string>
#include <vector>

namespace fl::cluster {

struct CommandResult {
  bool started = false;  // false: not found on the PATH or not executable (see error)
  bool timedOut = false;
  int exitCode = -1;  // -1 when it did not exit normally
  int signal = 0;     // the signal that ended it, when one did (and not our timeout's kill)
  std::string out;
  std::string err;
  std::string error;  // why it did not start or finish

  bool ok() const { return started && !timedOut && exitCode == 0; }
  // "sbatch: error: invalid partition specified: gpu (exit 1)"
  std::string describe(const std::string& program) const;
};

// argv[0] is looked up on the PATH. Killed (SIGKILL) after timeoutMs.
CommandResult runCommand(const std::vector<std::string>& argv, int timeoutMs = 60000);

// Whether `program` is an executable on the PATH.
bool onPath(const std::string& program);

}  // namespace fl::cluster
