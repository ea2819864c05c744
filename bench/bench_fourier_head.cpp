// Training throughput of the Fourier head paper's toy benchmark, per head, on 1 thread and on
// all threads: samples/s and microseconds per optimisation step, through the real Trial (what
// fourierlab-cli runs), and a breakdown of one step into its phases for the Fourier head.
//
//   build/bench/bench_fourier_head [steps]
#include <cstdio>
#include <string>
#include <thread>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "bench/bench_common.h"
#include "core/engine/registry.h"
#include "core/engine/seeding.h"
#include "core/optim/flat_adam.h"
#include "experiments/builtin_experiments.h"
#include "experiments/fourier_head/fourier_head_trial.h"

namespace {

using fl::fourier_head::FourierHeadTrial;
using fl::fourier_head::ToyBenchmarkSettings;

ToyBenchmarkSettings settingsFor(const std::string& head) {
  fl::ExperimentRegistry registry;
  fl::registerBuiltinExperiments(registry);
  auto config = fl::buildConfig(*registry.find("fourier-head"), "", {"head=" + head});
  return ToyBenchmarkSettings::fromConfig(config.values);
}

// End to end: FourierHeadTrial::trainStep, batch gather to optimiser step.
double microsPerStep(const std::string& head, int steps) {
  const auto settings = settingsFor(head);
  std::unique_ptr<FourierHeadTrial> trial;
  {
    fl::SeededScope seeded(1);
    trial = std::make_unique<FourierHeadTrial>(settings, torch::kCPU, 1);
  }
  int64_t step = 0;
  for (int i = 0; i < 200; ++i) trial->trainStep(step++);  // warm-up
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
  auto gather = [&] { x = inputs.index_select(0, index); y = targets.index_select(0, index); };
  auto forward = [&] { loss = torch::nn::functional::cross_entropy(model->forward(x).logits, y); };
  auto backward = [&] { adam.zeroGrad(); loss.backward(); };
  auto update = [&] { adam.step(); };
  auto item = [&] { return loss.item<double>(); };
  for (int i = 0; i < 200; ++i) { gather(); forward(); backward(); update(); }
  const double tGather = fl::bench::secondsPerCall(gather, steps, 3);
  const double tForward = fl::bench::secondsPerCall(forward, steps, 3);
  const double tBackward = fl::bench::secondsPerCall([&] { forward(); backward(); }, steps, 3) - tForward;
  const double tUpdate = fl::bench::secondsPerCall(update, steps, 3);
  const double tItem = fl::bench::secondsPerCall(item, steps, 3);
  const double total = tGather + tForward + tBackward + tUpdate + tItem;
  std::printf("  batch gather   %7.1f us\n  forward        %7.1f us\n  backward       %7.1f us\n"
              "  Adam update    %7.1f us\n  loss.item()    %7.1f us\n  sum            %7.1f us\n",
              tGather * 1e6, tForward * 1e6, tBackward * 1e6, tUpdate * 1e6, tItem * 1e6,
              total * 1e6);
  // Arithmetic of one step: forward matmuls 2*B*(2*64 + 64*32 + 32*26) + the bin basis
  // 2*B*26*100, backward about twice that.
  const double flops = 3.0 * 2 * 32 * (2 * 64 + 64 * 32 + 32 * 26 + 26 * 100);
  std::printf("  arithmetic     %7.2f MFLOP per step -> %.2f GFLOP/s achieved\n", flops / 1e6,
              flops / total / 1e9);
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::stoi(argv[1]) : 2000;
  fl::bench::printEnvironment("bench_fourier_head: toy benchmark training throughput");
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
  return 0;
}
