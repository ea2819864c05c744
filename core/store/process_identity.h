// Identifies the process that writes a run, so that a later process can tell whether a run
// still marked `running` has really lost its writer: same host, and a process with that pid
// that started at the same time (pids are reused).
#pragma once

#include <cstdint>
#include <string>

namespace fl::store {

struct ProcessIdentity {
  std::string host;
  int64_t pid = 0;
  int64_t startTicks = 0;  // field 22 of /proc/<pid>/stat
};

ProcessIdentity currentProcess();

enum class Liveness { Alive, Dead, Unknown };  // Unknown: written on another host

Liveness livenessOf(const ProcessIdentity& process);

}  // namespace fl::store
