// The causal attention kernel alone, forward and backward, at the papers' attention shapes:
// how fast the blocked kernel (blocked_attention.h) runs on 1 and more threads, and against the
// plain T x T implementation, with the sgemm rate measured on the same threads beside it.
//
//   build/bench/bench_attention [iterations] [threads,threads,...] [shape]
//
// shape: run only the shapes whose names contain it (qk-b64, 60m). The process keeps its large
// blocks between steps as training does (allocator_tuning.h; FOURIERLAB_MALLOC_TUNING=0: not).
//
// GFLOP/s counts the causal products actually needed: q k^T and w v forward, and the four
// products of the backward plus the recomputed scores, each over the T (T + 1) / 2 kept pairs.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "bench/bench_common.h"
#include "core/engine/allocator_tuning.h"
#include "core/engine/parallel_team.h"
#include "core/nn/transformer/blocked_attention.h"

namespace {

struct Shape {
  const char* name;
  int64_t batch, heads, length, dim;
};

// The FourierQK paper's attention (8 heads of 32 at T 256) at batch 8 and 64; FoPE's 60M shape.
const Shape kShapes[] = {
    {"qk-b8", 8, 8, 256, 32},
    {"qk-b64", 64, 8, 256, 32},
    {"60m-b4", 4, 8, 512, 64},
};

torch::Tensor plainCausalAttention(const torch::Tensor& q, const torch::Tensor& k,
                                   const torch::Tensor& v, double scale) {
  const int64_t t = q.size(2);
  auto mask = torch::ones({t, t}, torch::kBool).triu(1);
  auto s = torch::matmul(q, k.transpose(-2, -1)).mul_(scale).masked_fill_(mask, -INFINITY);
  return torch::matmul(torch::softmax(s, -1), v);
}

// Model FLOPs of one forward and backward over the causal pairs: 2 forward products, and in the
// backward the recomputed scores and four more (dv, dW, dq, dk).
double causalFlops(const Shape& s) {
  const double pairs = s.length * (s.length + 1) / 2.0;
  return 7.0 * 2.0 * pairs * s.dim * s.batch * s.heads;
}

double secondsPerStep(const Shape& s, bool blocked, int iterations) {
  torch::manual_seed(0);
  auto opts = torch::TensorOptions().dtype(torch::kFloat).requires_grad(true);
  auto q = torch::randn({s.batch, s.heads, s.length, s.dim}, opts);
  auto k = torch::randn({s.batch, s.heads, s.length, s.dim}, opts);
  auto v = torch::randn({s.batch, s.heads, s.length, s.dim}, opts);
  auto dy = torch::randn({s.batch, s.heads, s.length, s.dim});
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.dim));
  auto step = [&] {
    auto y = blocked ? fl::nn::blockedCausalAttention(q, k, v, scale, torch::Tensor())
                     : plainCausalAttention(q, k, v, scale);
    y.backward(dy);
    q.mutable_grad().reset();
    k.mutable_grad().reset();
    v.mutable_grad().reset();
  };
  step();  // warm-up: buffers, caches
  return fl::bench::secondsPerCall(step, iterations, 3);
}

std::vector<int> parseThreads(const char* arg) {
  std::vector<int> out;
  for (const char* p = arg; *p;) {
    char* end = nullptr;
    const long n = std::strtol(p, &end, 10);
    if (end == p || n < 1) {
      std::fprintf(stderr,
                   "bench_attention: threads must be a comma list of counts >= 1, got '%s'\n", arg);
      std::exit(2);
    }
    out.push_back(static_cast<int>(n));
    p = *end == ',' ? end + 1 : end;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  const auto threads = parseThreads(argc > 2 ? argv[2] : "1,2");
  const std::string only = argc > 3 ? argv[3] : "";
  fl::keepLargeAllocationsInHeap();
  fl::bench::printEnvironment("bench_attention");
  std::printf("forward + backward of causal attention; GFLOP/s over the causal pairs\n\n");
  std::printf("%-8s %7s %5s %8s %10s %8s %8s %8s\n", "shape", "threads", "team", "kernel",
              "ms/step", "GFLOP/s", "sgemm", "of peak");
  for (int n : threads) {
    at::set_num_threads(n);
    const double peak = fl::bench::measureSgemmGflops(1024);
    const int team = fl::parallelForTeamSize();  // threads our kernels' loops really get
    for (const auto& s : kShapes) {
      if (std::string(s.name).find(only) == std::string::npos) continue;
      for (bool blocked : {false, true}) {
        const double sec = secondsPerStep(s, blocked, iterations);
        const double gflops = causalFlops(s) / sec / 1e9;
        std::printf("%-8s %7d %5d %8s %10.1f %8.1f %8.1f %7.0f%%\n", s.name, n, team,
                    blocked ? "blocked" : "plain", sec * 1e3, gflops, peak, 100.0 * gflops / peak);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
