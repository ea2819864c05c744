#include "app/cli/run_export.h"

#include <cstdio>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/export_format.h"
#include "app/cli/json_text.h"
#include "core/engine/atomic_file.h"
#include "core/engine/spoken_list.h"
#include "core/store/run_export.h"

namespace fl::cli {

namespace {

bool anySnapshots(const store::RunStore& store, const std::vector<store::RunRecord>& runs) {
  for (const auto& r : runs)
    if (!store.snapshotNames(r.id).empty()) return true;
  return false;
}

int exportToStdout(const store::RunStore& store, const ExperimentRegistry& registry,
                   const std::vector<store::RunRecord>& runs, const std::string& format) {
  if (format == "json") {
    std::cout << jsonText(store::runsToJson(store, &registry, runs)) << '\n';
  } else {
    store::writeMetricsCsv(store, runs, std::cout);
    // One CSV stream cannot hold two tables; say so rather than drop the snapshots unseen.
    if (anySnapshots(store, runs))
      std::fprintf(stderr,
                   "note: the CSV on stdout holds the metrics only; these runs have "
                   "snapshots: write them with --out PATH.csv (to PATH.snapshots.csv, with each "
                   "run's settings and last values in PATH.runs.csv) or use --format json\n");
  }
  // A failed write shows at the end, where every command's output is checked (checked_output.h).
  return kExitOk;
}

}  // namespace

int exportRuns(const store::RunStore& store, const ExperimentRegistry& registry,
               const std::vector<store::RunRecord>& runs, const std::string& givenFormat,
               const std::string& out) {
  std::string format;
  try {
    format = exportFormat(givenFormat, out);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadUsage;
  }
  if (format != "csv" && format != "json") {
    std::fprintf(stderr, "error: --format must be csv or json, got '%s'\n", format.c_str());
    return kExitBadUsage;
  }
  if (out.empty()) return exportToStdout(store, registry, runs, format);
  try {
    const auto written = store::exportRunsToFile(store, &registry, runs, out, format == "json");
    std::fprintf(stderr, "wrote %s\n", spokenList(written).c_str());
    if (written.size() == 1 && format == "csv" && anySnapshots(store, runs))
      std::fprintf(stderr,
                   "note: %s is not a regular file: the CSV holds the metrics only; use "
                   "--format json for the snapshots\n",
                   out.c_str());
  } catch (const FileWriteError& e) {
    // Nothing is left under the final name: the temporary file is gone.
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitStoreError;
  } catch (const std::invalid_argument& e) {  // --out names one of the store's own files
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadUsage;
  }
  return kExitOk;
}

}  // namespace fl::cli
