#include "core/store/run_trainer.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/store/run_store.h"

namespace fl::store {

namespace {

// /proc/<pid>/cmdline with its NUL separators as spaces.
std::string commandLineOf(int64_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\0') text.pop_back();
  std::replace(text.begin(), text.end(), '\0', ' ');
  return text;
}

}  // namespace

std::optional<RunTrainer> trainerOf(const RunStore& store, int64_t runId) {
  const char* kTraining = "status IN ('running', 'queued')";
  auto asked = store.database().prepare(std::string("SELECT host, pid, pid_start FROM runs ") +
                                        "WHERE id = ? AND " + kTraining);
  asked.bind(1, runId);
  if (!asked.step()) return std::nullopt;
  RunTrainer trainer{{asked.text(0), asked.int64(1), asked.int64(2)}, {}, {}};
  auto runs = store.database().prepare(
      std::string("SELECT id FROM runs WHERE host = ? AND pid = ? AND pid_start = ? AND ") +
      kTraining + " ORDER BY id");
  runs.bind(1, trainer.process.host)
      .bind(2, trainer.process.pid)
      .bind(3, trainer.process.startTicks);
  while (runs.step()) trainer.runs.push_back(runs.int64(0));
  if (livenessOf(trainer.process) == Liveness::Alive)
    trainer.command = commandLineOf(trainer.process.pid);
  return trainer;
}

std::string cannotStop(const ProcessIdentity& process) {
  switch (livenessOf(process)) {
    case Liveness::Alive:
      return process.pid == currentProcess().pid ? "this window trains it" : "";
    case Liveness::Unknown:
      return "it trains on host " + process.host + ": stop it there (Ctrl-C, kill, scancel)";
    case Liveness::Dead:
      break;
  }
  return "its process (pid " + std::to_string(process.pid) + ") has ended";
}

std::string askToStop(const ProcessIdentity& process) {
  if (std::string why = cannotStop(process); !why.empty()) return why;
  if (::kill(static_cast<pid_t>(process.pid), SIGTERM) != 0)
    return "pid " + std::to_string(process.pid) +
           " could not be signalled: " + std::strerror(errno);
  return "";
}

}  // namespace fl::store
