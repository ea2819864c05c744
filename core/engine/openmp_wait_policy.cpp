#include "core/engine/openmp_wait_policy.h"

#include <cstdlib>

namespace fl {

namespace {

// Runs before libgomp's constructor reads the environment (see the header). Only setenv: the
// C library is initialised by then, nothing else is.
void setPassiveWaitPolicy(int, char**, char**) { setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0); }

__attribute__((section(".preinit_array"), used)) void (*const kPreinitHook)(int, char**, char**) =
    setPassiveWaitPolicy;

}  // namespace

std::string openMpWaitPolicy() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  return policy ? policy : "default";
}

}  // namespace fl
