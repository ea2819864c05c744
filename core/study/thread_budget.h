// ThreadBudget: how many runs train at once and how many threads each gets, so that parallel
// runs x threads per run never exceeds the cores. Tiny models (the Fourier-head toy: batch 32,
// width 64) gain nothing from a second thread and lose a lot when two OpenMP teams share busy
// cores: a paper run took 333 s with LibTorch's default 2 threads on a busy 2-core machine and
// 41 s with 1. So many runs get one thread each, and threads go to a run only when there are
// fewer runs than cores and its experiment says it can use them.
//
//   ThreadBudget b = planThreadBudget(availableCores(), runsWaiting, experiment.usefulThreads(c));
//   // b.parallel runners at once, each with at::set_num_threads(b.threadsPerRun)
#pragma once

#include <cstdint>
#include <string>

#include "core/engine/available_cores.h"

namespace fl::study {

struct ThreadBudget {
  int cores = 1;
  int parallel = 1;
  int threadsPerRun = 1;

  bool oversubscribed() const { return parallel * threadsPerRun > cores; }
  // "2 parallel runs x 1 thread on 2 cores"
  std::string describe() const;
};

// `runs`: how many runs wait to train; `usefulThreads`: the most threads one run can use
// (0: any number). `requestedParallel` / `requestedThreads` (0: decide) are the user's
// overrides (--parallel, --threads); they win even past the cores (oversubscribed() says so).
ThreadBudget planThreadBudget(int cores, int64_t runs, int usefulThreads, int requestedParallel = 0,
                              int requestedThreads = 0);

}  // namespace fl::study
