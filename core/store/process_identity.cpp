#include "core/store/process_identity.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace fl::store {

namespace {

std::string hostName() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  return host;
}

// The process start time in clock ticks since boot, or -1 when there is no such process.
int64_t startTicksOf(int64_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return -1;
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 3 && (field == "Z" || field == "X")) return -1;  // killed, not yet reaped
    if (i == 22) return std::stoll(field);
  }
  return -1;
}

}  // namespace

ProcessIdentity currentProcess() {
  const int64_t pid = getpid();
  return {hostName(), pid, startTicksOf(pid)};
}

Liveness livenessOf(const ProcessIdentity& process) {
  if (process.host != hostName()) return Liveness::Unknown;
  const int64_t ticks = startTicksOf(process.pid);
  if (ticks < 0 || ticks != process.startTicks) return Liveness::Dead;
  return Liveness::Alive;
}

}  // namespace fl::store
