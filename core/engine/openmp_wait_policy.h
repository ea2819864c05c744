// OpenMP's wait policy for this process. LibTorch and OpenBLAS share libgomp, whose idle
// threads spin (busy-wait) by default; with several runs on a few busy cores the spinning
// teams steal each other's time (a toy run was 8x slower with two OpenMP teams on two busy
// cores). PASSIVE makes idle threads sleep.
//
// libgomp reads OMP_WAIT_POLICY once, in its library constructor, before main() runs, and
// exports no way to change it later; nor does setting it from the executable's .preinit_array
// help (glibc hands the library constructors the original environment). So a program that
// trains starts itself again with the variable set: call ensurePassiveOpenMpWait() once it
// knows it will train, before training (the commands that only read the store skip the
// second start, which costs one more load of LibTorch).
//
// A user's own OMP_WAIT_POLICY is kept. If starting again fails, the program goes on as it was.
#pragma once

#include <string>

namespace fl {

void ensurePassiveOpenMpWait(char** argv);

// The policy this process runs with: "PASSIVE", what the user's environment said, or "default".
std::string openMpWaitPolicy();

}  // namespace fl
