#include "core/study/study_store.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "core/engine/build_info.h"
#include "core/engine/checkpoint_load.h"
#include "core/store/config_hash.h"
#include "core/store/resume_plan.h"
#include "core/store/run_verdicts.h"
#include "core/store/schema.h"
#include "core/study/study_run_name.h"

namespace fl::study {

namespace fs = std::filesystem;
using store::Statement;
using store::Transaction;

namespace {

// Whether the study made the cell's run (c: study_cells, r: runs, st: studies): as its claim
// recorded it, or, in a study from a build that did not record it, made after the study.
constexpr const char* kStudyMadeRun = "coalesce(c.made_run = 1, r.created >= st.created)";

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// `lenient`: a spec that cannot be read is said in StudyRecord::unreadable, not thrown.
StudyRecord readStudy(Statement& s, const std::string& storePath, bool lenient = false) {
  StudyRecord r;
  r.id = s.int64(0);
  r.uid = s.text(1);
  r.name = s.text(2);
  r.experiment = s.text(3);
  r.created = s.real(5);
  r.notes = s.text(6);
  r.batch = s.text(7);
  try {
    r.spec = StudySpec::fromText(s.text(4));
  } catch (const std::exception& e) {
    // A damaged row (a bad sector, a hand edit) is the store's fault, said as such and where:
    // it read "error: not valid JSON: ..." as if a study file given had been wrong.
    if (lenient) {
      r.unreadable = std::string("its stored spec is damaged (") + e.what() + ")";
      return r;
    }
    throw store::StoreError(storePath, "study " + std::to_string(r.id) + " (\"" + r.name +
                                           "\") cannot be read: its stored spec is damaged (" +
                                           e.what() + ")");
  }
  return r;
}

constexpr const char* kStudyColumns = "id, uid, name, experiment, spec, created, notes, batch";

// A cell's status as the store holds it: its run's, or none (NULL) while it has no run. A word
// this build does not know reads as failed, as RunStore reads it.
CellStatus cellStatusAt(const Statement& s, int column) {
  if (s.isNull(column)) return std::nullopt;
  return store::parseRunStatus(s.text(column)).value_or(RunStatus::Failed);
}

}  // namespace

std::string specHash(const StudySpec& spec) { return store::stableHash(spec.toJson().dump()); }

std::string toString(StudyStatus status) {
  switch (status) {
    case StudyStatus::Finished:
      return "finished";
    case StudyStatus::Running:
      return "running";
    case StudyStatus::Incomplete:
      break;
  }
  return "incomplete";
}

StudyStatus StudyRecord::status() const {
  auto count = [&](RunStatus s) { return countOf(statusCounts, s); };
  if (count(RunStatus::Finished) == cells) return StudyStatus::Finished;
  if (count(RunStatus::Running) > 0 || count(RunStatus::Queued) > 0) return StudyStatus::Running;
  return StudyStatus::Incomplete;
}

int64_t StudyStore::create(const StudySpec& spec, const StudyExpansion& expansion) {
  const auto& db = m_runs.database();
  Transaction tx(db);
  auto insert = db.prepare(
      "INSERT INTO studies(uid, name, experiment, spec, spec_hash, created) VALUES (?, ?, ?, ?, ?, "
      "?)");
  insert.bind(1, store::newUid())
      .bind(2, spec.name)
      .bind(3, spec.experiment)
      .bind(4, spec.toJson().dump())
      .bind(5, specHash(spec))
      .bind(6, nowSeconds())
      .run();
  const int64_t id = db.lastInsertId();
  auto cell = db.prepare(
      "INSERT INTO study_cells(study_id, cell, arm, axes, seed, config, config_hash, run_id, "
      "made_run) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const auto& c : expansion.cells) {
    const auto reused = finishedRunOf(spec.experiment, c.hash);
    cell.bind(1, id)
        .bind(2, c.index)
        .bind(3, c.arm)
        .bind(4, c.axes.dump())
        .bind(5, c.seed)
        .bind(6, c.config.dump())
        .bind(7, c.hash);
    if (reused)
      cell.bind(8, *reused).bind(9, int64_t(0));  // taken as it was
    else
      cell.bindNull(8).bindNull(9);
    cell.run();
  }
  tx.commit();
  return id;
}

std::optional<int64_t> StudyStore::finishedRunOf(const std::string& experiment,
                                                 const std::string& configHash) const {
  auto finished = m_runs.database().prepare(
      "SELECT id FROM runs WHERE config_hash = ? AND experiment = ? AND status = 'finished' "
      "ORDER BY id LIMIT 1");
  finished.bind(1, configHash).bind(2, experiment);
  if (!finished.step()) return std::nullopt;
  return finished.int64(0);
}

std::optional<int64_t> StudyStore::findSameSpec(const StudySpec& spec) const {
  auto s =
      m_runs.database().prepare("SELECT id, spec FROM studies WHERE spec_hash = ? ORDER BY id");
  s.bind(1, specHash(spec));
  const std::string text = spec.toJson().dump();
  while (s.step())
    if (StudySpec::fromText(s.text(1)).toJson().dump() == text) return s.int64(0);
  return std::nullopt;
}

std::vector<StudyRecord> StudyStore::list() const {
  const auto& db = m_runs.database();
  auto s = db.prepare(std::string("SELECT ") + kStudyColumns + " FROM studies ORDER BY id");
  std::vector<StudyRecord> out;
  std::map<int64_t, size_t> index;
  while (s.step()) {
    index[s.int64(0)] = out.size();
    out.push_back(readStudy(s, m_runs.path(), /*lenient=*/true));
  }
  auto counts = db.prepare(
      "SELECT c.study_id, r.status, count(*) FROM study_cells c "
      "LEFT JOIN runs r ON r.id = c.run_id GROUP BY 1, 2");
  while (counts.step()) {
    auto it = index.find(counts.int64(0));
    if (it == index.end()) continue;
    out[it->second].statusCounts[cellStatusAt(counts, 1)] += counts.int64(2);
    out[it->second].cells += counts.int64(2);
  }
  return out;
}

std::optional<StudyRecord> StudyStore::study(int64_t id) const {
  const auto& db = m_runs.database();
  auto s = db.prepare(std::string("SELECT ") + kStudyColumns + " FROM studies WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  StudyRecord r = readStudy(s, m_runs.path());
  auto counts = db.prepare(
      "SELECT r.status, count(*) FROM study_cells c "
      "LEFT JOIN runs r ON r.id = c.run_id WHERE c.study_id = ? GROUP BY 1");
  counts.bind(1, id);
  while (counts.step()) {
    r.statusCounts[cellStatusAt(counts, 0)] += counts.int64(1);
    r.cells += counts.int64(1);
  }
  return r;
}

std::vector<StudyRunResult> StudyStore::results(int64_t id) const {
  const auto& db = m_runs.database();
  auto s = db.prepare(
      std::string("SELECT c.cell, c.arm, c.axes, c.seed, c.config, c.run_id, r.status, "
                  "coalesce(r.message, ''), coalesce(NOT ") +
      kStudyMadeRun +
      ", 0) FROM study_cells c JOIN studies st ON st.id = c.study_id LEFT JOIN runs r ON r.id = "
      "c.run_id WHERE c.study_id = ? ORDER BY c.cell");
  s.bind(1, id);
  std::vector<StudyRunResult> out;
  std::map<int64_t, std::vector<size_t>> byRun;
  while (s.step()) {
    StudyRunResult r;
    r.cell = s.int64(0);
    r.arm = s.text(1);
    r.axes = nlohmann::json::parse(s.text(2));
    r.seed = s.int64(3);
    r.config = nlohmann::json::parse(s.text(4));
    r.runId = s.isNull(5) ? 0 : s.int64(5);
    r.status = cellStatusAt(s, 6);
    r.message = s.text(7);
    r.reused = s.int64(8) != 0;
    if (r.runId) byRun[r.runId].push_back(out.size());
    out.push_back(std::move(r));
  }
  auto series = db.prepare(
      "SELECT s.run_id, s.key, s.last, s.min FROM series s WHERE s.run_id IN "
      "(SELECT run_id FROM study_cells WHERE study_id = ? AND run_id IS NOT NULL)");
  // Each row of a query whose first column is a run id, given to every result of that run.
  const auto toResultsOfRun = [&](store::Statement& rows, const auto& take) {
    while (rows.step())
      if (auto it = byRun.find(rows.int64(0)); it != byRun.end())
        for (size_t i : it->second) take(out[i], rows);
  };
  series.bind(1, id);
  toResultsOfRun(series, [](StudyRunResult& r, store::Statement& row) {
    r.last[row.text(1)] = row.isNull(2) ? NAN : row.real(2);
    r.lowest[row.text(1)] = row.isNull(3) ? NAN : row.real(3);
  });
  auto judged = db.prepare(
      std::string("SELECT run_id, label FROM ") + store::kVerdictsTable +
      " WHERE source = 'experiment' AND passed = 0 AND run_id IN (SELECT run_id FROM "
      "study_cells WHERE study_id = ? AND run_id IS NOT NULL) ORDER BY run_id, position");
  judged.bind(1, id);
  toResultsOfRun(judged, [](StudyRunResult& r, store::Statement& row) {
    auto& labels = r.failedJudgements;
    if (std::find(labels.begin(), labels.end(), row.text(1)) == labels.end())
      labels.push_back(row.text(1));
  });
  return out;
}

std::vector<int64_t> StudyStore::unfinishedCells(int64_t id) const {
  auto s = m_runs.database().prepare(
      "SELECT c.cell FROM study_cells c LEFT JOIN runs r ON r.id = c.run_id "
      "WHERE c.study_id = ? AND (r.status IS NULL OR r.status != 'finished') ORDER BY c.cell");
  s.bind(1, id);
  std::vector<int64_t> out;
  while (s.step()) out.push_back(s.int64(0));
  return out;
}

nlohmann::json StudyStore::cellConfig(int64_t id, int64_t cell) const {
  auto s =
      m_runs.database().prepare("SELECT config FROM study_cells WHERE study_id = ? AND cell = ?");
  s.bind(1, id).bind(2, cell);
  if (!s.step()) return nullptr;
  return nlohmann::json::parse(s.text(0));
}

void StudyStore::recordFirstBatchMode(int64_t id, const std::string& batch) {
  m_runs.database()
      .prepare("UPDATE studies SET batch = ? WHERE id = ? AND batch = ''")
      .bind(1, batch)
      .bind(2, id)
      .run();
}

CellClaim StudyStore::claim(int64_t id, int64_t cellIndex) {
  const auto& db = m_runs.database();
  const auto me = store::currentProcess();
  CellClaim claim;
  Transaction tx(db);
  auto cell = db.prepare(
      "SELECT c.run_id, c.config, c.config_hash, s.experiment, s.name, c.arm, c.axes, c.seed "
      "FROM study_cells c "
      "JOIN studies s ON s.id = c.study_id WHERE c.study_id = ? AND c.cell = ?");
  cell.bind(1, id).bind(2, cellIndex);
  if (!cell.step())
    throw store::StoreError(
        db.path(), "study " + std::to_string(id) + " has no cell " + std::to_string(cellIndex));
  std::optional<int64_t> runId;
  if (!cell.isNull(0)) runId = cell.int64(0);
  const auto config = nlohmann::json::parse(cell.text(1));
  const std::string hash = cell.text(2);
  const std::string experiment = cell.text(3);
  const std::string name =
      studyRunName(cell.text(4), cell.text(5), nlohmann::json::parse(cell.text(6)), cell.int64(7));

  // None when the run is gone.
  auto statusOf = [&](int64_t run, store::ProcessIdentity& writer) -> std::optional<RunStatus> {
    auto s = db.prepare("SELECT status, host, pid, pid_start FROM runs WHERE id = ?");
    s.bind(1, run);
    if (!s.step()) return std::nullopt;
    writer = {s.text(1), s.int64(2), s.int64(3)};
    return store::parseRunStatus(s.text(0)).value_or(RunStatus::Failed);
  };
  auto live = [&](const std::optional<RunStatus>& status, const store::ProcessIdentity& writer) {
    return (status == RunStatus::Running || status == RunStatus::Queued) &&
           store::livenessOf(writer) != store::Liveness::Dead;
  };
  auto link = [&](int64_t run, bool made) {
    auto s = db.prepare(
        "UPDATE study_cells SET run_id = ?, made_run = ? WHERE study_id = ? AND cell = ?");
    s.bind(1, run).bind(2, int64_t(made ? 1 : 0)).bind(3, id).bind(4, cellIndex).run();
  };
  auto takeOver = [&](int64_t run) {
    // Marked running by this process inside the claim: a second process sees it taken.
    auto s = db.prepare(
        "UPDATE runs SET status = 'running', finished = NULL, message = '', host = ?, pid = ?, "
        "pid_start = ? WHERE id = ?");
    s.bind(1, me.host).bind(2, me.pid).bind(3, me.startTicks).bind(4, run).run();
  };

  if (!runId) {
    // Another study (or a plain run) may have trained or started this config already.
    auto same = db.prepare(
        "SELECT id FROM runs WHERE config_hash = ? AND experiment = ? "
        "ORDER BY status = 'finished' DESC, status IN ('interrupted', 'cancelled') DESC, id LIMIT "
        "1");
    same.bind(1, hash).bind(2, experiment);
    if (same.step()) {
      store::ProcessIdentity writer;
      const auto status = statusOf(same.int64(0), writer);
      if (status == RunStatus::Finished || status == RunStatus::Interrupted ||
          status == RunStatus::Cancelled || live(status, writer))
        runId = same.int64(0);
      if (runId) link(*runId, /*made=*/false);
    }
  }
  if (!runId) {
    store::NewRun fresh;
    fresh.experiment = experiment;
    fresh.name = name;  // only a run the study creates: a reused or renamed run keeps its name
    fresh.config = config;
    fresh.configHash = hash;  // the cell's identity: a later study finds the run by it
    fresh.build = currentBuildInfo().toJson();
    claim.runId = m_runs.insertRun(fresh);
    link(claim.runId, /*made=*/true);
    takeOver(claim.runId);
    claim.kind = CellClaim::Kind::Fresh;
    tx.commit();
    return claim;
  }
  claim.runId = *runId;
  store::ProcessIdentity writer;
  const auto status = statusOf(*runId, writer);
  claim.previousStatus = status;
  if (status == RunStatus::Finished) {
    claim.kind = CellClaim::Kind::Done;
  } else if (live(status, writer)) {
    claim.kind = CellClaim::Kind::RunningElsewhere;
  } else {
    // Interrupted, cancelled, failed, or running for a process that is gone: from its newest
    // checkpoint, or, where it failed loading that one, from the one before it
    // (checkpoint_load.h); from step 0 without.
    auto choice = store::newestExistingCheckpoint(m_runs, *runId, /*checkContents=*/false);
    auto message = db.prepare("SELECT message FROM runs WHERE id = ?");
    message.bind(1, *runId);
    if (choice.chosen && status == RunStatus::Failed && message.step() &&
        failedLoadingCheckpoint(message.text(0)))
      choice = store::newestExistingCheckpoint(m_runs, *runId, /*checkContents=*/false,
                                               choice.chosen->step);
    if (choice.chosen) {
      claim.kind = CellClaim::Kind::Resume;
      claim.checkpoint = choice.chosen;
    } else {
      claim.kind = CellClaim::Kind::Restart;
    }
    takeOver(*runId);
  }
  tx.commit();
  return claim;
}

std::vector<int64_t> StudyStore::runsOnlyItTrained(int64_t id) const {
  // Made before the study, a run was reused as it was (as results() marks it `reused`).
  auto s = m_runs.database().prepare(
      std::string("SELECT DISTINCT c.run_id FROM study_cells c JOIN studies st ON st.id = "
                  "c.study_id JOIN runs r ON r.id = c.run_id WHERE c.study_id = ?1 AND ") +
      kStudyMadeRun +
      " AND c.run_id NOT IN (SELECT run_id FROM study_cells WHERE study_id != ?1 AND run_id IS "
      "NOT NULL) ORDER BY c.run_id");
  s.bind(1, id);
  std::vector<int64_t> runs;
  while (s.step()) runs.push_back(s.int64(0));
  return runs;
}

int StudyStore::remove(int64_t id, bool withRuns) {
  const std::vector<int64_t> runs = withRuns ? runsOnlyItTrained(id) : std::vector<int64_t>{};
  {
    auto s = m_runs.database().prepare("DELETE FROM studies WHERE id = ?");
    s.bind(1, id).run();
  }
  return runs.empty() ? 0 : m_runs.deleteRuns(runs);
}

std::map<int64_t, std::string> StudyStore::namesOfUnnamedRuns() const {
  // Ordered by study: a run two studies share is named by the first of them. Only runs the
  // study created (not before it): a run of the user's that a study reused keeps its own
  // (empty) name.
  auto s = m_runs.database().prepare(
      std::string("SELECT c.run_id, st.name, c.arm, c.axes, c.seed FROM study_cells c "
                  "JOIN studies st ON st.id = c.study_id JOIN runs r ON r.id = c.run_id "
                  "WHERE r.name = '' AND ") +
      kStudyMadeRun + " ORDER BY c.study_id, c.cell");
  std::map<int64_t, std::string> names;
  while (s.step())
    names.emplace(s.int64(0),
                  studyRunName(s.text(1), s.text(2), nlohmann::json::parse(s.text(3)), s.int64(4)));
  return names;
}

std::vector<std::pair<int64_t, nlohmann::json>> StudyStore::studiesOfRun(int64_t runId) const {
  auto s = m_runs.database().prepare(
      "SELECT study_id, axes FROM study_cells WHERE run_id = ? ORDER BY study_id");
  s.bind(1, runId);
  std::vector<std::pair<int64_t, nlohmann::json>> out;
  while (s.step()) out.emplace_back(s.int64(0), nlohmann::json::parse(s.text(1)));
  return out;
}

}  // namespace fl::study
