#include "app/cli/run_export.h"

#include <cstdio>
#include <fstream>
#include <iostream>

#include "app/cli/commands.h"
#include "core/store/run_export.h"

namespace fl::cli {

namespace {

std::string snapshotsPathFor(const std::string& out) {
  const std::string suffix = ".csv";
  const bool hasSuffix = out.size() > suffix.size() &&
                         out.compare(out.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (hasSuffix ? out.substr(0, out.size() - suffix.size()) : out) + ".snapshots.csv";
}

bool openOrComplain(std::ofstream& file, const std::string& path) {
  file.open(path, std::ios::binary | std::ios::trunc);
  if (!file) std::fprintf(stderr, "error: cannot write %s\n", path.c_str());
  return static_cast<bool>(file);
}

bool anySnapshots(const store::RunStore& store, const std::vector<store::RunRecord>& runs) {
  for (const auto& r : runs)
    if (!store.snapshotNames(r.id).empty()) return true;
  return false;
}

}  // namespace

int exportRuns(const store::RunStore& store, const std::vector<store::RunRecord>& runs,
               const std::string& format, const std::string& out) {
  if (format != "csv" && format != "json") {
    std::fprintf(stderr, "error: --format must be csv or json, got '%s'\n", format.c_str());
    return kExitBadUsage;
  }
  std::ofstream file;
  if (!out.empty() && !openOrComplain(file, out)) return kExitBadUsage;
  std::ostream& stream = out.empty() ? std::cout : file;
  if (format == "json") {
    stream << store::runsToJson(store, runs).dump() << '\n';
  } else {
    store::writeMetricsCsv(store, runs, stream);
    if (!out.empty()) {
      std::ofstream snapshots;
      if (!openOrComplain(snapshots, snapshotsPathFor(out))) return kExitBadUsage;
      store::writeSnapshotsCsv(store, runs, snapshots);
      std::fprintf(stderr, "wrote %s and %s\n", out.c_str(), snapshotsPathFor(out).c_str());
    } else if (anySnapshots(store, runs)) {
      // One CSV stream cannot hold two tables; say so rather than drop the snapshots unseen.
      std::fprintf(stderr, "note: the CSV on stdout holds the metrics only; these runs have "
                           "snapshots: write them with --out PATH (to PATH.snapshots.csv) or "
                           "use --format json\n");
    }
  }
  stream.flush();
  if (!stream) {
    std::fprintf(stderr, "error: writing %s failed\n", out.empty() ? "stdout" : out.c_str());
    return kExitBadUsage;
  }
  return kExitOk;
}

}  // namespace fl::cli
