#include "bench/bench_common.h"

#include <cstdio>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "core/engine/build_info.h"

namespace fl::bench {

double measureSgemmGflops(int n) {
  auto a = torch::randn({n, n});
  auto b = torch::randn({n, n});
  auto c = torch::empty({n, n});
  torch::mm_out(c, a, b);  // warm-up: thread pool, caches
  const double seconds = secondsPerCall([&] { torch::mm_out(c, a, b); }, 10);
  return 2.0 * n * n * n / seconds / 1e9;
}

void printEnvironment(const std::string& benchName) {
  const auto info = currentBuildInfo();
  std::printf("# %s\n", benchName.c_str());
  std::printf("libtorch %s, BLAS %s\n", info.torchVersion.c_str(), info.blasLibrary.c_str());
  std::printf("host %s, %d hardware threads, LibTorch default %d intra-op threads\n",
              info.host.c_str(), static_cast<int>(std::thread::hardware_concurrency()),
              at::get_num_threads());
}

}  // namespace fl::bench
