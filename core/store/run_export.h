// Exports stored runs for use elsewhere (pandas, R, a spreadsheet), shared by the CLI and GUI.
//   CSV, metrics:   run_id,experiment,name,key,step,wall_seconds,value   (long format)
//   CSV, snapshots: run_id,name,step,i0,i1,value                          (long format; 1-D and
//                   2-D snapshots, i1 empty for 1-D; higher ranks flattened into i0)
//   JSON: {"runs": [{id, experiment, name, status, config, build, tags, notes,
//                    metrics: {key: [[step, wall, value], ...]},
//                    snapshots: [{name, step, shape, axes, value_label, meta, data}]}]}
#pragma once

#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/run_store.h"

namespace fl::store {

void writeMetricsCsv(const RunStore& store, const std::vector<RunRecord>& runs, std::ostream& out);
void writeSnapshotsCsv(const RunStore& store, const std::vector<RunRecord>& runs,
                       std::ostream& out);
nlohmann::json runsToJson(const RunStore& store, const std::vector<RunRecord>& runs);

}  // namespace fl::store
