// OpenMP's wait policy for this process. LibTorch and OpenBLAS share libgomp, whose idle
// threads spin (busy-wait) by default; with several runs on a few busy cores the spinning
// teams steal each other's time (a toy run was 8x slower with two OpenMP teams on two busy
// cores). PASSIVE makes idle threads sleep.
//
// libgomp reads OMP_WAIT_POLICY once, in its library constructor, before main() runs. A
// program that links this file sets it earlier still, from the executable's .preinit_array
// (which the dynamic loader runs before any shared library's constructors), unless the user set
// it. Programs call openMpWaitPolicy() (to show it), which also makes the linker keep the hook.
#pragma once

#include <string>

namespace fl {

// The policy this process runs with: "PASSIVE", or what the user's environment said.
std::string openMpWaitPolicy();

}  // namespace fl
