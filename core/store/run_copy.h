// Copying one run, with everything recorded about it (its row, tags, metric series and points,
// snapshots, checkpoints and their files), from one run store into another. A run keeps its
// uid, so a copy is recognised wherever it lands: a cluster task's shard merged into the user's
// store (core/cluster/shard_merge.h), a stopped run sent back to a cluster to resume.
//
//   Transaction tx(dest.database());
//   CopiedRun copy = copyRun(source, sourceId, dest);   // a new run in dest
//   tx.commit();                  // then delete copy.supersededFiles
//   // on failure (no commit): delete copy.writtenFiles
//
// Columns are copied by name (those both schemas have), so a source of another schema version
// copies what the two share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/store/run_store.h"
#include "core/store/sqlite_handle.h"

namespace fl::store {

struct CopiedRun {
  int64_t id = 0;                            // the run in the destination
  int checkpoints = 0;                       // checkpoints copied with their files
  std::vector<std::string> missingFiles;     // checkpoints whose file the source lacks (skipped)
  std::vector<std::string> writtenFiles;     // files copied into the destination's folder
  std::vector<std::string> supersededFiles;  // the replaced run's files, to delete after commit
};

// Copies run `sourceId` of `source` (a connection to a store file: its folder resolves its
// checkpoint paths) into `dest`: as a new run when `destId` is 0, else over run `destId`,
// whose tags, metrics, snapshots and checkpoints are replaced and whose id stays. The caller
// holds a transaction on dest. Checkpoint files are copied into dest.artifactFolder(id) under
// names no existing file has. Throws StoreError.
CopiedRun copyRun(const Database& source, int64_t sourceId, RunStore& dest, int64_t destId = 0);

// The columns of `table` in `db`, in their order.
std::vector<std::string> tableColumns(const Database& db, const std::string& table);

}  // namespace fl::store
