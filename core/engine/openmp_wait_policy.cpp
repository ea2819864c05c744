#include "core/engine/openmp_wait_policy.h"

#include <unistd.h>

#include <cstdlib>

namespace fl {

void ensurePassiveOpenMpWait(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY")) return;  // the user's choice, or already started again
  if (setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: carry on with the default policy
}

std::string openMpWaitPolicy() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  return policy ? policy : "default";
}

}  // namespace fl
