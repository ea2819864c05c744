// A run's snapshots as its trial emitted them, for readers of the store (the window's run
// views, the exports): the stored ones, and those the store leaves out because the experiment
// rebuilds them from the run's config and a stored snapshot (SnapshotKeep::NotStored,
// Experiment::rebuiltSnapshots). A store written before snapshots were left out holds them
// already and is read as it is: nothing is rebuilt twice.
#pragma once

#include <cstdint>
#include <vector>

#include "core/engine/experiment.h"
#include "core/store/run_store.h"

namespace fl::store {

// By step, in the store's name order within a step; `experiment` null: only what is stored.
std::vector<StoredSnapshot> runSnapshots(const RunStore& store, const RunRecord& run,
                                         const Experiment* experiment);

}  // namespace fl::store
