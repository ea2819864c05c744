// What continuing a stored run needs, shared by `fourierlab-cli run --resume` and the GUI:
// the run must be interrupted or cancelled, of a known experiment, with a config that still
// validates (validateRunConfig: the corpus too) and a checkpoint whose file exists and is whole
// (the newest such). Preparing it drops the run's metrics and snapshots after that checkpoint's
// step, so the continued curves never overlap, and deletes the files in its folder that no row
// names (a
// `.partial` file or a checkpoint left by a kill). A run killed before its first checkpoint
// (the time bound writes one within about a minute) starts again from step 0 under its id, with
// the same config and seed: `fromStart`.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/engine/config.h"
#include "core/engine/registry.h"
#include "core/engine/runner.h"
#include "core/store/run_store.h"

namespace fl::store {

struct ResumePlan {
  std::shared_ptr<const Experiment> experiment;
  ValidatedConfig config;
  int64_t runId = 0;
  ResumePoint point;       // meaningless when fromStart
  bool fromStart = false;  // no checkpoint was ever recorded: train again from step 0
  std::string error;       // why it cannot resume; empty when it can
  // The error is the store's state (checkpoint files gone), not what was asked: a store error.
  bool storeProblem = false;
  std::string note;  // when newer checkpoints were skipped (files missing): which, for the user
  // The steps the run had recorded before the resume dropped what came after its checkpoint.
  int64_t stepsBefore = 0;
  bool ok() const { return error.empty(); }
};

// Where a prepared resume continues, and what it trains again: "from its checkpoint at step 631
// (steps 632-830 are trained again)". A killed run's data after its last checkpoint is dropped
// at the resume; said so, it is not a surprise in the curves.
std::string describeResume(const ResumePlan& plan);

// The newest recorded checkpoint of a run whose file exists, and is whole when `checkContents`
// (its CRC read over the whole file), and the recorded ones skipped because their files are
// gone or damaged ("" when none). A study's claim leaves the contents unchecked: it runs inside
// the store's write transaction, where reading whole checkpoints would hold every other
// process's writes, and a damaged file fails that run's load, so its next claim trains it again
// from step 0.
struct CheckpointChoice {
  std::optional<Checkpoint> chosen;
  std::string missing;
  std::string damaged;  // each file's own message: "... is damaged (CRC ...)"
  size_t recorded = 0;
};
// `below`: only those before that step (one that failed its load passed over).
CheckpointChoice newestExistingCheckpoint(const RunStore& store, int64_t runId, bool checkContents,
                                          std::optional<int64_t> below = std::nullopt);

// Drops the run's metrics and snapshots after the checkpoint and says where to continue, with
// each metric's lowest value so far (for "best value" comparisons).
// With the experiment's selection metric, the point also lists the run's checkpoints up to it
// with their scores (ResumePoint::checkpointsBefore).
ResumePoint rewindTo(RunStore& store, int64_t runId, const Checkpoint& checkpoint,
                     const std::optional<SelectionMetric>& selection = std::nullopt);

// `device`, when not empty, replaces the stored device (e.g. resume a CPU run on CUDA);
// `expectedExperiment`, when not empty, must be the run's. Nothing is dropped unless it can go on.
ResumePlan prepareResume(const ExperimentRegistry& registry, RunStore& store, int64_t runId,
                         const std::string& device = "",
                         const std::string& expectedExperiment = "");

}  // namespace fl::store
