// Training throughput of the char-level transformer (experiments/fope) for the tiny and small
// presets: tokens/s and achieved matmul GFLOP/s, beside this machine's sgemm peak measured in
// the same process on the same threads, and the share of CPU time spent in the kernel (glibc
// mmap/munmap churn of per-step temporaries; see core/engine/allocator_tuning.h).
//
//   build/bench/bench_transformer [steps=20] [threads=all] [device=cpu]
//   FOURIERLAB_MALLOC_TUNING=0 build/bench/bench_transformer    # without the allocator tuning
//   build/bench/bench_transformer 20 0 cuda                      # on a GPU: its own matmul peak
#include <sys/resource.h>

#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <string>
#include <thread>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "bench/bench_common.h"
#include "core/engine/allocator_tuning.h"
#include "core/engine/registry.h"
#include "core/engine/seeding.h"
#include "experiments/fope/fope_experiment.h"
#include "experiments/fope/fope_trial.h"

namespace {

double cpuSeconds(const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; }

struct Usage {
  double user = 0, system = 0;
  static Usage now() {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    return {cpuSeconds(r.ru_utime), cpuSeconds(r.ru_stime)};
  }
};

// The device's float matmul rate: n x n x n products, synchronised by reading one element.
double matmulPeakGflops(const c10::Device& device, int n) {
  if (device.is_cpu()) return fl::bench::measureSgemmGflops(n);
  auto a = torch::randn({n, n}, torch::TensorOptions().device(device));
  auto b = torch::randn({n, n}, torch::TensorOptions().device(device));
  auto c = torch::mm(a, b);
  c[0][0].item<float>();
  const int repeats = 50;
  const double seconds = fl::bench::secondsPerCall(
      [&] {
        for (int i = 0; i < repeats; ++i) torch::mm_out(c, a, b);
        c[0][0].item<float>();
      },
      1, 3);
  return 2.0 * n * n * n * repeats / seconds / 1e9;
}

void benchPreset(const std::string& preset, const std::string& position, int steps, double peak,
                 const c10::Device& device) {
  fl::fope::FopeExperiment experiment;
  std::vector<std::string> assignments{"position=" + position, "passkey_mix=0"};
  if (std::filesystem::exists(FOURIERLAB_BENCH_CORPUS))
    assignments.push_back(std::string("corpus=") + FOURIERLAB_BENCH_CORPUS);
  auto config = fl::buildConfig(experiment, preset, assignments);
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", config.summary().c_str());
    std::exit(2);
  }
  const auto settings = fl::fope::FopeSettings::fromConfig(config.values);
  std::unique_ptr<fl::fope::FopeTrial> trial;
  {
    fl::SeededScope seeded(1);
    trial = std::make_unique<fl::fope::FopeTrial>(settings, device, 1);
  }
  int64_t step = 0;
  for (int i = 0; i < 3; ++i) trial->trainStep(step++);  // warm-up: allocator, thread pool
  const auto before = Usage::now();
  const double seconds = fl::bench::secondsPerCall([&] { trial->trainStep(step++); }, steps, 1);
  const auto after = Usage::now();
  const double tokens = static_cast<double>(settings.lm.training.batchSize * settings.lm.trainLength);
  const double flops = trial->model()->trainingFlopsPerToken(settings.lm.trainLength) * tokens;
  const double gflops = flops / seconds / 1e9;
  const double cpu = (after.user - before.user) + (after.system - before.system);
  std::printf("%-6s %-5s %6.1fM params  %8.1f ms/step  %9.0f tokens/s  %6.1f GFLOP/s  %4.0f%% of "
              "sgemm peak  kernel %4.1f%% of CPU time\n",
              preset.c_str(), position.c_str(), trial->model()->parameterCount() / 1e6,
              seconds * 1e3, tokens / seconds, gflops, 100.0 * gflops / peak,
              cpu > 0 ? 100.0 * (after.system - before.system) / cpu : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 20;
  if (argc > 2 && std::atoi(argv[2]) > 0) at::set_num_threads(std::atoi(argv[2]));
  else at::set_num_threads(static_cast<int>(std::thread::hardware_concurrency()));
  const c10::Device device(argc > 3 ? argv[3] : "cpu");
  const auto tuning = fl::keepLargeAllocationsInHeap();
  fl::bench::printEnvironment("bench_transformer");
  std::printf("allocator tuning: %s\n",
              tuning.applied ? ("mmap threshold " + std::to_string(tuning.mmapThreshold >> 20) +
                                " MiB, trim threshold " + std::to_string(tuning.trimThreshold >> 20) + " MiB")
                                   .c_str()
                             : "off (glibc defaults)");
  std::printf("corpus: %s\n", std::filesystem::exists(FOURIERLAB_BENCH_CORPUS)
                                  ? FOURIERLAB_BENCH_CORPUS
                                  : "built-in structured text (set FOURIERLAB_BENCH_CORPUS)");
  const int n = device.is_cpu() ? 1024 : 8192;
  const double peak = matmulPeakGflops(device, n);
  std::printf("device %s, threads %d, float matmul %d^3 peak %.1f GFLOP/s\n\n",
              device.str().c_str(), at::get_num_threads(), n, peak);
  std::vector<const char*> presets{"tiny", "small"};
  if (!device.is_cpu()) presets.push_back("paper-60m");
  for (const char* preset : presets)
    for (const char* position : {"rope", "fope"}) benchPreset(preset, position, steps, peak, device);
  return 0;
}
