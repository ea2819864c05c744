// Training throughput of the char-level transformers at the presets' shapes and the papers':
// tokens/s and achieved matmul GFLOP/s beside this machine's sgemm peak measured in the
// same process on the same threads, peak resident memory, and the share of CPU time spent in
// the kernel (mmap/munmap churn of per-step temporaries; see core/engine/allocator_tuning.h).
//
//   build/bench/bench_transformer [steps] [threads] [device] [--cases A,B] [--kernels K,K]
//                                 [--profile] [--list]
//     steps      timed steps per case (default 0: each case's own, a few after its warm-up)
//     threads    intra-op threads (default 0: all)
//     --cases    run the cases whose names contain one of these (e.g. --cases qk-b64,60m)
//     --kernels  how to run each case, alternating: on the CPU the attention kernel, blocked
//                (the default) and/or plain (FOURIERLAB_ATTENTION=plain, the T x T
//                implementation); on a GPU graph (each step's forward and backward one CUDA
//                graph, captured_loss_step.h) and/or eager (FOURIERLAB_CUDA_GRAPHS=0)
//     --profile  after the timed steps, one more step under the autograd profiler: the ops
//                with the most self CPU time; on a GPU, the kernels with the most device time
//   FOURIERLAB_MALLOC_TUNING=0 build/bench/bench_transformer   # without the allocator tuning
//   build/bench/bench_transformer 20 0 cuda                     # on a GPU: its own matmul peak
//
// Each case runs in a child process (this binary again), so its peak resident memory is its
// own; its sgemm peak is measured in that child, just before its steps. On a GPU the timed
// steps are one interval between two device synchronisations (a step returns before the device
// has run it): the "ms/step" is their mean.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include "bench/bench_common.h"
#include "core/engine/allocator_tuning.h"
#include "core/engine/captured_loss_step.h"
#include "core/engine/parallel_team.h"
#include "core/engine/registry.h"
#include "core/engine/seeding.h"
#include "experiments/char_lm/char_lm_trial.h"
#include "experiments/fope/fope_experiment.h"
#include "experiments/fourier_qk/fourier_qk_experiment.h"

namespace {

struct BenchCase {
  std::string name;
  std::string experiment;  // fope | fourier-qk
  std::string preset;
  std::vector<std::string> sets;
  int steps = 5;   // timed steps unless the command line says otherwise
  int warmup = 1;  // untimed steps first: allocator, thread pool, caches
  bool cpu = true, gpu = true;
};

// The presets' shapes and the papers' (fourier-qk's `paper`: the author's 6 layers, 8 heads,
// width 256, block 256, dropout 0.1; fope's `paper-60m`: 8 layers, width 512, T 512), the
// latter at batches a CPU finishes in seconds to a minute per step.
std::vector<BenchCase> allCases() {
  std::vector<BenchCase> cases;
  for (const char* position : {"rope", "fope"}) {
    const std::string p = position;
    cases.push_back({"tiny/" + p, "fope", "tiny", {"position=" + p, "passkey_mix=0"}, 20, 3});
    cases.push_back({"small/" + p, "fope", "small", {"position=" + p, "passkey_mix=0"}, 5, 2});
  }
  for (const char* batch : {"8", "64"}) {
    for (const char* variant : {"none", "fourier", "gaussian"}) {
      const bool big = std::string(batch) == "64";
      cases.push_back({std::string("qk-b") + batch + "/" + variant,
                       "fourier-qk",
                       "paper",
                       {std::string("batch_size=") + batch, std::string("variant=") + variant},
                       big ? 2 : 4,
                       1,
                       /*cpu=*/true,
                       /*gpu=*/big});
    }
  }
  // The paper's model at a width, length and batch whose kernels cost next to nothing: the same
  // ops as at the paper's shape, so a step's time is the host's share (dispatch, autograd,
  // allocation), the part a GPU cannot hide when a step is made of many small ops.
  for (const char* variant : {"none", "fourier", "gaussian"}) {
    cases.push_back({std::string("qk-host/") + variant,
                     "fourier-qk",
                     "paper",
                     {"batch_size=1", "train_len=32", "d_model=64", "dropout=0",
                      std::string("variant=") + variant},
                     50,
                     5});
  }
  for (const char* position : {"rope", "fope"}) {
    const std::string p = position;
    cases.push_back({"60m-b4/" + p,
                     "fope",
                     "paper-60m",
                     {"position=" + p, "passkey_mix=0", "batch_size=4"},
                     2,
                     1,
                     /*cpu=*/true,
                     /*gpu=*/false});
    cases.push_back({"60m/" + p,
                     "fope",
                     "paper-60m",
                     {"position=" + p, "passkey_mix=0"},
                     20,
                     3,
                     /*cpu=*/false,
                     /*gpu=*/true});
  }
  return cases;
}

double cpuSeconds(const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; }

struct Usage {
  double user = 0, system = 0;
  static Usage now() {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    return {cpuSeconds(r.ru_utime), cpuSeconds(r.ru_stime)};
  }
};

// A line of /proc/self/status in MiB (VmRSS: resident now, VmHWM: its peak), 0 if unknown.
double statusMiB(const std::string& key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(key + ":", 0) == 0) return std::atof(line.c_str() + key.size() + 1) / 1024.0;
  return 0;
}

// Restarts VmHWM from the current resident size (Linux: write 5 to clear_refs).
void resetPeakResident() { std::ofstream("/proc/self/clear_refs") << "5"; }

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

std::shared_ptr<const fl::Experiment> experimentNamed(const std::string& name) {
  if (name == "fope") return std::make_shared<fl::fope::FopeExperiment>();
  return std::make_shared<fl::fourier_qk::FourierQkExperiment>();
}

// Time and calls per op (or kernel) name over one step, printed largest first.
struct ProfileTable {
  struct Total {
    double us = 0;
    int64_t calls = 0;
  };
  std::map<std::string, Total> totals;

  void add(const std::string& name, double us) {
    auto& total = totals[name];
    total.us += us;
    total.calls += 1;
  }
  // `allUs`: what the shares are of; `rows` largest, `msFormat` (e.g. "%8.1f") for times.
  void print(double allUs, size_t rows, const char* msFormat) const {
    std::vector<std::pair<std::string, Total>> sorted(totals.begin(), totals.end());
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& a, const auto& b) { return a.second.us > b.second.us; });
    for (size_t i = 0; i < std::min(rows, sorted.size()); ++i) {
      std::printf("    ");
      std::printf(msFormat, sorted[i].second.us / 1e3);
      std::printf(" ms %5.1f%%  %6lld calls  %s\n",
                  100.0 * sorted[i].second.us / std::max(allUs, 1.0),
                  static_cast<long long>(sorted[i].second.calls), sorted[i].first.c_str());
    }
  }
};

// The ops with the most self CPU time in one step (the legacy autograd profiler: ranges are
// pushed and popped per thread; self time = a range's time minus its children's).
template <typename Step>
void printProfile(Step&& step) {
  using namespace torch::autograd::profiler;
  enableProfilerLegacy(
      torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::CPU));
  step();
  const auto lists = disableProfilerLegacy();
  ProfileTable table;
  double allUs = 0;
  for (const auto& events : lists) {
    struct Open {
      const LegacyEvent* event;
      double childUs;
    };
    std::vector<Open> stack;
    for (const auto& e : events) {
      if (e.kind() == EventKind::PushRange) {
        stack.push_back({&e, 0.0});
      } else if (e.kind() == EventKind::PopRange && !stack.empty()) {
        const auto open = stack.back();
        stack.pop_back();
        const double us = open.event->cpuElapsedUs(e);
        table.add(open.event->name(), us - open.childUs);
        if (stack.empty())
          allUs += us;
        else
          stack.back().childUs += us;
      }
    }
  }
  std::printf("    profile of one step: %.0f ms in top-level ops\n", allUs / 1e3);
  table.print(allUs, 15, "%8.1f");
}

// The kernels with the most device time in one step (Kineto's CUDA activity records),
// grouped by kernel name.
template <typename Step>
void printDeviceProfile(Step&& step) {
  using torch::profiler::impl::ActivityType;
  const torch::profiler::impl::ProfilerConfig config(torch::profiler::impl::ProfilerState::KINETO);
  const std::set<ActivityType> activities{ActivityType::CPU, ActivityType::CUDA};
  std::unique_ptr<torch::autograd::profiler::ProfilerResult> result;
  try {
    torch::cuda::synchronize();
    torch::autograd::profiler::prepareProfiler(config, activities);
    torch::autograd::profiler::enableProfiler(config, activities);
    step();
    torch::cuda::synchronize();
    result = torch::autograd::profiler::disableProfiler();
  } catch (const std::exception& e) {
    std::printf("    no device profile: %s\n", e.what());
    return;
  }
  ProfileTable table;
  double allUs = 0;
  for (const auto& e : result->events()) {
    if (e.deviceType() != c10::DeviceType::CUDA) continue;
    const double us = static_cast<double>(e.durationNs()) / 1e3;
    table.add(e.name().substr(0, 110), us);
    allUs += us;
  }
  std::printf("    device profile of one step: %.2f ms of kernels and copies\n", allUs / 1e3);
  table.print(allUs, 25, "%8.3f");
}

// Runs one case in this process and prints its line.
int runCase(const BenchCase& c, int steps, const c10::Device& device, bool profile) {
  auto experiment = experimentNamed(c.experiment);
  auto assignments = c.sets;
  if (std::filesystem::exists(FOURIERLAB_BENCH_CORPUS))
    assignments.push_back(std::string("corpus=") + FOURIERLAB_BENCH_CORPUS);
  auto config = fl::buildConfig(*experiment, c.preset, assignments);
  if (!config.ok()) {
    std::fprintf(stderr, "%s: %s\n", c.name.c_str(), config.summary().c_str());
    return 2;
  }
  std::unique_ptr<fl::Trial> trial;
  {
    fl::SeededScope seeded(1);
    trial = experiment->createTrial({config.values, device, 1});
  }
  auto* lm = dynamic_cast<fl::char_lm::CharLmTrial*>(trial.get());
  const int64_t batch = config.values.at("batch_size").get<int64_t>();
  const int64_t length = config.values.at("train_len").get<int64_t>();
  const double peak = matmulPeakGflops(device, device.is_cpu() ? 1024 : 8192);

  const double residentBefore = statusMiB("VmRSS");
  resetPeakResident();
  int64_t step = 0;
  for (int i = 0; i < c.warmup; ++i) trial->trainStep(step++);
  const int timed = steps > 0 ? steps : c.steps;
  std::vector<double> seconds;
  const auto before = Usage::now();
  if (device.is_cuda()) {
    torch::cuda::synchronize();
    const double all = fl::bench::secondsPerCall(
        [&] {
          for (int i = 0; i < timed; ++i) trial->trainStep(step++);
          torch::cuda::synchronize();
        },
        1, 1);
    seconds.push_back(all / timed);
  } else {
    for (int i = 0; i < timed; ++i)
      seconds.push_back(fl::bench::secondsPerCall([&] { trial->trainStep(step++); }, 1, 1));
  }
  const auto after = Usage::now();
  const double peakResident = statusMiB("VmHWM");

  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  const double tokens = static_cast<double>(batch * length);
  const double gflops = lm->model()->trainingFlopsPerToken(length) * tokens / median / 1e9;
  const double cpu = (after.user - before.user) + (after.system - before.system);
  const bool blocked =
      device.is_cpu() && fl::nn::defaultAttentionKernel() == fl::nn::AttentionKernel::Blocked;
  const bool graph = lm->lossStep().isGraph();
  const char* kernel = device.is_cpu() ? (blocked ? "blocked" : "plain")
                       : graph         ? "graph"
                                       : "eager";
  std::printf("%-15s %-7s %5.1fM %9.0f %8.0f %6.1f %5.0f%% %6.1f %7.0f %7.0f %5.1f%%\n",
              c.name.c_str(), kernel, lm->model()->parameterCount() / 1e6, median * 1e3,
              tokens / median, gflops, 100.0 * gflops / peak, peak, peakResident,
              peakResident - residentBefore,
              cpu > 0 ? 100.0 * (after.system - before.system) / cpu : 0.0);
  if (!device.is_cpu() && !graph) std::printf("    eager: %s\n", lm->lossStep().reason().c_str());
  std::fflush(stdout);
  if (profile) printProfile([&] { trial->trainStep(step++); });
  if (profile && device.is_cuda()) printDeviceProfile([&] { trial->trainStep(step++); });
  std::fflush(stdout);
  return 0;
}

// Runs the case in a child process (this binary with --child) with the given kernel.
int runChild(const std::string& self, const std::string& name, const std::string& kernel,
             const std::vector<std::string>& common) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (kernel == "eager")
      setenv("FOURIERLAB_CUDA_GRAPHS", "0", 1);
    else if (kernel != "graph")
      setenv("FOURIERLAB_ATTENTION", kernel.c_str(), 1);
    std::vector<std::string> args{self, "--child", name};
    args.insert(args.end(), common.begin(), common.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    std::perror("exec");
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

std::vector<std::string> splitCommas(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ','))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> positional, filters, kernels{"blocked"};
  std::string child;
  bool profile = false, list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--cases" && i + 1 < argc)
      filters = splitCommas(argv[++i]);
    else if (a == "--kernels" && i + 1 < argc)
      kernels = splitCommas(argv[++i]);
    else if (a == "--child" && i + 1 < argc)
      child = argv[++i];
    else if (a == "--profile")
      profile = true;
    else if (a == "--list")
      list = true;
    else
      positional.push_back(a);
  }
  for (const auto& k : kernels)
    if (k != "blocked" && k != "plain" && k != "graph" && k != "eager") {
      std::fprintf(stderr, "unknown kernel '%s' (blocked, plain; on a GPU graph, eager)\n",
                   k.c_str());
      return 2;
    }
  const int steps = positional.size() > 0 ? std::atoi(positional[0].c_str()) : 0;
  const int threads = positional.size() > 1 ? std::atoi(positional[1].c_str()) : 0;
  const std::string deviceName = positional.size() > 2 ? positional[2] : "cpu";
  at::set_num_threads(threads > 0 ? threads
                                  : static_cast<int>(std::thread::hardware_concurrency()));
  const c10::Device device(deviceName);
  const auto cases = allCases();

  if (!child.empty()) {
    fl::keepLargeAllocationsInHeap();
    for (const auto& c : cases)
      if (c.name == child) return runCase(c, steps, device, profile);
    std::fprintf(stderr, "no case '%s'\n", child.c_str());
    return 2;
  }

  std::vector<const BenchCase*> selected;
  for (const auto& c : cases) {
    if (!(device.is_cpu() ? c.cpu : c.gpu)) continue;
    const bool wanted =
        filters.empty() || std::any_of(filters.begin(), filters.end(), [&](const auto& f) {
          return c.name.find(f) != std::string::npos;
        });
    if (wanted) selected.push_back(&c);
  }
  if (list) {
    for (const auto* c : selected) std::printf("%s\n", c->name.c_str());
    return 0;
  }
  const auto tuning = fl::keepLargeAllocationsInHeap();
  fl::bench::printEnvironment("bench_transformer");
  std::printf("allocator tuning: %s\n",
              tuning.applied
                  ? ("mmap threshold " + std::to_string(tuning.mmapThreshold >> 20) +
                     " MiB, trim threshold " + std::to_string(tuning.trimThreshold >> 20) + " MiB")
                        .c_str()
                  : "off (glibc defaults)");
  std::printf("large CPU blocks: %s\n", tuning.cachingAllocator
                                            ? "cached between steps (caching_cpu_allocator.h)"
                                            : "from malloc (FOURIERLAB_BLOCK_CACHE=0)");
  std::printf("corpus: %s\n", std::filesystem::exists(FOURIERLAB_BENCH_CORPUS)
                                  ? FOURIERLAB_BENCH_CORPUS
                                  : "built-in structured text (set FOURIERLAB_BENCH_CORPUS)");
  std::printf(
      "device %s, threads %d (at::parallel_for in our kernels: %d); GFLOP/s counts the matmuls "
      "over the full T x T (model FLOPs)\n",
      device.str().c_str(), at::get_num_threads(), fl::parallelForTeamSize());
  std::printf(
      "peak: float matmul %s^3 GFLOP/s measured in each case's process; RSS in MiB, "
      "+train: its rise over the model and data\n\n",
      device.is_cpu() ? "1024" : "8192");
  std::printf("%-15s %-7s %6s %9s %8s %6s %6s %6s %7s %7s %6s\n", "case", "kernel", "params",
              "ms/step", "tokens/s", "GFLOP/s", "of", "peak", "RSS", "+train", "kernel");
  std::fflush(stdout);
  const std::vector<std::string> common{std::to_string(steps), std::to_string(threads), deviceName};
  auto childArgs = common;
  if (profile) childArgs.push_back("--profile");
  int failures = 0;
  for (const auto* c : selected)
    for (const auto& kernel : kernels)
      failures += runChild(argv[0], c->name, kernel, childArgs) != 0;
  return failures == 0 ? 0 : 1;
}
