#include "core/engine/available_cores.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace fl {

int availableCores() {
  int cores = 0;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) cores = CPU_COUNT(&set);
  if (cores <= 0) cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  if (const char* granted = std::getenv("SLURM_CPUS_PER_TASK")) {
    const int grant = std::atoi(granted);
    if (grant > 0) cores = std::min(cores > 0 ? cores : grant, grant);
  }
  return std::max(1, cores);
}

}  // namespace fl
