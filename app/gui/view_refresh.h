// A run not live in this window is as the store has it. This window's cached view of such a run
// can fall behind: another process resumed, finished or renamed it (`fourierlab-cli runs
// rename`, `sweep resume`), or History renamed or tagged it. Where the store says otherwise, the
// view is brought up to date before it is drawn again.
#pragma once

#include <cstdint>
#include <vector>

namespace fl::store {
class RunStore;
}

namespace fl::gui {

class RunQueue;
class RunViews;

// For each id with a cached view that is neither live nor ended here with writes the store
// lacks: read again whole where its status, message or progress differ, its name and pin set
// where only they differ. Returns the ids whose view changed; a store that cannot be read now
// leaves the views as they were.
std::vector<int64_t> refreshViews(RunViews& views, const RunQueue& queue,
                                  const store::RunStore& store, const std::vector<int64_t>& ids);

}  // namespace fl::gui
