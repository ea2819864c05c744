// The process that trains a run another process started (a CLI run, a sweep, a cluster's job),
// as the store records it, and asking that process to stop with SIGTERM, as `kill` does: it
// cancels each of its runs after the current step and keeps a checkpoint, so `run --resume` or
// `sweep resume` goes on from there. The window offers this for a shown run it does not train.
//
//   if (auto trainer = trainerOf(store, 7); trainer && cannotStop(trainer->process).empty())
//     askToStop(trainer->process);   // runs trainer->runs end as cancelled
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/store/process_identity.h"

namespace fl::store {

class RunStore;

struct RunTrainer {
  ProcessIdentity process;
  std::vector<int64_t> runs;  // every run it trains or has queued now, ascending
  std::string command;        // its command line where this host can read it, else ""
};

// The process training or holding `runId` queued; nullopt for a run that is neither.
std::optional<RunTrainer> trainerOf(const RunStore& store, int64_t runId);

// Why that process cannot be asked from here ("" when it can): it trains on another host, or
// it has ended.
std::string cannotStop(const ProcessIdentity& process);

// Sends the process SIGTERM where cannotStop has nothing against it, checked again just before
// (a pid is reused once its process ends). Returns "" when sent, else why not.
std::string askToStop(const ProcessIdentity& process);

}  // namespace fl::store
