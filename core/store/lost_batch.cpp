#include "core/store/lost_batch.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <set>
#include <string>

#include "core/engine/system_metrics.h"

namespace fl::store {

int64_t firstLostStep(const std::vector<Event>& lost) {
  int64_t first = std::numeric_limits<int64_t>::max();
  for (const auto& event : lost) {
    if (auto* m = std::get_if<MetricEvent>(&event); m && !isSystemMetric(m->key))
      first = std::min(first, m->step);
    if (auto* s = std::get_if<SnapshotEvent>(&event); s && s->requestId == 0)
      first = std::min(first, s->step);
  }
  return first;
}

const CheckpointEvent* resumableCheckpointOf(const std::vector<Event>& lost) {
  const int64_t firstLost = firstLostStep(lost);
  // The run's end, if the batch holds it: finished at a step, a resume there has nothing to
  // train and gives back that step's evaluation and loss itself.
  int64_t finishedAt = -1;
  for (const auto& event : lost)
    if (auto* s = std::get_if<StatusEvent>(&event); s && s->status == RunStatus::Finished)
      finishedAt = s->step;
  std::set<std::string> superseded;
  for (const auto& event : lost)
    if (auto* c = std::get_if<CheckpointEvent>(&event); c && c->removed) superseded.insert(c->path);
  const CheckpointEvent* newest = nullptr;
  for (const auto& event : lost) {
    auto* c = std::get_if<CheckpointEvent>(&event);
    if (!c || c->removed || superseded.count(c->path)) continue;
    const bool givesAllBack =
        c->step < firstLost || (c->step == firstLost && c->step == finishedAt);
    if (!givesAllBack || (newest && c->step <= newest->step)) continue;
    std::error_code ec;
    if (std::filesystem::is_regular_file(c->path, ec)) newest = c;
  }
  return newest;
}

}  // namespace fl::store
