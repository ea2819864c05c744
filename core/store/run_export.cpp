#include "core/store/run_export.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <map>
#include <optional>
#include <set>

#include "core/engine/atomic_file.h"
#include "core/engine/config_diff.h"
#include "core/engine/export_values.h"
#include "core/engine/natural_order.h"
#include "core/engine/symlink_target.h"
#include "core/engine/verdict.h"
#include "core/store/not_compared.h"
#include "core/store/run_snapshots.h"

namespace fl::store {

namespace {

void writeNumber(std::ostream& out, double v) {
  if (std::isfinite(v))
    out << v;
  else if (std::isnan(v))
    out << "nan";
  else
    out << (v > 0 ? "inf" : "-inf");
}

std::vector<StoredSnapshot> snapshotsOf(const RunStore& store, const ExperimentRegistry* registry,
                                        const RunRecord& run) {
  const auto experiment = registry ? registry->find(run.experiment) : nullptr;
  auto snapshots = runSnapshots(store, run, experiment.get());
  // Exports list a run's snapshots by name, each by step.
  std::stable_sort(snapshots.begin(), snapshots.end(),
                   [](const StoredSnapshot& a, const StoredSnapshot& b) {
                     return a.snapshot.name < b.snapshot.name;
                   });
  return snapshots;
}

}  // namespace

void writeMetricsCsv(const RunStore& store, const std::vector<RunRecord>& runs, std::ostream& out) {
  out << std::setprecision(17) << "run_id,experiment,name,key,step,wall_seconds,value\n";
  for (const auto& r : runs)
    for (const auto& key : store.metricKeys(r.id))
      for (const auto& p : store.metric(r.id, key)) {
        out << r.id << ',' << csvField(r.experiment) << ',' << csvField(r.name) << ','
            << csvField(key) << ',' << p.step << ',' << std::setprecision(6) << std::fixed << p.wall
            << std::defaultfloat << std::setprecision(17) << ',';
        writeNumber(out, p.value);
        out << '\n';
      }
}

void writeSnapshotsCsv(const RunStore& store, const ExperimentRegistry* registry,
                       const std::vector<RunRecord>& runs, std::ostream& out) {
  out << std::setprecision(9) << "run_id,name,step,i0,i1,x0,x1,value\n";
  for (const auto& r : runs)
    for (const auto& stored : snapshotsOf(store, registry, r)) {
      const auto& s = stored.snapshot;
      const int64_t cols = s.shape.size() == 2 ? s.shape[1] : 0;
      // An index's coordinate (a bin's centre, a frequency) where its axis declares one: the
      // rows can be drawn without the JSON export's axes. Empty for a flattened higher rank.
      auto coordinate = [&](size_t axis, int64_t index) {
        if (s.shape.size() > 2 || axis >= s.axes.size()) return;
        const auto& ticks = s.axes[axis].ticks;
        if (index >= 0 && static_cast<size_t>(index) < ticks.size())
          writeNumber(out, ticks[static_cast<size_t>(index)]);
      };
      for (size_t i = 0; i < s.data.size(); ++i) {
        const int64_t flat = static_cast<int64_t>(i);
        const int64_t i0 = cols > 0 ? flat / cols : flat;
        out << r.id << ',' << csvField(s.name) << ',' << stored.step << ',' << i0 << ',';
        if (cols > 0) out << flat % cols;
        out << ',';
        coordinate(0, i0);
        out << ',';
        if (cols > 0) coordinate(1, flat % cols);
        out << ',';
        writeNumber(out, s.data[i]);
        out << '\n';
      }
    }
}

void writeRunsCsv(const ExperimentRegistry* registry, const std::vector<RunRecord>& runs,
                  std::ostream& out) {
  std::map<std::string, std::vector<ParamSpec>> declared;
  std::vector<nlohmann::json> used;
  std::vector<std::string> settings;
  std::set<std::string> seen;
  std::set<std::string, NaturalLess> metricKeys;
  for (const auto& r : runs) {
    const auto experiment = registry ? registry->find(r.experiment) : nullptr;
    if (experiment && !declared.count(r.experiment))
      declared.emplace(r.experiment, experiment->allParams());
    used.push_back(experiment ? comparedValues(experiment->allParams(), r.config) : r.config);
    if (r.config.is_object())
      for (const auto& [key, value] : r.config.items())
        if (seen.insert(key).second) settings.push_back(key);
    for (const auto& s : r.metrics) metricKeys.insert(s.key);
  }
  std::vector<std::vector<ParamSpec>> declarations;
  for (const auto& r : runs)
    if (const auto it = declared.find(r.experiment); it != declared.end())
      declarations.push_back(it->second);
  settings = inDeclarationOrder(settings, declarations);

  // The verdict column is the Runs table's and History's headline ("within paper"), its detail
  // the numbers behind it, and a shortened paper run's verdict says why it has none ("not
  // compared with the paper (paper-fourier): epochs 2 ..."), as History and every JSON export
  // do: a runs CSV without them said "finished" of a run outside the paper's spread.
  // Its notes and when it was made (Unix seconds, as the JSON export writes them): the run's
  // own words were in the JSON alone.
  out << "run_id,experiment,name,status,verdict,verdict_detail,trained_on,tags,notes,created";
  for (const auto& key : settings) out << ',' << csvField(key);
  for (const auto& key : metricKeys) out << ',' << csvField("last:" + key);
  out << '\n' << std::setprecision(17);
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunRecord& r = runs[i];
    std::string tags;
    for (const auto& t : r.tags) tags += (tags.empty() ? "" : ",") + t;  // a tag has no comma
    const std::string notCompared =
        r.verdicts.empty() && registry ? whyNotCompared(*registry, r) : std::string();
    out << r.id << ',' << csvField(r.experiment) << ',' << csvField(r.name) << ','
        << toString(r.status) << ','
        << csvField(!r.verdicts.empty()    ? verdictHeadline(r.verdicts)
                    : !notCompared.empty() ? std::string("not compared")
                                           : std::string())
        << ',' << csvField(!r.verdicts.empty() ? verdictDetails(r.verdicts) : notCompared) << ','
        << csvField(r.device) << ',' << csvField(tags) << ',' << csvField(r.notes) << ',';
    writeNumber(out, r.created);
    for (const auto& key : settings) {
      const nlohmann::json value = configValue(used[i], key);
      out << ',';
      if (value.is_null() || isUnusedValue(value)) continue;
      out << csvField(value.is_string() ? value.get<std::string>() : value.dump());
    }
    for (const auto& key : metricKeys) {
      out << ',';
      const auto it = std::find_if(r.metrics.begin(), r.metrics.end(),
                                   [&](const MetricSummary& s) { return s.key == key; });
      if (it != r.metrics.end() && it->count > 0) writeNumber(out, it->last);
    }
    out << '\n';
  }
}

nlohmann::json runsToJson(const RunStore& store, const ExperimentRegistry* registry,
                          const std::vector<RunRecord>& runs) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& r : runs) {
    nlohmann::json metrics = nlohmann::json::object();
    for (const auto& key : store.metricKeys(r.id)) {
      nlohmann::json points = nlohmann::json::array();
      for (const auto& p : store.metric(r.id, key))
        points.push_back({p.step, p.wall, finiteOrNull(p.value)});
      metrics[key] = std::move(points);
    }
    nlohmann::json snapshots = nlohmann::json::array();
    for (const auto& stored : snapshotsOf(store, registry, r)) {
      const auto& s = stored.snapshot;
      nlohmann::json axes = nlohmann::json::array();
      for (const auto& a : s.axes)
        axes.push_back({{"label", a.label}, {"unit", a.unit}, {"ticks", a.ticks}});
      snapshots.push_back({{"name", s.name},
                           {"step", stored.step},
                           {"shape", s.shape},
                           {"axes", axes},
                           {"value_label", s.valueLabel},
                           {"meta", s.meta},
                           {"data", s.data}});
    }
    all.push_back({{"id", r.id},
                   {"experiment", r.experiment},
                   {"name", r.name},
                   {"status", toString(r.status)},
                   {"message", r.message},
                   {"verdicts", verdictsJson(r.verdicts)},
                   {"created", r.created},
                   {"started", r.started},
                   {"finished", r.finished},
                   {"last_step", r.lastStep},
                   {"total_steps", r.totalSteps},
                   {"archived", r.archived},
                   {"app_version", r.appVersion},
                   {"config", r.config},
                   {"build", r.build},
                   {"seed", r.seed},
                   {"device", r.device},
                   {"tags", r.tags},
                   {"notes", r.notes},
                   {"metrics", std::move(metrics)},
                   {"snapshots", std::move(snapshots)}});
    // As `runs show --json` says it: a shortened paper run's reason it has no verdicts.
    if (registry)
      if (const std::string why = whyNotCompared(*registry, r); !why.empty())
        all.back()["not_compared"] = why;
  }
  return {{"runs", std::move(all)}};
}

std::string companionCsvPath(const std::string& givenPath, const std::string& table) {
  // Beside the file the export writes: through a link, beside its target (they had gone
  // beside the link, apart from the main file).
  const std::string csvPath = symlinkTarget(givenPath);
  const std::string suffix = ".csv";
  const bool hasSuffix =
      csvPath.size() > suffix.size() &&
      std::equal(suffix.begin(), suffix.end(), csvPath.end() - static_cast<long>(suffix.size()),
                 [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
  return (hasSuffix ? csvPath.substr(0, csvPath.size() - suffix.size()) : csvPath) + "." + table +
         ".csv";
}

std::vector<std::string> exportRunsToFile(const RunStore& store, const ExperimentRegistry* registry,
                                          const std::vector<RunRecord>& runs,
                                          const std::string& path, bool json) {
  RunStore::refuseOwnFile(store.path(), path, "the export");
  if (!json)
    for (const char* table : {"snapshots", "runs"})
      RunStore::refuseOwnFile(store.path(), companionCsvPath(path, table),
                              std::string("the export's ") + table);
  AtomicFile main(path);
  if (json) {
    main.stream() << runsToJson(store, registry, runs)
                         .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << '\n';
    main.commit();
    return {path};
  }
  writeMetricsCsv(store, runs, main.stream());
  struct stat target {};
  const bool regular = ::stat(path.c_str(), &target) != 0 || S_ISREG(target.st_mode);
  if (!regular) {  // a device or a pipe: no file beside it for the snapshots
    main.commit();
    return {path};
  }
  const std::string snapshotsPath = companionCsvPath(path, "snapshots");
  const std::string runsPath = companionCsvPath(path, "runs");
  AtomicFile snapshots(snapshotsPath);
  writeSnapshotsCsv(store, registry, runs, snapshots.stream());
  AtomicFile table(runsPath);
  writeRunsCsv(registry, runs, table.stream());
  snapshots.commit();
  bool tableWritten = false;
  try {
    table.commit();
    tableWritten = true;
    main.commit();
  } catch (...) {
    std::remove(snapshotsPath.c_str());  // all or none
    if (tableWritten) std::remove(runsPath.c_str());
    throw;
  }
  return {path, snapshotsPath, runsPath};
}

}  // namespace fl::store
