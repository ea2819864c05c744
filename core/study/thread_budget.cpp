#include "core/study/thread_budget.h"

#include <algorithm>
#include <cstdlib>

namespace fl::study {

std::string ThreadBudget::describe() const {
  return std::to_string(parallel) + (parallel == 1 ? " run" : " parallel runs") + " x " +
         std::to_string(threadsPerRun) + (threadsPerRun == 1 ? " thread" : " threads") + " on " +
         std::to_string(cores) + (cores == 1 ? " core" : " cores");
}

ThreadBudget planThreadBudget(int cores, int64_t runs, int usefulThreads, int requestedParallel,
                              int requestedThreads) {
  ThreadBudget b;
  b.cores = std::max(1, cores);
  const int64_t waiting = std::max<int64_t>(1, runs);
  auto capped = [&](int threads) {
    threads = std::max(1, threads);
    return usefulThreads > 0 ? std::min(threads, usefulThreads) : threads;
  };
  if (requestedThreads > 0) {
    b.threadsPerRun = requestedThreads;
  } else if (requestedParallel > 0) {
    b.threadsPerRun = capped(b.cores / requestedParallel);
  } else if (waiting >= b.cores) {
    b.threadsPerRun = 1;  // runs in parallel scale better than threads within a run
  } else {
    b.threadsPerRun = capped(b.cores / static_cast<int>(waiting));
  }
  b.parallel = requestedParallel > 0 ? requestedParallel : std::max(1, b.cores / b.threadsPerRun);
  b.parallel = static_cast<int>(std::min<int64_t>(b.parallel, waiting));
  return b;
}

}  // namespace fl::study
