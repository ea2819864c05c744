#include "core/store/run_snapshots.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

namespace fl::store {

std::vector<StoredSnapshot> runSnapshots(const RunStore& store, const RunRecord& run,
                                         const Experiment* experiment) {
  std::vector<StoredSnapshot> out;
  for (const auto& name : store.snapshotNames(run.id))
    for (auto& s : store.snapshots(run.id, name)) out.push_back(std::move(s));
  if (experiment) {
    std::set<std::pair<int64_t, std::string>> held;
    for (const auto& s : out) held.emplace(s.step, s.snapshot.name);
    const size_t stored = out.size();
    for (size_t i = 0; i < stored; ++i)
      for (auto& rebuilt : experiment->rebuiltSnapshots(run.config, out[i].snapshot))
        if (held.emplace(out[i].step, rebuilt.name).second)
          out.push_back({out[i].step, std::move(rebuilt)});
  }
  // One timeline, as a live run emits it: by step, names in a fixed order within a step.
  std::stable_sort(out.begin(), out.end(), [](const StoredSnapshot& a, const StoredSnapshot& b) {
    return a.step < b.step;
  });
  return out;
}

}  // namespace fl::store
