// `fourierlab-cli runs export`: writes metrics (and, to a file, snapshots) as CSV or JSON.
#pragma once

#include <string>
#include <vector>

#include "core/engine/registry.h"
#include "core/store/run_store.h"

namespace fl::cli {

// CSV to --out (or stdout) holds the metrics; with --out, the snapshots go beside it as
// <out without .csv>.snapshots.csv and a row per run (settings, last values) as .runs.csv; to
// stdout, a note on stderr says the snapshots were left out. JSON holds both. A file is written
// whole or not at all (store::exportRunsToFile); a failure says which file and why (a full disk, a
// missing folder) and exits 3. Returns the exit code. `registry` rebuilds the snapshots the store
// leaves out (the toy's true densities).
int exportRuns(const store::RunStore& store, const ExperimentRegistry& registry,
               const std::vector<store::RunRecord>& runs, const std::string& format,
               const std::string& out);

}  // namespace fl::cli
