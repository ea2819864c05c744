// `fourierlab-cli runs ...`: browse and edit the run store.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/confirm.h"
#include "app/cli/json_text.h"
#include "app/cli/reading_store.h"
#include "app/cli/run_export.h"
#include "core/engine/config.h"
#include "core/engine/config_diff.h"
#include "core/engine/export_values.h"
#include "core/engine/natural_order.h"
#include "core/engine/paper_verdict_restate.h"
#include "core/engine/system_metrics.h"
#include "core/engine/verdict.h"
#include "core/store/not_compared.h"
#include "core/store/run_batching.h"
#include "core/store/run_store.h"
#include "core/store/setting_use.h"
#include "core/study/study_scheduler.h"
#include "core/study/study_store.h"

namespace fl::cli {

namespace {

// A finished run's verdicts in a few words beside its status ("finished:LEAKS"; `runs show` has
// the sentences), read from the typed verdicts stored with it, never from its message; a
// shortened paper run's "not compared" (it read as a plain "finished").
std::string statusWithVerdict(const ExperimentRegistry& registry, const store::RunRecord& r) {
  std::string headline = r.status == RunStatus::Finished ? verdictHeadline(r.verdicts) : "";
  if (headline.empty() && !store::whyNotCompared(registry, r).empty()) headline = "not compared";
  return toString(r.status) + (headline.empty() ? "" : ":" + headline);
}

using store::RunRecord;
using store::RunStore;

// Names wider than this are cut (with "…") so a table row still fits a wide terminal.
constexpr size_t kMaxNameWidth = 56;

// Characters a terminal shows for UTF-8 text (a study run's name holds '·'): printf's widths
// count bytes, which left such rows short.
size_t displayWidth(const std::string& text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// `text` padded with spaces to `width` characters, or cut in its middle ("…"): a study run's
// name ends in what tells it from its siblings ("· seed=3"), which a cut at the end took off.
std::string paddedTo(const std::string& text, size_t width) {
  const size_t shown = displayWidth(text);
  if (shown <= width) return text + std::string(width - shown, ' ');
  const size_t tail = (width - 1) * 2 / 5, head = width - 1 - tail;
  std::string first, last;
  size_t characters = 0;
  for (char c : text) {
    const bool starts = (c & 0xC0) != 0x80;
    if (starts) ++characters;
    if (characters <= head)
      first += c;
    else if (characters > shown - tail)
      last += c;
  }
  return first + "…" + last;
}

std::string formatTime(double unixSeconds) {
  if (unixSeconds <= 0) return "-";
  const auto t = static_cast<std::time_t>(unixSeconds);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", std::localtime(&t));
  return buf;
}

nlohmann::json summariesJson(const RunRecord& r) {
  nlohmann::json m = nlohmann::json::object();
  for (const auto& s : r.metrics)
    m[s.key] = {{"last", finiteOrNull(s.last)},
                {"last_step", s.lastStep},
                {"min", finiteOrNull(s.min)},
                {"min_step", s.minStep},
                {"max", finiteOrNull(s.max)},
                {"max_step", s.maxStep},
                {"count", s.count}};
  return m;
}

nlohmann::json finalMetrics(const RunRecord& r) {
  nlohmann::json m = nlohmann::json::object();
  for (const auto& s : r.metrics) m[s.key] = finiteOrNull(s.last);
  return m;
}

nlohmann::json runJson(const ExperimentRegistry& registry, const RunRecord& r, bool full) {
  nlohmann::json j = {{"id", r.id},
                      {"experiment", r.experiment},
                      {"name", r.name},
                      {"status", toString(r.status)},
                      {"created", r.created},
                      {"device", r.device},
                      {"seed", r.seed},
                      {"tags", r.tags},
                      {"archived", r.archived},
                      {"last_step", r.lastStep},
                      {"total_steps", r.totalSteps},
                      {"metrics", finalMetrics(r)},
                      {"verdicts", verdictsJson(r.verdicts)}};
  if (const std::string why = store::whyNotCompared(registry, r); !why.empty())
    j["not_compared"] = why;
  if (full) {
    j["config"] = r.config;
    j["started"] = r.started;
    j["finished"] = r.finished;
    j["app_version"] = r.appVersion;
    j["build"] = r.build;
    j["notes"] = r.notes;
    j["message"] = r.message;
    j["summaries"] = summariesJson(r);
  }
  return j;
}

std::string shortMetrics(const RunRecord& r) {
  std::string out;
  for (const auto& s : r.metrics) {
    if (s.key.rfind("test/", 0) != 0 && s.key.rfind("val/", 0) != 0 && s.key != "train/loss")
      continue;
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%s%s=%.4g", out.empty() ? "" : " ", s.key.c_str(), s.last);
    out += buf;
  }
  return out;
}

int list(const RunStore& store, const ExperimentRegistry& registry, const RunsArgs& args) {
  store::RunFilter filter;
  filter.experiment = args.experiment;
  filter.tag = args.tag;
  filter.text = args.text;
  filter.usesSetting = store::settingUseOf(registry);
  filter.includeArchived = args.all;
  filter.onlyArchived = args.archived;
  if (!args.status.empty()) {
    filter.status = store::parseRunStatus(args.status);
    if (!filter.status) {
      std::fprintf(stderr,
                   "error: --status must be one of queued, running, finished, cancelled, "
                   "failed, interrupted; got '%s'\n",
                   args.status.c_str());
      return kExitBadUsage;
    }
  }
  const auto runs = store.listRuns(filter);
  store::RunFilter anyOfExperiment;
  anyOfExperiment.experiment = args.experiment;
  anyOfExperiment.includeArchived = true;
  if (runs.empty() && !args.experiment.empty() && !registry.find(args.experiment) &&
      store.listRuns(anyOfExperiment).empty()) {
    std::fprintf(stderr, "error: no experiment '%s' (experiments: %s)\n", args.experiment.c_str(),
                 registry.names().c_str());
    return kExitBadUsage;
  }
  if (args.json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : runs) all.push_back(runJson(registry, r, false));
    std::printf("%s\n", jsonText(all).c_str());
    return kExitOk;
  }
  // The name column as wide as the longest name (a study's runs are named by their setting:
  // 'table1 · dataset=gmm2 head=fourier seed=1'), up to a limit past which names are cut.
  size_t nameWidth = 4;
  for (const auto& r : runs) nameWidth = std::max(nameWidth, displayWidth(r.name));
  nameWidth = std::min(nameWidth, kMaxNameWidth);
  // The status column as wide as the longest status: a verdict such as 'errors partly as in
  // paper' ran into the date beside it.
  std::vector<std::string> statuses;
  size_t statusWidth = 6;
  for (const auto& r : runs) {
    statuses.push_back(statusWithVerdict(registry, r) + (r.archived ? " (archived)" : ""));
    statusWidth = std::max(statusWidth, displayWidth(statuses.back()));
  }
  // The seed in a column of its own: two seeds of one setting had the same cut name ("...
  // samples 300 and 1 more"), the seed being the "1 more".
  std::printf("%5s  %-14s %6s %s %s %-19s %s\n", "id", "experiment", "seed",
              paddedTo("name", nameWidth).c_str(), paddedTo("status", statusWidth).c_str(),
              "created", "final metrics");
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunRecord& r = runs[i];
    std::printf("%5lld  %-14s %6lld %s %s %-19s %s\n", static_cast<long long>(r.id),
                r.experiment.c_str(), static_cast<long long>(r.seed),
                paddedTo(r.name, nameWidth).c_str(), paddedTo(statuses[i], statusWidth).c_str(),
                formatTime(r.created).c_str(), shortMetrics(r).c_str());
  }
  return kExitOk;
}

// `memberships`: the studies the run belongs to, with its axis values in each.
int show(const ExperimentRegistry& registry, const RunRecord& r,
         const std::vector<std::pair<int64_t, nlohmann::json>>& memberships, bool json) {
  if (json) {
    auto j = runJson(registry, r, true);
    j["uid"] = r.uid;
    j["config_hash"] = r.configHash;
    j["studies"] = nlohmann::json::array();
    for (const auto& [study, axes] : memberships)
      j["studies"].push_back({{"id", study}, {"axes", axes}});
    std::printf("%s\n", jsonText(j, 2).c_str());
    return kExitOk;
  }
  std::printf("run %lld  %s  %s\n", static_cast<long long>(r.id), r.experiment.c_str(),
              r.name.c_str());
  std::printf("  status    %s%s%s\n", toString(r.status).c_str(), r.message.empty() ? "" : ": ",
              r.message.c_str());
  if (r.archived)
    std::printf(
        "  archived  yes: `runs list` leaves it out (`--all` lists it; `runs unarchive %lld`)\n",
        static_cast<long long>(r.id));
  // "finished" beside an interrupted or failed run's end read as if it had finished.
  std::printf("  created   %s   started %s   %s %s\n", formatTime(r.created).c_str(),
              formatTime(r.started).c_str(), r.status == RunStatus::Finished ? "finished" : "ended",
              formatTime(r.finished).c_str());
  // A run whose writes were lost before its first progress has no length stored: "500/0" read
  // as a run of no steps that took 500.
  const std::string steps =
      std::to_string(r.lastStep) + (r.totalSteps > 0 ? "/" + std::to_string(r.totalSteps)
                                    : r.lastStep > 0 ? std::string(" (length not stored)")
                                                     : std::string());
  std::printf("  device    %s   seed %lld   steps %s\n", r.device.c_str(),
              static_cast<long long>(r.seed), steps.c_str());
  if (const std::string trained = store::describeBatching(r.build); !trained.empty())
    std::printf("  trained   %s%s\n", trained.c_str(),
                trained == "alone" ? ""
                                   : " (batched products add in another order than a lone run's: "
                                     "the same config and seed can end elsewhere alone)");
  // The build's facts as "key value" pairs (libtorch 2.15.0, compiler ...), not raw JSON.
  std::string build;
  if (r.build.is_object())
    for (const auto& [key, value] : r.build.items())
      if (key != store::kBatchSizesKey)
        build += ", " + key + " " + (value.is_string() ? value.get<std::string>() : value.dump());
  std::printf("  versions  fourierlab %s%s\n", r.appVersion.c_str(), build.c_str());
  // Tags are joined with ", "; one from before commas were refused is quoted, so `a,b` does
  // not read as two.
  std::string tags;
  for (const auto& t : r.tags) {
    const bool quote = t.find(',') != std::string::npos || t.find('"') != std::string::npos ||
                       store::tagProblem(t).has_value();
    tags += (tags.empty() ? "" : ", ") + (quote ? nlohmann::json(t).dump() : t);
  }
  // Each line of the notes under the first, indented alike: a note's second line had begun at
  // the left edge, where the next field's name stands.
  std::string notes;
  for (const char c : r.notes)
    notes += c == '\n' ? std::string("\n            ") : std::string(1, c);
  std::printf("  tags      %s\n  notes     %s\n  config    %s\n", tags.c_str(), notes.c_str(),
              r.config.dump().c_str());
  // The config as stored, and beside it what this run does not use, as the History greys it: a
  // linear head's `"frequencies":4` read as if N mattered to it.
  if (const auto experiment = registry.find(r.experiment); experiment && r.config.is_object()) {
    std::string unused;
    for (const auto& param : experiment->allParams())
      if (r.config.contains(param.name) && !isUsed(param, r.config))
        unused +=
            (unused.empty() ? "" : "; ") + param.name + " (" + param.conditionDescription() + ")";
    if (!unused.empty()) std::printf("  not used  %s\n", unused.c_str());
  }
  for (const auto& [study, axes] : memberships)
    std::printf("  study     %lld, %s\n", static_cast<long long>(study),
                study::cellLabel(axes, r.seed).c_str());
  std::printf("  %-22s %12s %12s %10s %12s %10s %8s\n", "metric", "last", "min", "at step", "max",
              "at step", "points");
  for (const auto& s : r.metrics)
    std::printf("  %-22s %12.6g %12.6g %10lld %12.6g %10lld %8lld\n", s.key.c_str(), s.last, s.min,
                static_cast<long long>(s.minStep), s.max, static_cast<long long>(s.maxStep),
                static_cast<long long>(s.count));
  return kExitOk;
}

// Compares the values each run uses: a linear head's frequencies set it apart from no run.
int compare(const ExperimentRegistry& registry, const std::vector<RunRecord>& runs, bool json) {
  std::vector<nlohmann::json> used;
  std::vector<std::string> experiments;
  std::map<std::string, std::vector<ParamSpec>> declared;
  for (const auto& r : runs) {
    const auto experiment = registry.find(r.experiment);
    if (experiment && !declared.count(r.experiment))
      declared.emplace(r.experiment, experiment->allParams());
    used.push_back(experiment ? comparedValues(experiment->allParams(), r.config) : r.config);
    experiments.push_back(r.experiment);
  }
  std::vector<const nlohmann::json*> configs;
  for (const auto& c : used) configs.push_back(&c);
  // Each experiment's runs are compared among themselves, as in the window's History: a
  // parameter another experiment's run lacks sets none apart (fourier-head beside fope listed
  // all of both as differences, null on one side).
  const std::vector<std::string> differing =
      differingKeysWithinExperiments(experiments, configs, declared);
  const bool severalExperiments =
      std::any_of(experiments.begin(), experiments.end(),
                  [&](const std::string& e) { return e != experiments.front(); });
  // What a run shows for a parameter its experiment does not have.
  const auto lacks = [&](size_t i, const std::string& key) {
    const auto it = declared.find(experiments[i]);
    return it != declared.end() && !findParam(it->second, key);
  };
  // In reading order, as `runs list` has them: "@64" before "@128".
  std::set<std::string, NaturalLess> metricKeys;
  for (const auto& r : runs)
    for (const auto& s : r.metrics) metricKeys.insert(s.key);

  if (json) {
    nlohmann::json j = {{"runs", nlohmann::json::array()}, {"config_differences", differing}};
    for (size_t i = 0; i < runs.size(); ++i) {
      const RunRecord& r = runs[i];
      nlohmann::json diff = nlohmann::json::object();
      // A value the run does not use is null here, as a missing one: a number column stays
      // numbers for the programs that read it.
      for (const auto& k : differing) {
        const nlohmann::json value = configValue(used[i], k);
        diff[k] = isUnusedValue(value) ? nlohmann::json() : value;
      }
      j["runs"].push_back(
          {{"id", r.id},
           {"name", r.name},
           {"experiment", r.experiment},
           {"status", toString(r.status)},
           {"verdict", r.status == RunStatus::Finished ? nlohmann::json(verdictHeadline(r.verdicts))
                                                       : nlohmann::json()},
           {"trained", store::batchingLabel(r.build)},
           {"config", diff},
           {"metrics", finalMetrics(r)}});
    }
    std::printf("%s\n", jsonText(j, 2).c_str());
    return kExitOk;
  }
  // The runs' names first, whole: the columns say only "run 2", "run 50".
  for (const auto& r : runs)
    if (!r.name.empty())
      std::printf("run %lld: %s\n", static_cast<long long>(r.id), r.name.c_str());
  // Rows of cells, printed once every column is as wide as its widest cell: long statuses and
  // metric names ran into the next column.
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  const auto addRow = [&](const std::string& label, const auto& cellOf) {
    std::vector<std::string> cells;
    for (size_t i = 0; i < runs.size(); ++i) cells.push_back(cellOf(i));
    rows.emplace_back(label, std::move(cells));
  };
  addRow("", [&](size_t i) { return "run " + std::to_string(runs[i].id); });
  if (severalExperiments) addRow("experiment", [&](size_t i) { return experiments[i]; });
  std::string note;
  if (differing.empty())
    note = severalExperiments ? "(no setting differs between runs of one experiment)"
                              : "(identical configs)";
  for (const auto& k : differing)
    addRow(k, [&](size_t i) {
      if (lacks(i, k)) return std::string("-");
      const nlohmann::json value = configValue(used[i], k);
      return value.is_string() ? value.dump() : settingText(value);  // text quoted, as it was
    });
  // Alone against batched sets two runs of one config and seed apart as a setting would. Runs
  // of identical configs that differ anyway (a GMM head stuck in one, KL 0.48 against 0.04)
  // say how each trained, or that it was not recorded (trained by an older build).
  const bool batchingDiffers = std::any_of(runs.begin(), runs.end(), [&](const RunRecord& r) {
    return store::batchingLabel(r.build) != store::batchingLabel(runs.front().build);
  });
  const bool batchingUnknown = std::any_of(runs.begin(), runs.end(), [&](const RunRecord& r) {
    return store::batchingLabel(r.build).empty();
  });
  if (batchingDiffers || (differing.empty() && !severalExperiments && batchingUnknown))
    addRow("trained", [&](size_t i) {
      const std::string label = store::batchingLabel(runs[i].build);
      return label.empty() ? std::string("not recorded") : label;
    });
  if (differing.empty() && !severalExperiments && (batchingDiffers || batchingUnknown))
    note =
        "(identical configs; a batched run adds its products in another order than a lone one, "
        "so one config and seed can end apart where training is on an edge)";
  addRow("status", [&](size_t i) { return statusWithVerdict(registry, runs[i]); });
  // Results only: the process's figures (CPU, memory) are the machine's, not the runs'.
  for (const auto& key : metricKeys)
    if (!isSystemMetric(key))
      addRow(key, [&](size_t i) {
        // "-" for a metric the run never recorded (the window's word too); a recorded NaN stays.
        const auto& metrics = runs[i].metrics;
        const auto series = std::find_if(metrics.begin(), metrics.end(),
                                         [&](const auto& m) { return m.key == key; });
        if (series == metrics.end() || series->count == 0) return std::string("-");
        char value[32];
        std::snprintf(value, sizeof value, "%.6g", series->last);
        return std::string(value);
      });
  size_t labelWidth = 22;
  std::vector<size_t> widths(runs.size(), 14);
  for (const auto& [label, cells] : rows) {
    labelWidth = std::max(labelWidth, displayWidth(label) + 1);
    for (size_t i = 0; i < cells.size(); ++i)
      widths[i] = std::max(widths[i], displayWidth(cells[i]));
  }
  const auto printRow = [&](const std::string& label, const std::vector<std::string>& cells) {
    std::string line = paddedTo(label, labelWidth);
    for (size_t i = 0; i < cells.size(); ++i)
      line += " " + std::string(widths[i] - displayWidth(cells[i]), ' ') + cells[i];
    std::printf("%s\n", line.c_str());
  };
  for (size_t r = 0; r < rows.size(); ++r) {
    printRow(rows[r].first, rows[r].second);
    // The note where the settings would be: after the header and the experiments.
    if (!note.empty() && r + 1 == (severalExperiments ? 2u : 1u)) std::printf("%s\n", note.c_str());
  }
  return kExitOk;
}

}  // namespace

int runsCommand(const ExperimentRegistry& registry, const RunsArgs& args) {
  const std::string path = args.db.empty() ? RunStore::defaultPath() : args.db;
  if (args.action == "tag")
    for (const auto& t : args.words)
      if (auto problem = store::tagProblem(t)) {
        std::fprintf(stderr, "error: %s\n", problem->c_str());
        return kExitBadUsage;
      }
  if (args.action == "rename" || args.action == "note")
    if (auto problem = store::textProblem(args.value, args.action == "note" ? "notes" : "name")) {
      std::fprintf(stderr, "error: %s\n", problem->c_str());
      return kExitBadUsage;
    }
  try {
    // Every `runs` command works on runs that exist: none creates a store, or adopts an empty
    // file as one. Those that only read also read a store this user may not write.
    const bool reads = args.action == "list" || args.action == "show" || args.action == "compare" ||
                       args.action == "export";
    RunStore::requireExisting(path);
    const auto opened = reads ? openStoreForReading(path) : std::make_unique<RunStore>(path);
    RunStore& store = *opened;
    // Verdicts an older build wrote are shown as this build judges them.
    std::fputs(restatePaperVerdicts(store, registry).note(store.path()).c_str(), stderr);
    if (args.action == "list") return list(store, registry, args);

    // A run given twice would be exported or compared twice.
    for (size_t i = 0; i < args.ids.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (args.ids[i] == args.ids[j]) {
          std::fprintf(stderr, "error: run %lld is given twice\n",
                       static_cast<long long>(args.ids[i]));
          return kExitBadUsage;
        }

    std::vector<RunRecord> runs;
    for (auto id : args.ids) {
      auto r = store.run(id);
      if (!r) {
        std::fprintf(stderr, "error: no run %lld in %s\n", static_cast<long long>(id),
                     store.path().c_str());
        return kExitBadUsage;
      }
      runs.push_back(std::move(*r));
    }
    if (args.action == "show")
      return show(registry, runs.front(), study::StudyStore(store).studiesOfRun(runs.front().id),
                  args.json);
    if (args.action == "compare") {
      if (runs.size() < 2) {
        std::fprintf(stderr, "error: compare needs at least two run ids\n");
        return kExitBadUsage;
      }
      return compare(registry, runs, args.json);
    }
    if (args.action == "export") return exportRuns(store, registry, runs, args.format, args.out);
    const int64_t id = runs.front().id;
    if (args.action == "tag")
      store.addTags(id, args.words);
    else if (args.action == "untag") {
      const auto& held = runs.front().tags;
      for (const auto& t : args.words)
        if (std::none_of(held.begin(), held.end(),
                         [&](const std::string& h) { return store::sameTag(h, t); })) {
          std::string tags;
          for (const auto& h : held) tags += (tags.empty() ? "" : ", ") + h;
          std::fprintf(stderr, "error: run %lld has no tag '%s' (%s%s); nothing was removed\n",
                       static_cast<long long>(id), t.c_str(),
                       held.empty() ? "it has no tags" : "its tags: ", tags.c_str());
          return kExitBadUsage;
        }
      for (const auto& t : args.words) store.removeTag(id, t);
    } else if (args.action == "note")
      store.setNotes(id, args.value);
    else if (args.action == "rename")
      store.rename(id, args.value);
    // What an edit left, said: it printed nothing, and a note replaced the last one unseen.
    if (args.action == "tag" || args.action == "untag") {
      std::string tags;
      const auto edited = store.run(id);  // kept: a loop over a temporary's member dangled
      for (const auto& t : edited->tags) tags += (tags.empty() ? "" : ", ") + t;
      std::fprintf(stderr, "run %lld's tags: %s\n", static_cast<long long>(id),
                   tags.empty() ? "none" : tags.c_str());
    } else if (args.action == "note") {
      const std::string& before = runs.front().notes;
      std::fprintf(stderr, "run %lld's notes set%s%s%s\n", static_cast<long long>(id),
                   before.empty() ? "" : " (they were: \"", before.c_str(),
                   before.empty() ? "" : "\")");
    } else if (args.action == "rename") {
      std::fprintf(stderr, "run %lld renamed: \"%s\" (was \"%s\")\n", static_cast<long long>(id),
                   args.value.c_str(), runs.front().name.c_str());
    }
    if (args.action == "archive" || args.action == "unarchive") {
      const bool archive = args.action == "archive";
      std::string changed;
      for (const auto& r : runs) {
        // Nothing to do is said, so a mistyped id does not pass for done.
        if (r.archived == archive)
          std::fprintf(stderr, "note: run %lld is %s archived\n", static_cast<long long>(r.id),
                       archive ? "already" : "not");
        else
          changed += (changed.empty() ? "" : " ") + std::to_string(r.id);
        store.setArchived(r.id, archive);
      }
      // Said as tag, note and rename say what they did (archive was silent).
      if (!changed.empty())
        std::fprintf(stderr,
                     archive ? "archived: %s (`runs list` leaves them out; `runs unarchive %s` "
                               "brings them back)\n"
                             : "unarchived: %s (`runs list` lists them again)\n",
                     changed.c_str(), changed.c_str());
    } else if (args.action == "delete") {
      std::vector<int64_t> ids;
      for (const auto& r : runs) {
        if (r.status == RunStatus::Running) {
          std::fprintf(stderr, "error: run %lld is running; cancel it first\n",
                       static_cast<long long>(r.id));
          return kExitBadUsage;
        }
        ids.push_back(r.id);
      }
      // A study's run deleted left it silently "incomplete": said, with how to train it again.
      std::vector<std::string> notes;
      const study::StudyStore studies(store);
      for (const auto id : ids)
        for (const auto& [studyId, axes] : studies.studiesOfRun(id))
          notes.push_back("note: run " + std::to_string(id) + " was a run of study " +
                          std::to_string(studyId) + ", which now misses it (`sweep resume " +
                          std::to_string(studyId) + "` trains it again)\n");
      std::string named;
      for (const auto& r : runs)
        named += (named.empty() ? "#" : ", #") + std::to_string(r.id) +
                 (r.name.empty() ? "" : " " + r.name);
      if (!confirmedDeletion("delete " + std::to_string(ids.size()) + " run(s) (" + named +
                                 ") with their metrics, snapshots and checkpoint files?",
                             args.yes))
        return kExitOk;
      std::fprintf(stderr, "deleted %d run(s)\n", store.deleteRuns(ids));
      for (const auto& note : notes) std::fputs(note.c_str(), stderr);
    }
    return kExitOk;
  } catch (const store::StoreError& e) {
    std::fprintf(stderr, "store error: %s\n", e.what());
    return kExitStoreError;
  }
}

}  // namespace fl::cli
