#include "core/engine/parallel_team.h"

#include <mutex>
#include <set>
#include <thread>

#include <ATen/Parallel.h>

namespace fl {

int parallelForTeamSize() {
  std::mutex mutex;
  std::set<std::thread::id> threads;
  // One item per thread asked for, and a few more, each chunk at least one item.
  const int64_t items = 4 * static_cast<int64_t>(at::get_num_threads());
  at::parallel_for(0, items, /*grain_size=*/1, [&](int64_t, int64_t) {
    std::lock_guard<std::mutex> lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  return static_cast<int>(threads.size());
}

}  // namespace fl
