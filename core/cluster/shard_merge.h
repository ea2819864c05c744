// Merging a cluster task's shard store into the user's store (`sweep collect`, and the GUI's
// study view as tasks land).
//
// - Idempotent: runs are matched by uid; a run already stored is kept when it finished there,
//   replaced when the shard holds a later attempt of it (finished, or ended after it), else
//   left alone. Collecting twice stores nothing twice.
// - Atomic per shard: one transaction on the user's store, checkpoint files copied into its
//   artifact folder (RunStore::artifactFolder) first and removed again if the transaction
//   does not commit. A shard is merged whole or not at all.
// - Refused with a message naming the file, nothing changed: a file that is not a run store,
//   corrupt or truncated (PRAGMA quick_check), of a newer schema, of another study, or whose
//   cells do not match the study's.
// - Only runs that ended (finished, failed, cancelled, interrupted) are merged; the study's
//   cells are linked to them unless a cell's run already finished. Merged runs are ordinary
//   runs: they open, compare, and resume from their copied checkpoints like local ones.
//
//   ShardMergeResult r = mergeShard(store, studyId, "work/shards/task-3.db");
//   if (!r.merged) report(r.refusal);
//   for (auto& r : collectFinishedShards(store, studyId)) ...   // every job of the study
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/store/run_store.h"

namespace fl::cluster {

struct ShardMergeResult {
  std::string shard;
  int task = -1;  // collectFinishedShards: the array task (and job row) it came from
  int64_t jobRow = 0;
  bool merged = false;     // false: refused, nothing of it stored
  bool unchanged = false;  // collectFinishedShards: the same file as at its last merge, skipped
  std::string refusal;     // names the file and the problem
  int added = 0;           // runs new to the store
  int replaced = 0;        // runs stored before whose later attempt the shard holds
  int kept = 0;            // runs the store already had as they are (or finished)
  int unfinished = 0;      // runs still training when the shard was published: not merged
  int cellsLinked = 0;     // study cells now pointing at a merged run
  int checkpoints = 0;     // checkpoint files copied
  std::vector<std::string> missingFiles;  // checkpoints the shard names but does not have

  // "task-3.db: 2 runs added, 1 replaced, 0 kept; 3 cells linked; 3 checkpoints copied"
  std::string summary() const;
};

// Merges one shard into the study `studyId` of `store`. Never throws for a bad shard (the
// refusal says why); throws store::StoreError when the user's store itself fails.
ShardMergeResult mergeShard(store::RunStore& store, int64_t studyId, const std::string& shardPath);

// Merges every published shard of every job of the study (StudyJobs), skipping shards not
// changed since their last merge and recording each merge. A refused shard leaves the others
// merged.
std::vector<ShardMergeResult> collectFinishedShards(store::RunStore& store, int64_t studyId);

}  // namespace fl::cluster
