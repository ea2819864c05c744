// Shared by the benchmarks: what BLAS LibTorch really calls and how fast it multiplies
// matrices here, measured in the same process and on the same threads as the figures beside it.
#pragma once

#include <chrono>
#include <string>

namespace fl::bench {

// Median-free, simple: best of `repeats` timings of `iterations` calls, in seconds per call.
template <typename F>
double secondsPerCall(F&& f, int iterations, int repeats = 5) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) f();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s / iterations);
  }
  return best;
}

// sgemm rate in GFLOP/s for n x n x n float matrices on the current thread count.
double measureSgemmGflops(int n = 512);

// Prints the loaded BLAS library, LibTorch version, threads and the sgemm rate.
void printEnvironment(const std::string& benchName);

}  // namespace fl::bench
