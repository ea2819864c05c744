// OpenMP's wait policy for this process. LibTorch and OpenBLAS share libgomp, whose idle
// threads spin (busy-wait) by default; with several runs on a few busy cores the spinning
// teams steal each other's time (a toy run was 8x slower with two OpenMP teams on two busy
// cores). PASSIVE makes idle threads sleep. libgomp reads OMP_WAIT_POLICY once, when the
// library loads, before main() runs, so the only way to set it from inside is to start the
// program again with it set: call this first thing in main().
//
//   int main(int argc, char** argv) { fl::ensurePassiveOpenMpWait(argv); ... }
//
// A user's own OMP_WAIT_POLICY is kept. If re-executing fails, the program goes on as it was.
#pragma once

namespace fl {

void ensurePassiveOpenMpWait(char** argv);

}  // namespace fl
