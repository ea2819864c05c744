// Exports stored runs for use elsewhere (pandas, R, a spreadsheet), shared by the CLI and GUI.
//   CSV, metrics:   run_id,experiment,name,key,step,wall_seconds,value   (long format)
//   CSV, snapshots: run_id,name,step,i0,i1,x0,x1,value                    (long format; 1-D and
//                   2-D snapshots, i1 empty for 1-D; higher ranks flattened into i0; x0 and x1
//                   the indices' coordinates where the snapshot's axes declare them)
//   CSV, runs:      run_id,experiment,name,status,trained_on,tags (comma-separated, quoted),
//                   <each setting>,
//                   last:<each metric>                                   (one row per run; a
//                   setting the run's experiment lacks or the run does not use is empty)
//   JSON: {"runs": [{id, experiment, name, status, config, build, tags, notes,
//                    metrics: {key: [[step, wall, value], ...]},
//                    snapshots: [{name, step, shape, axes, value_label, meta, data}]}]}
#pragma once

#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/registry.h"
#include "core/store/run_store.h"

namespace fl::store {

// The snapshots are every one a run emitted: `registry` rebuilds those the store leaves out
// (store::runSnapshots; null exports only what is stored).
void writeMetricsCsv(const RunStore& store, const std::vector<RunRecord>& runs, std::ostream& out);
void writeSnapshotsCsv(const RunStore& store, const ExperimentRegistry* registry,
                       const std::vector<RunRecord>& runs, std::ostream& out);
// One row per run: what set it (its config, a value it does not use left empty, as a missing
// one: a linear head's frequencies would group it with the Fourier heads at that N) and its
// metrics' last values, to join the long tables on run_id.
void writeRunsCsv(const ExperimentRegistry* registry, const std::vector<RunRecord>& runs,
                  std::ostream& out);
nlohmann::json runsToJson(const RunStore& store, const ExperimentRegistry* registry,
                          const std::vector<RunRecord>& runs);

// Where a CSV export's other tables go, `table` "snapshots" or "runs": runs.csv (or RUNS.CSV)
// -> runs.snapshots.csv (other names: + .snapshots.csv), beside the file a link names.
std::string companionCsvPath(const std::string& csvPath, const std::string& table);

// Writes `runs` to the file `path` as both front ends export them: JSON, or the metrics CSV at
// `path`, the snapshots and runs CSVs beside it (companionCsvPath). Every file goes through
// AtomicFile (a temporary file beside it, checked, renamed when complete), so a full disk or a
// kill never leaves a truncated file under a final name; the companions are renamed first and
// removed again if the metrics cannot be. A `path` that is not a regular file (/dev/stdout, a pipe)
// gets the metrics only, like stdout. Returns the files written; throws fl::FileWriteError naming
// the file and the reason.
std::vector<std::string> exportRunsToFile(const RunStore& store, const ExperimentRegistry* registry,
                                          const std::vector<RunRecord>& runs,
                                          const std::string& path, bool json);

}  // namespace fl::store
