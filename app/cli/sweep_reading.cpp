#include "app/cli/sweep_reading.h"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/confirm.h"
#include "app/cli/export_format.h"
#include "app/cli/figure_file.h"
#include "app/cli/json_text.h"
#include "app/cli/next_command.h"
#include "app/cli/reading_store.h"
#include "core/engine/atomic_file.h"
#include "core/engine/config.h"
#include "core/engine/config_diff.h"
#include "core/engine/export_values.h"
#include "core/engine/natural_order.h"
#include "core/engine/run_name.h"
#include "core/study/paper_departure.h"
#include "core/study/study_aggregate.h"
#include "core/study/study_claims.h"
#include "core/study/study_expansion.h"
#include "core/study/study_figure.h"
#include "core/study/study_scheduler.h"
#include "core/study/study_store.h"
#include "core/study/study_table.h"

namespace fl::cli {

namespace {

namespace fs = std::filesystem;
using study::StudyRecord;
using study::StudyStore;

std::string formatTime(double unixSeconds) {
  const auto t = static_cast<std::time_t>(unixSeconds);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M", std::localtime(&t));
  return buf;
}

int64_t count(const StudyRecord& r, RunStatus status) {
  return study::countOf(r.statusCounts, status);
}

std::string titleOf(const StudyRecord& r) {
  return "study " + std::to_string(r.id) + ": " + r.name + " (" + r.experiment + "), " +
         std::to_string(r.cells) + " runs, " + std::to_string(count(r, RunStatus::Finished)) +
         " finished";
}

StudyRecord requireStudy(const StudyStore& studies, int64_t id, const std::string& path) {
  auto r = studies.study(id);
  if (!r) throw std::invalid_argument("no study " + std::to_string(id) + " in " + path);
  return *r;
}

// Through AtomicFile, as `runs export`: a failed write never leaves a half file under the
// final name, and says which file and why (a full disk, a missing folder).
void writeFileAtomically(const std::string& path, const std::string& text) {
  AtomicFile file(path);
  file.write(text.data(), text.size());
  file.commit();
}

int listStudies(const StudyStore& studies, bool json) {
  const auto all = studies.list();
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : all)
      out.push_back({{"id", r.id},
                     {"name", r.name},
                     {"experiment", r.experiment},
                     {"runs", r.cells},
                     {"status", toString(r.status())},
                     {"counts", study::countsJson(r.statusCounts)},
                     {"created", r.created},
                     {"settings", study::settingsText(r.spec)},
                     {"uid", r.uid}});
    for (size_t i = 0; i < all.size(); ++i)
      if (!all[i].unreadable.empty()) out[i]["unreadable"] = all[i].unreadable;
    std::printf("%s\n", jsonText(out, 2).c_str());
    return kExitOk;
  }
  if (all.empty()) {
    std::printf("no studies yet: `fourierlab-cli sweep run fourier-head --study table1`\n");
    return kExitOk;
  }
  std::printf("%-4s %-20s %-13s %6s %9s %7s  %-11s %-19s %s\n", "id", "name", "experiment", "runs",
              "finished", "failed", "status", "created", "settings");
  for (const auto& r : all)
    std::printf("%-4lld %-20s %-13s %6lld %9lld %7lld  %-11s %-19s %s\n",
                static_cast<long long>(r.id), r.name.c_str(), r.experiment.c_str(),
                static_cast<long long>(r.cells),
                static_cast<long long>(count(r, RunStatus::Finished)),
                static_cast<long long>(count(r, RunStatus::Failed)), toString(r.status()).c_str(),
                formatTime(r.created).c_str(),
                (r.unreadable.empty() ? study::settingsText(r.spec) : "unreadable: " + r.unreadable)
                    .c_str());
  return kExitOk;
}

std::string axesText(const std::vector<study::Axis>& axes) {
  std::string out;
  for (const auto& a : axes) {
    std::string values;
    for (const auto& v : a.values) values += (values.empty() ? "" : ", ") + settingText(v);
    out += (out.empty() ? "" : "; ") + a.key + " = " + values;
  }
  return out;
}

int showStudy(const ExperimentRegistry& registry, const StudyStore& studies, int64_t id,
              const std::string& path, bool json) {
  const StudyRecord r = requireStudy(studies, id, path);
  const auto experiment = registry.find(r.experiment);
  // The description speaks of the declared study; what this one changed is said under it.
  const std::string departs = experiment ? study::departureNote(*experiment, r.spec) : "";
  const auto results = studies.results(id);
  if (json) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& x : results)
      runs.push_back({{"cell", x.cell},
                      {"run_id", x.runId ? nlohmann::json(x.runId) : nlohmann::json()},
                      {"status", study::toString(x.status)},
                      {"arm", x.arm},
                      {"axes", x.axes},
                      {"seed", x.seed},
                      {"reused", x.reused},
                      {"message", x.message}});
    nlohmann::json out = {{"id", r.id},
                          {"uid", r.uid},
                          {"name", r.name},
                          {"experiment", r.experiment},
                          {"status", toString(r.status())},
                          {"counts", study::countsJson(r.statusCounts)},
                          {"created", r.created},
                          {"batch", r.batch.empty() ? nlohmann::json() : nlohmann::json(r.batch)},
                          {"spec", nlohmann::json(r.spec.toJson())},
                          {"departs", departs},
                          {"runs", runs}};
    std::printf("%s\n", jsonText(out, 2).c_str());
    return kExitOk;
  }
  const auto& s = r.spec;
  std::printf("study %lld: %s%s\n", static_cast<long long>(r.id), r.name.c_str(),
              s.title.empty() ? "" : (" - " + s.title).c_str());
  if (!s.description.empty()) std::printf("  %s\n", s.description.c_str());
  if (!departs.empty()) std::printf("  %s\n", departs.c_str());
  std::printf("  experiment %s, created %s, status %s\n", r.experiment.c_str(),
              formatTime(r.created).c_str(), toString(r.status()).c_str());
  if (!s.preset.empty()) std::printf("  preset: %s\n", s.preset.c_str());
  if (!s.overrides.empty()) std::printf("  set: %s\n", s.overrides.dump().c_str());
  if (!s.grid.empty()) std::printf("  grid: %s\n", axesText(s.grid).c_str());
  for (const auto& z : s.zips) std::printf("  zipped: %s\n", axesText(z.axes).c_str());
  for (const auto& a : s.arms) {
    // Its zips too: an arm sweeping N and gamma together read as fixed settings alone.
    std::string zipped;
    for (const auto& z : a.zips) zipped += "; zipped " + axesText(z.axes);
    std::printf("  arm %s: set %s%s%s\n", a.name.c_str(), a.overrides.dump().c_str(),
                a.grid.empty() ? "" : ("; grid " + axesText(a.grid)).c_str(), zipped.c_str());
  }
  std::string seeds;
  for (auto seed : s.seeds) seeds += (seeds.empty() ? "" : ", ") + std::to_string(seed);
  std::printf("  seeds: %s\n", seeds.empty() ? "the config's own" : seeds.c_str());
  if (s.references) std::printf("  paper: %s\n", s.references->source.c_str());
  // Its claims as it states them (`sweep table` judges them): a study's own words, which a
  // reader had to open its file for.
  if (!s.claims.empty())
    std::printf("  claims (judged by `sweep table %lld`):\n", static_cast<long long>(r.id));
  for (const auto& claim : s.claims) std::printf("    %s\n", claim.text.c_str());
  // How its runs train together, kept for its resumes ("not recorded": not trained yet, or by
  // a build before the store kept it).
  std::printf("  batch: %s\n", r.batch.empty()
                                   ? "not recorded"
                                   : ("--batch " + r.batch + ", as first trained").c_str());
  std::string counts;
  for (const auto& [status, n] : r.statusCounts)
    counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + study::toString(status);
  std::printf("  runs: %lld (%s)\n", static_cast<long long>(r.cells), counts.c_str());
  if (const std::string reused = study::reusedRunsText(results); !reused.empty())
    std::printf("  %s\n", reused.c_str());
  int listed = 0;
  for (const auto& x : results) {
    if (x.status == RunStatus::Finished) continue;
    if (listed++ == 0) std::printf("  not finished:\n");
    if (listed > 20) continue;
    std::printf("    %s %s: %s%s%s\n",
                x.runId ? ("run " + std::to_string(x.runId)).c_str() : "(no run yet)",
                study::cellLabel(x.arm, x.axes, x.seed).c_str(), study::toString(x.status).c_str(),
                x.message.empty() ? "" : " - ", x.message.c_str());
  }
  if (listed > 20) std::printf("    ... and %d more\n", listed - 20);
  if (listed > 0)
    std::printf("  `%s` trains them\n",
                nextCommand("sweep resume " + std::to_string(r.id), path).c_str());
  return kExitOk;
}

// The runs of a study that did not finish, as its readers say them: a table counts "3 of 4" in
// its cells, a figure leaves them out, an export holds what they reached; each says so on
// stderr, with what trains them (export and plot had said nothing).
struct UnfinishedRuns {
  int64_t cells = 0;
  int64_t finished = 0;
  std::string others;  // "1 interrupted, 1 failed"
  std::string next;    // "`sweep resume 1` trains the rest", or where they train now
};

UnfinishedRuns unfinishedRunsOf(const StudyRecord& r, const std::string& path) {
  UnfinishedRuns u;
  for (const auto& [status, count] : r.statusCounts) {
    u.cells += count;
    if (status == RunStatus::Finished)
      u.finished = count;
    else
      u.others +=
          (u.others.empty() ? "" : ", ") + std::to_string(count) + " " + study::toString(status);
  }
  // Runs training now (here or in another process) need no resume: where some are, the
  // study's own account says which and where.
  const bool training = study::countOf(r.statusCounts, study::CellStatus(RunStatus::Running)) +
                            study::countOf(r.statusCounts, study::CellStatus(RunStatus::Queued)) >
                        0;
  u.next = training ? "`" + nextCommand("sweep show " + std::to_string(r.id), path) +
                          "` says which train where"
                    : "`" + nextCommand("sweep resume " + std::to_string(r.id), path) +
                          "` trains " + (u.finished == 0 ? "them" : "the rest");
  return u;
}

// "note: 3 of 4 runs finished (1 interrupted)<how>: `sweep resume 1` trains the rest".
void sayUnfinished(const UnfinishedRuns& u, const std::string& how) {
  if (u.finished < u.cells)
    std::fprintf(stderr, "note: %lld of %lld runs finished (%s)%s: %s\n",
                 static_cast<long long>(u.finished), static_cast<long long>(u.cells),
                 u.others.c_str(), how.c_str(), u.next.c_str());
}

int exportStudy(const StudyStore& studies, int64_t id, const std::string& path,
                const SweepArgs& args) {
  const StudyRecord r = requireStudy(studies, id, path);
  const auto results = studies.results(id);
  const auto axes = study::axisOrderOf(r.spec);
  // In natural order, as the window lists them: passkey/acc@64 before passkey/acc@128.
  std::set<std::string, NaturalLess> metricSet;
  for (const auto& x : results)
    for (const auto& [k, v] : x.last) metricSet.insert(k);
  const std::vector<std::string> metrics(metricSet.begin(), metricSet.end());
  const std::string format = exportFormat(args.format, args.out);
  std::string text;
  if (format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& x : results) {
      nlohmann::json m = nlohmann::json::object();
      for (const auto& [k, v] : x.last) m[k] = finiteOrNull(v);
      out.push_back({{"study", id},
                     {"study_name", r.name},
                     {"cell", x.cell},
                     {"run_id", x.runId ? nlohmann::json(x.runId) : nlohmann::json()},
                     {"status", study::toString(x.status)},
                     {"arm", x.arm},
                     {"axes", x.axes},
                     {"seed", x.seed},
                     {"metrics", m},
                     {"config", x.config}});
    }
    text = jsonText(out, 2) + "\n";
  } else if (format == "csv") {
    text = "study,cell,run_id,status,arm";
    for (const auto& a : axes) text += "," + csvField(a);
    text += ",seed";
    for (const auto& m : metrics) text += "," + csvField(m);
    text += "\n";
    for (const auto& x : results) {
      text += std::to_string(id) + "," + std::to_string(x.cell) + "," +
              (x.runId ? std::to_string(x.runId) : "") + "," + study::toString(x.status) + "," +
              csvField(x.arm);
      for (const auto& a : axes)
        text += "," + csvField(x.axes.contains(a) ? settingText(x.axes.at(a)) : "");
      text += "," + std::to_string(x.seed);
      for (const auto& m : metrics) {
        auto it = x.last.find(m);
        text += ",";
        if (it != x.last.end() && std::isfinite(it->second)) {
          char buf[40];
          // Every digit the double has, as `runs export` writes it: 9 had rounded
          // 174.24917821584918 to 174.249178, apart from the same run's JSON.
          std::snprintf(buf, sizeof buf, "%.17g", it->second);
          text += buf;
        }
      }
      text += "\n";
    }
  } else {
    throw std::invalid_argument("--format " + format + ": export writes csv or json");
  }
  if (args.out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    store::RunStore::refuseOwnFile(path, args.out, "the export");
    writeFileAtomically(args.out, text);
    // A cell no run was made for yet has its row, and is no run: "wrote 6 runs" of a study
    // with 2 cells missing had counted them.
    const auto runs =
        std::count_if(results.begin(), results.end(), [](const auto& x) { return x.runId != 0; });
    const auto missing = static_cast<long long>(results.size()) - runs;
    std::fprintf(stderr, "wrote %lld run%s of study %lld to %s%s\n", static_cast<long long>(runs),
                 runs == 1 ? "" : "s", static_cast<long long>(id), args.out.c_str(),
                 missing == 0 ? ""
                              : (" (and " + std::to_string(missing) + " row" +
                                 (missing == 1 ? "" : "s") + " of cells no run was made for yet)")
                                    .c_str());
  }
  sayUnfinished(unfinishedRunsOf(r, path),
                "; their rows hold the values they reached, as their status column says");
  return kExitOk;
}

// A study without a finished run has no table or figure to give: said, with what its runs
// are and how to train them, as a run that failed (exit 1). Returns false when it said so.
bool saidNoneFinished(const StudyRecord& r, const UnfinishedRuns& unfinished, const char* what) {
  if (unfinished.finished > 0) return true;
  std::fprintf(stderr, "error: study %lld has no finished run to %s (%s): %s\n",
               static_cast<long long>(r.id), what, unfinished.others.c_str(),
               unfinished.next.c_str());
  return false;
}

study::FigureLayout plotLayout(const ExperimentRegistry& registry, const StudyRecord& r,
                               const SweepArgs& args) {
  study::FigureLayout layout;
  if (!args.figure.empty() && !args.x.empty())
    throw std::invalid_argument("--figure " + args.figure + " and --x " + args.x +
                                " cannot be combined: give one of them");
  if (args.x.empty()) {
    if (r.spec.figures.empty())
      throw std::invalid_argument("study " + std::to_string(r.id) +
                                  " declares no figure: give --x AXIS and --metric M");
    const study::FigureLayout* chosen = &r.spec.figures.front();
    if (!args.figure.empty()) {
      chosen = nullptr;
      std::string known;
      for (const auto& f : r.spec.figures) {
        if (f.name == args.figure) chosen = &f;
        if (!f.name.empty()) known += (known.empty() ? "" : ", ") + f.name;
      }
      // By its number where no figure has that name: a study file's figures need no names,
      // and its second unnamed figure could not be drawn at all.
      const auto& figures = r.spec.figures;
      if (!chosen && !args.figure.empty() &&
          args.figure.find_first_not_of("0123456789") == std::string::npos &&
          args.figure.size() <= 6) {
        const size_t number = std::stoul(args.figure);
        if (number >= 1 && number <= figures.size()) chosen = &figures[number - 1];
      }
      if (!chosen) {
        const std::string numbers =
            figures.size() == 1 ? "1" : "1 to " + std::to_string(figures.size());
        throw std::invalid_argument("--figure " + args.figure + ": the study declares " +
                                    (known.empty() ? "" : known + ", or ") + "figures numbered " +
                                    numbers);
      }
    }
    layout = *chosen;
  } else {
    // The study's own figure for this x, if any, is drawn as it declares it (its lines, panels
    // and band, as the window's Study tab draws it: the window drew Table 1's bars at ± 1 std
    // and `sweep plot --x head` at ± 0.67); the options below change only what they name. Else
    // its first figure's metrics are drawn where --metric names none ("--x dataset" alone was
    // refused).
    if (!r.spec.figures.empty()) layout.metrics = r.spec.figures.front().metrics;
    for (const auto& f : r.spec.figures)
      if (f.x == args.x) {
        layout = f;
        break;
      }
    layout.x = args.x;
  }
  if (!args.metrics.empty()) layout.metrics = args.metrics;
  if (const auto experiment = registry.find(r.experiment))
    study::addMetricAxes(layout, experiment->panels());
  if (!args.group.empty()) layout.group = args.group;
  if (!args.panel.empty()) layout.panel = args.panel;
  if (!args.band.empty()) {
    if (args.band != "std" && args.band != "half" && args.band != "minmax" && args.band != "none")
      throw std::invalid_argument("--band " + args.band + ": use std, half, minmax or none");
    layout.band = args.band;
  }
  if (!args.where.empty()) {
    auto experiment = registry.find(r.experiment);
    const auto specs = experiment ? experiment->allParams() : std::vector<ParamSpec>{};
    // A key the drawn figure declares a value for takes the one given here instead (it was
    // refused as "given twice" though given once).
    nlohmann::json given = nlohmann::json::object();
    for (const auto& w : args.where) {
      const auto eq = w.find('=');
      if (eq == std::string::npos || eq == 0)
        throw std::invalid_argument("--where " + w + ": expected KEY=VALUE");
      const std::string key = w.substr(0, eq);
      const ParamSpec* spec = findParam(specs, key);
      if (!spec) throw std::invalid_argument("--where " + w + ": unknown parameter '" + key + "'");
      ParsedValue v = parseValue(*spec, w.substr(eq + 1));
      if (v.error) throw std::invalid_argument("--where " + w + ": " + *v.error);
      // Two values of one key drew the last alone, as if asked for (a figure of both reads
      // --where dropped: one line per value).
      if (given.contains(key))
        throw std::invalid_argument(
            "--where " + key + " given twice (" + given.at(key).dump() + " and " + v.value.dump() +
            "): a figure takes one value per key; without --where it " + "draws every value");
      given[key] = v.value;
      layout.where[key] = v.value;
    }
  }
  return layout;
}

// A --where value that no run of the study takes: drawn, it gave a figure of the baselines
// alone, exit 0, the swept line silently gone.
void refuseWhereNoRunTakes(const std::vector<std::string>& given, const nlohmann::json& where,
                           const std::vector<study::AggregateCell>& cells) {
  for (const auto& text : given) {
    const std::string key = text.substr(0, text.find('='));
    if (!where.contains(key)) continue;
    const nlohmann::json wanted = nlohmann::json::object({{key, where.at(key)}});
    std::vector<std::string> taken;
    bool found = false;
    for (const auto& c : cells) {
      if (!c.axes.contains(key)) continue;
      found = found || study::matches(wanted, c.axes);
      const std::string value = settingText(c.axes.at(key));
      if (std::find(taken.begin(), taken.end(), value) == taken.end()) taken.push_back(value);
    }
    if (found || taken.empty()) continue;
    std::string values;
    for (const auto& t : taken) values += (values.empty() ? "" : ", ") + t;
    throw std::invalid_argument("--where " + text + ": no run of the study has it (" + key +
                                " takes " + values + ")");
  }
}

int plotStudy(const ExperimentRegistry& registry, const StudyStore& studies, int64_t id,
              const std::string& path, const SweepArgs& args) {
  const StudyRecord r = requireStudy(studies, id, path);
  if (args.out.empty()) throw std::invalid_argument("--out FILE.svg|png|pdf is required");
  const std::string ext = lowercaseExtension(args.out);
  if (ext != ".svg" && ext != ".png" && ext != ".pdf")
    throw std::invalid_argument("--out " + args.out + ": the file must end in .svg, .png or .pdf");
  // The store's own files are never drawn over: `--out fig.svg`, a link to the store, had
  // replaced the store with a picture of it, as an export is refused.
  store::RunStore::refuseOwnFile(path, args.out, "the figure");
  // A figure of no finished run exited 2, as a mistyped metric does; a table of none exits 1.
  const UnfinishedRuns unfinished = unfinishedRunsOf(r, path);
  if (!saidNoneFinished(r, unfinished, "plot")) return kExitRunFailed;
  const study::FigureLayout layout = plotLayout(registry, r, args);
  const auto stat = r.spec.references ? r.spec.references->stat : std::string("last");
  auto cells = study::aggregate(studies.results(id), stat);
  const auto experiment = registry.find(r.spec.experiment);
  if (experiment) study::markDepartures(*experiment, r.spec, cells);
  refuseWhereNoRunTakes(args.where, layout.where, cells);
  study::StudyFigure figure;
  try {
    figure = study::buildStudyFigure(
        cells, layout, r.spec.references ? &*r.spec.references : nullptr,
        study::figureAxesOf(r.spec), r.spec.title.empty() ? r.name : r.spec.title);
  } catch (const study::FigureError& e) {
    // Metrics the study file's figure names: blamed on --metric, a flag never given, it had
    // sent the reader to the command line for a typo in the file.
    const std::string what = e.what();
    const std::string flag = "--metric ";
    if (!args.metrics.empty() || what.rfind(flag, 0) != 0) throw;
    throw study::FigureError(e.kind(), "the study's figure metric " + what.substr(flag.size()) +
                                           " (its file's \"figures\"; --metric draws others)");
  }
  if (experiment) figure.departure = study::departureNote(*experiment, r.spec);
  const int width = args.width > 0 ? args.width : 560 * figure.cols + 200;
  const int height = args.height > 0 ? args.height : 380 * figure.rows + 90;
  const std::string error = writeStudyFigure(figure, args.out, width, height);
  if (!error.empty()) {  // a file that could not be written, as an export's (exit 3)
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return kExitStoreError;
  }
  if (!figure.departure.empty())
    std::fprintf(stderr, "note: the figure says: %s\n", figure.departureCaption().c_str());
  const auto counted = [](int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::fprintf(stderr, "wrote %s: %s, %s (%s)\n", args.out.c_str(),
               counted(static_cast<int>(figure.panels.size()), "panel", "panels").c_str(),
               counted(figure.seriesCount(), "series", "series").c_str(),
               figure.bandDescription.c_str());
  sayUnfinished(unfinished, "; the figure holds the finished ones");
  return kExitOk;
}

}  // namespace

void printStudyTable(const ExperimentRegistry& registry, store::RunStore& runs, int64_t studyId,
                     const SweepArgs& args, std::FILE* out) {
  StudyStore studies(runs);
  const StudyRecord r = requireStudy(studies, studyId, runs.path());
  const auto stat = r.spec.references ? r.spec.references->stat : std::string("last");
  study::StudyTableInput input;
  input.title = titleOf(r);
  input.axisOrder = study::axisOrderOf(r.spec);
  input.cells = study::aggregate(studies.results(studyId), stat);
  if (auto experiment = registry.find(r.spec.experiment)) {
    study::markDepartures(*experiment, r.spec, input.cells);
    input.params = experiment->allParams();
  }
  input.references = r.spec.references ? &*r.spec.references : nullptr;
  input.claims = &r.spec.claims;
  input.claimsScale = study::claimsScaleText(r.spec);
  study::TableRequest request;
  request.format = args.format.empty() ? "md" : args.format;
  request.rows = args.rows.empty() && r.spec.table ? r.spec.table->rows : args.rows;
  request.cols = args.cols.empty() && r.spec.table ? r.spec.table->cols : args.cols;
  request.metrics = args.metrics;
  if (r.spec.table) request.layoutMetrics = r.spec.table->metrics;
  // A table layout that names an axis the (edited) study lacks falls back to the defaults.
  const auto& axes = input.axisOrder;
  auto has = [&](const std::string& a) {
    return (a == study::kArmAxis && !r.spec.arms.empty()) ||
           std::find(axes.begin(), axes.end(), a) != axes.end();
  };
  if (args.rows.empty() && !request.rows.empty() && !has(request.rows)) request.rows.clear();
  if (args.cols.empty() && !request.cols.empty() && !has(request.cols)) request.cols.clear();
  const std::string text = study::renderStudyTable(input, request);
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
  // A CSV is one row per setting and metric: the claims, which the other formats carry, are
  // said to be elsewhere rather than left out unsaid.
  if (request.format == "csv" && !r.spec.claims.empty())
    std::fprintf(stderr,
                 "note: the CSV holds no claims (the study has %zu): --format md or json has "
                 "them\n",
                 r.spec.claims.size());
}

int sweepReadingCommand(const ExperimentRegistry& registry, const std::string& dbPath,
                        const SweepArgs& args) {
  // Reading never creates a store, nor adopts an empty file. Deleting needs to write; the rest
  // reads a store this user may not write as it is.
  store::RunStore::requireExisting(dbPath);
  const auto opened = args.action == "delete" ? std::make_unique<store::RunStore>(dbPath)
                                              : openStoreForReading(dbPath);
  store::RunStore& runs = *opened;
  StudyStore studies(runs);
  try {
    if (args.action == "list") return listStudies(studies, args.json);
    if (args.action == "show") return showStudy(registry, studies, args.id, runs.path(), args.json);
    if (args.action == "table") {
      // A table of no finished run is a header alone: said instead, with what its runs are
      // and how to train them; one of some runs counts "3 of 4" in its cells, and the rest is
      // named on stderr.
      const StudyRecord r = requireStudy(studies, args.id, runs.path());
      const UnfinishedRuns unfinished = unfinishedRunsOf(r, runs.path());
      if (!saidNoneFinished(r, unfinished, "table")) return kExitRunFailed;
      printStudyTable(registry, runs, args.id, args, stdout);
      sayUnfinished(unfinished, "");
      return kExitOk;
    }
    if (args.action == "export") return exportStudy(studies, args.id, runs.path(), args);
    if (args.action == "plot") return plotStudy(registry, studies, args.id, runs.path(), args);
    if (args.action == "delete") {
      const StudyRecord r = requireStudy(studies, args.id, runs.path());
      // Opening the store marked the runs of dead processes interrupted: what is still running
      // or queued has a live trainer, which must not lose its study under it. Asked before the
      // question and again after it: a `sweep resume` started while it waited for an answer
      // has runs of its own by then.
      const auto refusedWhileTraining = [&] {
        std::vector<int64_t> live;
        for (const auto& run : studies.results(args.id))
          if (run.status == RunStatus::Running || run.status == RunStatus::Queued)
            live.push_back(run.runId);
        if (live.empty()) return false;
        std::fprintf(stderr,
                     "error: study %lld is training (%s); stop its process first (Ctrl-C, "
                     "kill: they keep their checkpoints), then delete it\n",
                     static_cast<long long>(r.id), nameRunIds(live).c_str());
        return true;
      };
      if (refusedWhileTraining()) return kExitBadUsage;  // as `runs delete` refuses a running run
      // Runs made before the study (the user's own, taken as they were) and runs another
      // study uses stay: only what this study alone trained goes with it.
      const std::vector<int64_t> going =
          args.keepRuns ? std::vector<int64_t>{} : studies.runsOnlyItTrained(args.id);
      std::set<int64_t> kept;
      for (const auto& run : studies.results(args.id))
        if (run.runId && std::find(going.begin(), going.end(), run.runId) == going.end())
          kept.insert(run.runId);
      const std::string what =
          "study " + std::to_string(r.id) + " (" + r.name + ")" +
          (going.empty() ? "" : " and " + std::to_string(going.size()) + " run(s) it trained");
      if (!confirmedDeletion("delete " + what + "?", args.yes)) return kExitOk;
      if (refusedWhileTraining()) return kExitBadUsage;
      // The runs the question named, not worked out again.
      studies.remove(args.id, /*withRuns=*/false);
      if (!going.empty()) runs.deleteRuns(going);
      std::string keptText;
      if (!kept.empty())
        keptText = "; kept " + nameRunIds({kept.begin(), kept.end()}) +
                   (args.keepRuns ? "" : " (made before it, or used by another study)");
      std::fprintf(stderr, "deleted %s%s\n", what.c_str(), keptText.c_str());
      return kExitOk;
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadUsage;
  } catch (const FileWriteError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitStoreError;
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const store::StoreError*>(&e)) throw;
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitRunFailed;
  }
  std::fprintf(stderr, "error: unknown sweep action '%s'\n", args.action.c_str());
  return kExitBadUsage;
}

}  // namespace fl::cli
