// What of a run's batch of events the store refused (a full disk) a resume can continue from.
//
// Once the store can be written again, `resume` continues a run from its newest recorded
// checkpoint. A checkpoint in the lost batch is worth recording on its own (one small write)
// where it saves retraining, but only if a resume from it gives back every lost metric: a run
// resumed past a lost point never trains that step again, and ends finished with its curves
// missing it (a batch lost from step 1 kept the final checkpoint, and the resumed run had one
// point of each curve).
//
//   if (auto* kept = resumableCheckpointOf(lost)) record(*kept);
#pragma once

#include <cstdint>
#include <vector>

#include "core/engine/events.h"

namespace fl::store {

// The first step of which the batch held metrics or snapshots: a resume must train it again to
// give them back. The machine's figures (sampled by wall time) and answers to probes (asked
// once) aside: no run gives them twice. INT64_MAX where the batch held none.
int64_t firstLostStep(const std::vector<Event>& lost);

// The newest checkpoint of the batch whose file is on disk and that the batch did not
// supersede, taken before the first lost step; or at it where the batch ends the run finished
// there (resumed at its last step, a run evaluates and logs its loss there again). Null where
// there is none: the resume goes back to the last checkpoint the store holds, or to step 0.
const CheckpointEvent* resumableCheckpointOf(const std::vector<Event>& lost);

}  // namespace fl::store
