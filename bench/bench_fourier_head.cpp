// Training throughput of the Fourier head paper's toy benchmark, per head, on 1 thread and on
// all threads: samples/s and microseconds per optimisation step, through the real Trial (what
// fourierlab-cli runs), and a breakdown of one step into its phases for the Fourier head.
// Then the batched mode (how a study's runs of one shape train): K runs of the default config
// trained as one BatchedFourierHeadProgram, on 1 thread, beside the single runs of the same
// process: time per model-step (one optimisation step of one run), model-steps per second per
// core, and the user/kernel split of the CPU time (getrusage); and an evaluation's time per run.
//
// With --device D, only groups stepped by tensor ops on D (a GPU's path: the state on the
// device, a step recorded as a CUDA graph where it can be), timed between two reads of a loss,
// which wait for the device.
//
//   build/bench/bench_fourier_head [steps] [--batched]   (--batched: only the batched table)
//   build/bench/bench_fourier_head [steps] --device cuda
#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <thread>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "bench/bench_common.h"
#include "core/engine/registry.h"
#include "core/engine/seeding.h"
#include "core/optim/flat_adam.h"
#include "experiments/builtin_experiments.h"
#include "experiments/fourier_head/batched_fourier_head_program.h"
#include "experiments/fourier_head/fourier_head_trial.h"

namespace {

using fl::fourier_head::BatchedFourierHeadProgram;
using fl::fourier_head::BatchedMember;
using fl::fourier_head::FourierHeadTrial;
using fl::fourier_head::ToyBenchmarkSettings;

ToyBenchmarkSettings settingsFor(const std::string& head) {
  fl::ExperimentRegistry registry;
  fl::registerBuiltinExperiments(registry);
  auto config = fl::buildConfig(*registry.find("fourier-head"), "", {"head=" + head});
  return ToyBenchmarkSettings::fromConfig(config.values);
}

// A single run of `head`, seeded and warmed up by 200 steps; `step` is its next step index.
std::unique_ptr<FourierHeadTrial> warmedUpTrial(const std::string& head, int64_t& step) {
  std::unique_ptr<FourierHeadTrial> trial;
  {
    fl::SeededScope seeded(1);
    trial = std::make_unique<FourierHeadTrial>(settingsFor(head), torch::kCPU, 1);
  }
  step = 0;
  for (int i = 0; i < 200; ++i) trial->trainStep(step++);
  return trial;
}

// End to end: FourierHeadTrial::trainStep, batch gather to optimiser step.
double microsPerStep(const std::string& head, int steps) {
  int64_t step = 0;
  auto trial = warmedUpTrial(head, step);
  const double s = fl::bench::secondsPerCall([&] { trial->trainStep(step++); }, steps, 3);
  return s * 1e6;
}

// The same step taken apart, to show where the time goes.
void phaseBreakdown(int steps) {
  const auto settings = settingsFor("fourier");
  torch::manual_seed(1);
  fl::fourier_head::ToyRegressor model(fl::fourier_head::makeHead(settings));
  fl::optim::FlatAdam adam(model->parameters(), fl::optim::FlatAdamOptions().lr(settings.lr));
  auto inputs = torch::randint(0, 50, {4000, 2}).to(torch::kFloat);
  auto targets = torch::randint(0, 50, {4000});
  auto index = torch::randperm(4000).narrow(0, 0, 32);
  torch::Tensor x, y, loss;
  auto gather = [&] {
    x = inputs.index_select(0, index);
    y = targets.index_select(0, index);
  };
  auto forward = [&] { loss = torch::nn::functional::cross_entropy(model->forward(x).logits, y); };
  auto backward = [&] {
    adam.zeroGrad();
    loss.backward();
  };
  auto update = [&] { adam.step(); };
  auto item = [&] { return loss.item<double>(); };
  for (int i = 0; i < 200; ++i) {
    gather();
    forward();
    backward();
    update();
  }
  const double tGather = fl::bench::secondsPerCall(gather, steps, 3);
  const double tForward = fl::bench::secondsPerCall(forward, steps, 3);
  const double tBackward = fl::bench::secondsPerCall(
                               [&] {
                                 forward();
                                 backward();
                               },
                               steps, 3) -
                           tForward;
  const double tUpdate = fl::bench::secondsPerCall(update, steps, 3);
  const double tItem = fl::bench::secondsPerCall(item, steps, 3);
  const double total = tGather + tForward + tBackward + tUpdate + tItem;
  std::printf(
      "  batch gather   %7.1f us\n  forward        %7.1f us\n  backward       %7.1f us\n"
      "  Adam update    %7.1f us\n  loss.item()    %7.1f us\n  sum            %7.1f us\n",
      tGather * 1e6, tForward * 1e6, tBackward * 1e6, tUpdate * 1e6, tItem * 1e6, total * 1e6);
  // Arithmetic of one step: forward matmuls 2*B*(2*64 + 64*32 + 32*26) + the bin basis
  // 2*B*26*100, backward about twice that.
  const double flops = 3.0 * 2 * 32 * (2 * 64 + 64 * 32 + 32 * 26 + 26 * 100);
  std::printf("  arithmetic     %7.2f MFLOP per step -> %.2f GFLOP/s achieved\n", flops / 1e6,
              flops / total / 1e9);
}

// CPU time of the whole process (every thread), user and kernel, in seconds.
struct CpuTimes {
  double user = 0;
  double system = 0;
};

CpuTimes cpuTimes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return {seconds(usage.ru_utime), seconds(usage.ru_stime)};
}

// One row of the batched table: wall time per model-step (best of 3 timings), and the CPU time
// per model-step over all of them, split into user and kernel.
struct ModelStepCost {
  double wallMicros = 0;
  double userMicros = 0;
  double systemMicros = 0;
};

template <typename F>
ModelStepCost costPerModelStep(F&& groupStep, int calls, int64_t modelsPerCall) {
  constexpr int kRepeats = 3;
  const CpuTimes before = cpuTimes();
  const double seconds = fl::bench::secondsPerCall(groupStep, calls, kRepeats);
  const CpuTimes after = cpuTimes();
  const double modelSteps = double(calls) * kRepeats * double(modelsPerCall);
  return {seconds * 1e6 / double(modelsPerCall), (after.user - before.user) * 1e6 / modelSteps,
          (after.system - before.system) * 1e6 / modelSteps};
}

void printCostRow(const char* head, const std::string& runs, const ModelStepCost& cost,
                  double singleMicros) {
  std::printf("  %-8s %-7s %11.1f %14.0f %9.2fx %9.1f %8.1f\n", head, runs.c_str(), cost.wallMicros,
              1e6 / cost.wallMicros, singleMicros / cost.wallMicros, cost.userMicros,
              cost.systemMicros);
}

// Evaluation, live (8 inputs' snapshots) and final (all 1000), in ms per run: a single run's
// evaluate() against a group's, K = 32.
void evaluationTable() {
  std::printf("\nevaluation, 1 thread, ms per run (live: 8 inputs' snapshots; final: all 1000)\n");
  std::printf("  %-8s %12s %12s %12s %12s\n", "head", "single live", "group live", "single final",
              "group final");
  for (const char* head : {"fourier", "linear", "gmm"}) {
    const auto settings = settingsFor(head);
    std::unique_ptr<FourierHeadTrial> trial;
    {
      fl::SeededScope seeded(1);
      trial = std::make_unique<FourierHeadTrial>(settings, torch::kCPU, 1);
    }
    constexpr int64_t kMembers = 32;
    std::vector<BatchedMember> members;
    for (int64_t i = 0; i < kMembers; ++i) members.push_back({settings, uint64_t(i + 1)});
    BatchedFourierHeadProgram group(members);
    for (int i = 0; i < 100; ++i) {
      trial->trainStep(i);
      group.trainStep();
    }
    auto single = [&](bool final) {
      return fl::bench::secondsPerCall(
                 [&] {
                   fl::EvalReport out;
                   trial->evaluate(100, final, out);
                 },
                 final ? 2 : 10, 3) *
             1e3;
    };
    auto grouped = [&](bool final) {
      std::vector<BatchedFourierHeadProgram::EvalRequest> requests;
      for (int64_t i = 0; i < kMembers; ++i) requests.push_back({i, final});
      return fl::bench::secondsPerCall([&] { group.evaluate(requests); }, 1, 3) * 1e3 / kMembers;
    };
    std::printf("  %-8s %12.2f %12.2f %12.2f %12.2f\n", head, single(false), grouped(false),
                single(true), grouped(true));
  }
}

// K runs of the default config with seeds 1..K, as one group, against single runs.
void batchedTable(int modelSteps) {
  at::set_num_threads(1);
  std::printf("\nbatched groups, 1 thread: sgemm 512^3 %.1f GFLOP/s; products by %s\n",
              fl::bench::measureSgemmGflops(), BatchedFourierHeadProgram::gemmBackend().c_str());
  std::printf(
      "  (a model-step: one optimisation step of one run, batch 32; CPU us split by "
      "getrusage)\n");
  std::printf("  %-8s %-7s %11s %14s %10s %9s %8s\n", "head", "runs", "us/m-step", "m-steps/s/core",
              "vs single", "user us", "sys us");
  for (const char* head : {"fourier", "linear", "gmm"}) {
    const auto settings = settingsFor(head);
    int64_t step = 0;
    auto trial = warmedUpTrial(head, step);
    const ModelStepCost single = costPerModelStep([&] { trial->trainStep(step++); }, modelSteps, 1);
    printCostRow(head, "single", single, single.wallMicros);
    for (int64_t k : {1, 8, 32, 128}) {
      std::vector<BatchedMember> members;
      for (int64_t i = 0; i < k; ++i) members.push_back({settings, uint64_t(i + 1)});
      BatchedFourierHeadProgram group(members);
      for (int i = 0; i < 20; ++i) group.trainStep();  // warm-up
      const int calls = std::max<int>(10, modelSteps / static_cast<int>(k));
      printCostRow(head, "K=" + std::to_string(k),
                   costPerModelStep([&] { group.trainStep(); }, calls, k), single.wallMicros);
    }
  }
}

// A group's steps on a device, timed between two loss reads: per group step.
double microsPerGroupStep(BatchedFourierHeadProgram& group, int groupSteps) {
  std::vector<std::optional<fl::StepLoss>> losses;
  for (int i = 0; i < 20; ++i) losses = group.trainStep();  // warm-up
  losses[0]->read();
  const double seconds = fl::bench::secondsPerCall(
      [&] {
        for (int i = 0; i < groupSteps; ++i) losses = group.trainStep();
        losses[0]->read();
      },
      1, 3);
  return seconds / groupSteps * 1e6;
}

// Groups of K runs (the frequency study's 24, and 240) stepped by tensor ops on `device`; then
// the study's own Fourier group (240 runs, N = 2, 4, ..., 20, the head padded to 20) and what an
// evaluation of all its members costs on the host, on 1 thread and on 4 (the budget's share of
// a 16-core machine for the study's four groups). A study's wall time beyond its steps and
// evaluations is the runner's: reporting, sampling, the store.
void deviceTable(const c10::Device& device, int groupSteps) {
  std::printf("\nbatched groups on %s, stepped by tensor ops (timed between two loss reads)\n",
              device.str().c_str());
  std::printf("  %-8s %-6s %12s %11s %14s  %s\n", "head", "runs", "us/group-step", "us/m-step",
              "m-steps/s", "how");
  std::fflush(stdout);
  for (const char* head : {"fourier", "linear", "gmm"}) {
    const auto settings = settingsFor(head);
    for (int64_t k : {24, 240}) {
      std::vector<BatchedMember> members;
      for (int64_t i = 0; i < k; ++i) members.push_back({settings, uint64_t(i + 1)});
      BatchedFourierHeadProgram group(members, device,
                                      BatchedFourierHeadProgram::StepCode::TensorOps);
      const double perStep = microsPerGroupStep(group, groupSteps);
      std::printf("  %-8s %-6lld %12.1f %11.2f %14.0f  %s\n", head, static_cast<long long>(k),
                  perStep, perStep / static_cast<double>(k), 1e6 * static_cast<double>(k) / perStep,
                  group.stepDescription().c_str());
      std::fflush(stdout);  // row by row: a time limit may stop the table
    }
  }

  std::vector<BatchedMember> study;
  for (int64_t i = 0; i < 240; ++i) {
    BatchedMember member{settingsFor("fourier"), uint64_t(i + 1)};
    member.settings.frequencies = 2 + 2 * (i % 10);
    study.push_back(member);
  }
  BatchedFourierHeadProgram group(study, device, BatchedFourierHeadProgram::StepCode::TensorOps);
  const double perStep = microsPerGroupStep(group, groupSteps);
  std::printf("  %-8s %-6s %12.1f %11.2f %14.0f  %s\n", "fourier", "240*", perStep, perStep / 240,
              1e6 * 240 / perStep, group.stepDescription().c_str());
  std::printf("  (*: N = 2, 4, ..., 20 in one group, as the frequency study's)\n");
  std::vector<BatchedFourierHeadProgram::EvalRequest> requests;
  for (int64_t i = 0; i < 240; ++i) requests.push_back({i, false});
  for (int threads : {1, 4}) {
    at::set_num_threads(threads);
    const double seconds = fl::bench::secondsPerCall([&] { group.evaluate(requests); }, 1, 2);
    std::printf("  evaluation of its 240 members on the host, %d thread(s): %.0f ms\n", threads,
                seconds * 1e3);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 && std::strcmp(argv[1], "--batched") != 0 ? std::stoi(argv[1]) : 2000;
  bool batchedOnly = false;
  std::optional<c10::Device> device;
  for (int i = 1; i < argc; ++i) {
    batchedOnly = batchedOnly || std::strcmp(argv[i], "--batched") == 0;
    if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      try {
        device = c10::Device(argv[++i]);
      } catch (const std::exception&) {
        std::fprintf(stderr,
                     "bench_fourier_head: --device %s is not a device (cpu, cuda, cuda:N)\n",
                     argv[i]);
        return 2;
      }
    }
  }
  fl::bench::printEnvironment("bench_fourier_head: toy benchmark training throughput");
  if (device) {
    try {
      deviceTable(*device, argc > 1 && argv[1][0] != '-' ? steps : 500);
    } catch (const c10::Error& e) {  // a device this machine lacks, for one
      std::fprintf(stderr, "bench_fourier_head: on %s: %s\n", device->str().c_str(),
                   e.what_without_backtrace());
      return 1;
    }
    return 0;
  }
  if (batchedOnly) {
    batchedTable(steps);
    evaluationTable();
    return 0;
  }
  const int allThreads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int threads : {1, allThreads}) {
    at::set_num_threads(threads);
    std::printf("\n%d thread(s): sgemm 512^3 %.1f GFLOP/s\n", threads,
                fl::bench::measureSgemmGflops());
    std::printf("  %-8s %12s %14s\n", "head", "us/step", "samples/s");
    for (const char* head : {"linear", "fourier", "gmm"}) {
      const double us = microsPerStep(head, steps);
      std::printf("  %-8s %12.1f %14.0f\n", head, us, 32.0 / (us * 1e-6));
    }
    if (threads == 1) {
      std::printf("\nwhere one Fourier-head step goes (1 thread, batch 32):\n");
      phaseBreakdown(steps);
    }
  }
  batchedTable(steps);
  evaluationTable();
  return 0;
}
