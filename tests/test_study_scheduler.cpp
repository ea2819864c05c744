// Tests the study tables and the scheduler: the version-3 migration, linking finished runs
// with the same config, claims (fresh, done, another process's, restart, resume), two stores
// claiming one study at once, the thread budget each run really gets, and a cancelled study
// resumed without training any run twice.
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include <sqlite3.h>

#include "core/engine/checkpoint_load.h"
#include "core/engine/registry.h"
#include "core/store/config_hash.h"
#include "core/store/run_store.h"
#include "core/store/schema.h"
#include "core/study/run_scheduler.h"
#include "core/study/study_expansion.h"
#include "core/study/study_scheduler.h"
#include "core/study/study_store.h"
#include "experiments/builtin_experiments.h"
#include "tests/sqlite_probe.h"

using fl::store::RunStore;
using fl::study::CellClaim;
using fl::study::StudySpec;
using fl::study::StudyStore;
using fl::testing::deadProcess;
using fl::testing::queryInt;

namespace {

// Records the intra-op threads each step really ran with and how many runs stepped at once.
struct Probe {
  std::atomic<int> maxThreads{0};
  std::atomic<int> active{0};
  std::atomic<int> maxActive{0};
  std::atomic<bool> paused{false};  // steps wait while set: runs stay training for a look
};
Probe g_probe;

class ProbeTrial : public fl::Trial {
 public:
  fl::TrialPlan plan() const override { return {6, 3, 3, 3}; }
  fl::StepLoss trainStep(int64_t step) override {
    while (g_probe.paused) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const int now = ++g_probe.active;
    for (int seen = g_probe.maxActive;
         now > seen && !g_probe.maxActive.compare_exchange_weak(seen, now);) {
    }
    const int threads = at::get_num_threads();
    for (int seen = g_probe.maxThreads;
         threads > seen && !g_probe.maxThreads.compare_exchange_weak(seen, threads);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
    --g_probe.active;
    return 1.0 / static_cast<double>(step + 1);
  }
  void evaluate(int64_t stepsDone, bool, fl::EvalReport& out) override {
    out.metric("test/steps", static_cast<double>(stepsDone));
  }
};

class ProbeExperiment : public fl::Experiment {
 public:
  std::string name() const override { return "probe"; }
  std::string title() const override { return "probe"; }
  std::string description() const override { return ""; }
  std::vector<fl::ParamSpec> params() const override {
    return {fl::ParamSpec::integer("width", 1, 1, 100, "")};
  }
  std::vector<fl::PanelSpec> panels() const override { return {}; }
  std::vector<fl::Preset> presets() const override { return {}; }
  std::unique_ptr<fl::Trial> createTrial(const fl::TrialContext&) const override {
    return std::make_unique<ProbeTrial>();
  }
};

fl::ExperimentRegistry& registry() {
  static fl::ExperimentRegistry r = [] {
    fl::ExperimentRegistry reg;
    fl::registerBuiltinExperiments(reg);
    reg.add(std::make_shared<ProbeExperiment>());
    return reg;
  }();
  return r;
}

StudySpec tinyFourierStudy(int epochs = 2) {
  auto spec = StudySpec::fromText(R"({"name": "tiny", "grid": {"head": ["linear", "fourier"]},
                                      "seeds": [1, 2]})");
  spec.experiment = "fourier-head";
  spec.overrides = {{"samples", 200},
                    {"epochs", epochs},
                    {"eval_every", 1},
                    {"device", "cpu"},
                    {"checkpoint_every", 1}};
  return spec;
}

int64_t createStudy(RunStore& runs, const StudySpec& spec) {
  const auto expansion = fl::study::expandStudy(*registry().find(spec.experiment), spec);
  if (!expansion.ok()) qFatal("%s", expansion.errors.front().c_str());
  return StudyStore(runs).create(spec, expansion);
}

// What the one scheduler told its driver, in order, with the store's word at each end.
struct LineLog : fl::study::SchedulerObserver {
  explicit LineLog(RunStore& store) : store(store) {}
  void runStarting(const fl::study::RunStart& s) override { started.push_back(s.runId); }
  void runEnded(const fl::study::RunEnd& e) override {
    ends.push_back(e);
    storedAtEnd.push_back(fl::toString(store.run(e.runId)->status));
  }
  RunStore& store;
  std::vector<int64_t> started;
  std::vector<fl::study::RunEnd> ends;
  std::vector<std::string> storedAtEnd;
};

// Polls the scheduler as a driver does until nothing waits, trains or closes (a minute at most).
bool trainUntilIdle(fl::study::RunScheduler& scheduler) {
  QElapsedTimer t;
  t.start();
  while (!scheduler.idle() && t.elapsed() < 60000) {
    scheduler.poll();
    scheduler.waitForChange(std::chrono::milliseconds(50));
  }
  return scheduler.idle();
}

int64_t recordProbeRun(RunStore& runs, int width) {
  const auto config = fl::validateRunConfig(*registry().find("probe"), {{"width", width}});
  return runs.createRun({"probe", "", config.values, {}});
}

}  // namespace

class TestStudyScheduler : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string path(const char* name) const { return (m_dir.path() + "/" + name).toStdString(); }

 private slots:
  // The window and the command line share this scheduler: one line, first come first served,
  // a study's cells claimed in their turn; a run's end reported once the store has its status;
  // a waiting run cancelled is recorded cancelled without starting.
  void theOneSchedulerTrainsItsLineInOrderAndReportsEndsFromTheStore() {
    RunStore runs(path("line.db"));
    auto spec = StudySpec::fromText(R"({"name": "w", "grid": {"width": [2, 3]}, "seeds": [1]})");
    spec.experiment = "probe";
    const int64_t studyId = createStudy(runs, spec);
    LineLog log(runs);
    fl::study::RunSchedulerOptions options;
    options.cores = 1;  // one worker at a time: the order of starts is the line's
    fl::study::RunScheduler scheduler(registry(), runs, options, &log);
    const int64_t first = recordProbeRun(runs, 1);
    const auto experiment = registry().find("probe");
    scheduler.addRun(first, experiment, runs.run(first)->config, std::nullopt);
    QCOMPARE(scheduler.isTraining(first), true);
    std::string error;
    QCOMPARE(scheduler.addStudy(studyId, &error), int64_t(2));
    const int64_t last = recordProbeRun(runs, 4);
    scheduler.addRun(last, experiment, runs.run(last)->config, std::nullopt);
    const int64_t dropped = recordProbeRun(runs, 5);
    scheduler.addRun(dropped, experiment, runs.run(dropped)->config, std::nullopt);
    QCOMPARE(scheduler.waitingRuns(), int64_t(4));  // two cells, two runs
    scheduler.cancel(dropped);
    QCOMPARE(log.ends.size(), size_t(1));
    QCOMPARE(log.ends[0].runId, dropped);
    QVERIFY(!log.ends[0].started);
    QCOMPARE(log.storedAtEnd[0], std::string("cancelled"));
    QVERIFY(!scheduler.isWaiting(dropped));

    QVERIFY(trainUntilIdle(scheduler));
    const auto cells = StudyStore(runs).results(studyId);
    QCOMPARE(log.started, (std::vector<int64_t>{first, cells[0].runId, cells[1].runId, last}));
    QCOMPARE(log.ends.size(), size_t(5));
    for (size_t i = 1; i < log.ends.size(); ++i) {
      QVERIFY(log.ends[i].started);
      QCOMPARE(fl::toString(log.ends[i].status), std::string("finished"));
      QCOMPARE(log.storedAtEnd[i], std::string("finished"));
      QCOMPARE(log.ends[i].finalMetrics.at("test/steps"), 6.0);
    }
    QCOMPARE(log.ends[2].studyId, studyId);
    QCOMPARE(log.ends[2].label, std::string("width=2 seed=1"));
  }

  void version2StoresGainStudiesAndRunIdentities() {
    const std::string p = path("v2.db");
    {
      sqlite3* h = nullptr;
      sqlite3_open(p.c_str(), &h);
      const std::string sql =
          std::string(fl::store::kSchemaVersion1) +
          "ALTER TABLE runs ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;"
          "INSERT INTO meta VALUES ('application', 'fourierlab'), ('schema_version', '2');"
          "INSERT INTO runs(experiment, status, config, created) VALUES "
          "('fourier-head', 'finished', '{\"gamma\": 0, \"seed\": 1}', 1.0),"
          "('fourier-head', 'finished', '{\"gamma\": 0.0, \"seed\": 1}', 2.0);";
      QCOMPARE(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
      sqlite3_close(h);
    }
    RunStore store(p);
    QCOMPARE(store.schemaVersion(), fl::store::kSchemaVersion);
    const auto runs = store.listRuns();
    QCOMPARE(runs.size(), size_t(2));
    QCOMPARE(runs[0].uid.size(), size_t(32));
    QVERIFY(runs[0].uid != runs[1].uid);
    QCOMPARE(runs[0].configHash.size(), size_t(16));
    QCOMPARE(runs[0].configHash, runs[1].configHash);  // 0 and 0.0: one config
    QVERIFY(StudyStore(store).list().empty());
  }

  void aStudyReusesFinishedRunsOfTheSameConfig() {
    RunStore runs(path("reuse.db"));
    const auto spec = tinyFourierStudy();
    const auto e = fl::study::expandStudy(*registry().find("fourier-head"), spec);
    const int64_t existing = runs.createRun({"fourier-head", "", e.cells[1].config, {}, {}});
    runs.finishRun(existing, fl::RunStatus::Finished, "");
    StudyStore studies(runs);
    const int64_t id = studies.create(spec, e);
    const auto results = studies.results(id);
    QCOMPARE(results.size(), size_t(4));
    QCOMPARE(results[1].runId, existing);
    QCOMPARE(results[1].status, fl::study::CellStatus(fl::RunStatus::Finished));
    QCOMPARE(results[0].status, fl::study::CellStatus());
    // Said wherever the study is read: its runs are not all of one build or one machine.
    QVERIFY(results[1].reused);
    QVERIFY(!results[0].reused);
    QCOMPARE(fl::study::reusedRunsText(results),
             "1 run trained before the study (#" + std::to_string(existing) +
                 ") is taken as it is: same experiment, settings and seed");
    QCOMPARE(studies.unfinishedCells(id), (std::vector<int64_t>{0, 2, 3}));
    QCOMPARE(studies.findSameSpec(spec).value(), id);
    auto other = spec;
    other.seeds = {7};
    QVERIFY(!studies.findSameSpec(other));
  }

  // A study's batch mode is the first one recorded; the scheduler groups its cells by it
  // unless its options name another (batchOverridesStudy), and records it when it queues the
  // study. A mode this build cannot read gives way to the one asked for.
  void aStudyKeepsTheFirstBatchModeRecorded() {
    using fl::study::BatchMode;
    using fl::study::studyBatchMode;
    QCOMPARE(studyBatchMode("", BatchMode{0}, false).argument(), std::string("auto"));
    QCOMPARE(studyBatchMode("off", BatchMode{0}, false).argument(), std::string("off"));
    QCOMPARE(studyBatchMode("off", BatchMode{0}, true).argument(), std::string("auto"));
    QCOMPARE(studyBatchMode("8", BatchMode{1}, false).argument(), std::string("8"));
    QCOMPARE(studyBatchMode("sideways", BatchMode{4}, false).argument(), std::string("4"));

    RunStore runs(path("batch-mode.db"));
    const auto spec = tinyFourierStudy();
    StudyStore studies(runs);
    const int64_t id =
        studies.create(spec, fl::study::expandStudy(*registry().find("fourier-head"), spec));
    QCOMPARE(studies.study(id)->batch, std::string());
    fl::study::RunSchedulerOptions options;
    options.batch = BatchMode{1};  // off
    {
      fl::study::RunScheduler scheduler(registry(), runs, options);
      QVERIFY(scheduler.addStudy(id, nullptr) > 0);
      QCOMPARE(studies.study(id)->batch, std::string("off"));
    }
    options.batch = BatchMode{0};  // auto, as the window's choice might be later
    fl::study::RunScheduler later(registry(), runs, options);
    QCOMPARE(later.batchModeOf(id).argument(), std::string("off"));
    QCOMPARE(later.planStudyGroups(id).size(), size_t(4));  // one run each, as first trained
    studies.recordFirstBatchMode(id, "auto");
    QCOMPARE(studies.study(id)->batch, std::string("off"));
    options.batchOverridesStudy = true;
    QCOMPARE(fl::study::RunScheduler(registry(), runs, options).batchModeOf(id).argument(),
             std::string("auto"));

    // A version 6 store (before the column) is upgraded with its studies kept, none recorded.
    const std::string v6 = path("batch-mode-v6.db");
    {
      RunStore store(v6);
      StudyStore(store).create(spec,
                               fl::study::expandStudy(*registry().find("fourier-head"), spec));
    }
    sqlite3* h = nullptr;
    sqlite3_open(v6.c_str(), &h);
    QCOMPARE(sqlite3_exec(h,
                          "ALTER TABLE studies DROP COLUMN batch; ALTER TABLE study_cells DROP "
                          "COLUMN made_run; UPDATE meta SET value = '6' WHERE key = "
                          "'schema_version'",
                          nullptr, nullptr, nullptr),
             SQLITE_OK);
    sqlite3_close(h);
    RunStore upgraded(v6);
    QCOMPARE(upgraded.schemaVersion(), fl::store::kSchemaVersion);
    const auto kept = StudyStore(upgraded).study(1);
    QVERIFY(kept);
    QCOMPARE(kept->cells, int64_t(4));
    QCOMPARE(kept->batch, std::string());
  }

  void claimsDecideWhoTrainsACell() {
    RunStore runs(path("claims.db"));
    StudyStore studies(runs);
    const int64_t id = createStudy(runs, tinyFourierStudy());
    const auto first = studies.claim(id, 0);
    QVERIFY(first.kind == CellClaim::Kind::Fresh);
    QCOMPARE(fl::toString(runs.run(first.runId)->status), std::string("running"));
    QVERIFY(!runs.run(first.runId)->configHash.empty());
    // A live process (this one) holds it.
    QVERIFY(studies.claim(id, 0).kind == CellClaim::Kind::RunningElsewhere);
    // Its process died: the run is interrupted and, without a checkpoint, trains from 0.
    runs.markRunning(first.runId, "cpu", 10, deadProcess());
    RunStore reopened(path("claims.db"));
    StudyStore again(reopened);
    QCOMPARE(fl::toString(reopened.run(first.runId)->status), std::string("interrupted"));
    auto restart = again.claim(id, 0);
    QVERIFY(restart.kind == CellClaim::Kind::Restart);
    QCOMPARE(restart.runId, first.runId);  // the same run, never a duplicate
    QCOMPARE(restart.previousStatus, std::optional(fl::RunStatus::Interrupted));
    // With a checkpoint file it resumes from it.
    reopened.finishRun(first.runId, fl::RunStatus::Cancelled, "");
    const std::string file = reopened.artifactFolder(first.runId) + "/step-5.pt";
    std::filesystem::create_directories(reopened.artifactFolder(first.runId));
    std::ofstream(file) << "x";
    reopened.addCheckpoint(first.runId, 5, file);
    auto resume = again.claim(id, 0);
    QVERIFY(resume.kind == CellClaim::Kind::Resume);
    QCOMPARE(resume.checkpoint->step, int64_t(5));
    // A failed run resumes from its checkpoint too (a full disk or out of memory failed it:
    // each such run of a study had trained again from step 0), unless it failed loading it.
    reopened.finishRun(first.runId, fl::RunStatus::Failed,
                       "cannot write step-125.pt: No space left on device");
    QVERIFY(again.claim(id, 0).kind == CellClaim::Kind::Resume);
    // One that failed loading it resumes from the one before, or trains again from step 0
    // without one (a transient read error cost all its steps).
    const std::string older = reopened.artifactFolder(first.runId) + "/step-3.pt";
    std::ofstream(older) << "x";
    reopened.addCheckpoint(first.runId, 3, older);
    reopened.finishRun(first.runId, fl::RunStatus::Failed,
                       std::string(fl::kCheckpointNotLoaded) + "step-5.pt is damaged");
    const auto before = again.claim(id, 0);
    QVERIFY(before.kind == CellClaim::Kind::Resume);
    QCOMPARE(before.checkpoint->step, int64_t(3));
    std::filesystem::remove(older);
    reopened.finishRun(first.runId, fl::RunStatus::Failed,
                       std::string(fl::kCheckpointNotLoaded) + "step-5.pt is damaged");
    QVERIFY(again.claim(id, 0).kind == CellClaim::Kind::Restart);
    reopened.finishRun(first.runId, fl::RunStatus::Finished, "");
    QVERIFY(again.claim(id, 0).kind == CellClaim::Kind::Done);
    QCOMPARE(queryInt(path("claims.db"), "SELECT count(*) FROM runs"), int64_t(1));
  }

  void twoProcessesClaimingOneStudyNeverShareACell() {
    // Two connections (as two `sweep resume`s would have) claim all cells at once.
    const std::string p = path("race.db");
    int64_t id;
    {
      RunStore runs(p);
      auto spec = StudySpec::fromText(
          R"({"name": "race", "grid": {"lr": [0.001, 0.002, 0.003, 0.004, 0.005]},
                                          "seeds": [1, 2, 3, 4]})");
      spec.experiment = "fourier-head";
      id = createStudy(runs, spec);
    }
    std::atomic<int> fresh{0}, taken{0};
    auto claimAll = [&] {
      RunStore runs(p);
      StudyStore studies(runs);
      for (int64_t cell = 0; cell < 20; ++cell) {
        const auto c = studies.claim(id, cell);
        if (c.kind == CellClaim::Kind::Fresh)
          ++fresh;
        else if (c.kind == CellClaim::Kind::RunningElsewhere)
          ++taken;
      }
    };
    std::thread a(claimAll), b(claimAll);
    a.join();
    b.join();
    QCOMPARE(fresh.load(), 20);
    QCOMPARE(taken.load(), 20);
    QCOMPARE(queryInt(p, "SELECT count(*) FROM runs"), int64_t(20));
    QCOMPARE(queryInt(p, "SELECT count(DISTINCT run_id) FROM study_cells"), int64_t(20));
  }

  void noRunGetsMoreThreadsThanTheBudget() {
    const std::string p = path("budget.db");
    int64_t id;
    {
      RunStore runs(p);
      auto spec = StudySpec::fromText(R"({"name": "b", "grid": {"width": [1, 2, 3, 4, 5, 6]}})");
      spec.experiment = "probe";
      id = createStudy(runs, spec);
    }
    g_probe.maxThreads = 0;
    g_probe.maxActive = 0;
    fl::study::StudySchedulerOptions options;
    options.cores = 2;
    fl::study::StudyScheduler scheduler(registry(), p, id, options);
    // An ETA only once a whole wave of side-by-side runs has ended: the first of them, alone,
    // is no pace.
    int64_t mostActive = 0, ended = 0;
    bool etaTooSoon = false, eta = false;
    std::optional<double> lastEta = 0.0;
    const auto outcome = scheduler.run([&](const auto& report, const auto& progress) {
      mostActive = std::max(mostActive, progress.active + (report.ended ? 1 : 0));
      ended += report.ended ? 1 : 0;
      etaTooSoon = etaTooSoon || (progress.etaSeconds && ended < mostActive);
      eta = eta || progress.etaSeconds.has_value();
      lastEta = progress.etaSeconds;
    });
    QVERIFY(!etaTooSoon);
    QVERIFY(eta);
    // None once nothing is left: "ETA 0:00" stood beside the last run, and beside each run a
    // stop cancelled.
    QVERIFY(!lastEta);
    QCOMPARE(outcome.budget.parallel, 2);
    QCOMPARE(outcome.budget.threadsPerRun, 1);
    QCOMPARE(outcome.progress.finished, int64_t(6));
    QCOMPARE(g_probe.maxThreads.load(), 1);
    QVERIFY(g_probe.maxActive.load() <= 2);
    QVERIFY(g_probe.maxActive.load() >= 1);
  }

  // Parallel runs x threads never exceed the cores. A run queued alone takes them all; one
  // queued beside it then waits for them (it used to start with one more thread, three on
  // two cores). Runs queued together, as a comparison's arms, share the cores from the start.
  void runsQueuedOneByOneNeverTakeMoreThreadsThanTheCores() {
    RunStore runs(path("arms.db"));
    fl::study::RunSchedulerOptions options;
    options.cores = 2;
    fl::study::RunScheduler scheduler(registry(), runs, options);
    const auto experiment = registry().find("probe");
    auto add = [&](int width) {
      const int64_t id = recordProbeRun(runs, width);
      scheduler.addRun(id, experiment, runs.run(id)->config, std::nullopt);
      return id;
    };
    g_probe.paused = true;
    const int64_t alone = add(1);
    QCOMPARE(scheduler.threadsOf(alone), 2);
    const int64_t beside = add(2);
    QCOMPARE(scheduler.threadsInUse(), 2);
    QVERIFY(scheduler.isWaiting(beside));
    g_probe.paused = false;
    QVERIFY(trainUntilIdle(scheduler));
    QCOMPARE(fl::toString(runs.run(beside)->status), std::string("finished"));

    g_probe.paused = true;
    scheduler.holdStarts();
    const int64_t first = add(3);
    const int64_t second = add(4);
    QVERIFY(scheduler.isWaiting(first) && scheduler.isWaiting(second));
    scheduler.releaseStarts();
    QCOMPARE(scheduler.threadsOf(first), 1);
    QCOMPARE(scheduler.threadsOf(second), 1);
    g_probe.paused = false;
    QVERIFY(trainUntilIdle(scheduler));
  }

  void aCancelledStudyResumesWithoutTrainingARunTwice() {
    const std::string p = path("resume.db");
    int64_t id;
    {
      RunStore runs(p);
      auto spec = tinyFourierStudy(/*epochs=*/150);
      spec.overrides["checkpoint_every"] = 0;  // only the checkpoint a cancel saves
      id = createStudy(runs, spec);
    }
    std::atomic<int> stop{0};
    // As Ctrl-C once the two runs training have a few epochs each (their evaluations reach the
    // store), well before either finishes.
    std::thread watcher([&] {
      for (int i = 0; i < 3000 && !stop; ++i) {
        if (queryInt(p,
                     "SELECT count(*) FROM series s JOIN runs r ON r.id = s.run_id WHERE "
                     "s.key = 'test/kl' AND s.count >= 3 AND r.status = 'running'") >= 2)
          stop = SIGINT;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
    fl::study::StudySchedulerOptions options;
    options.cores = 2;
    options.stopFlag = &stop;
    fl::study::StudyScheduler first(registry(), p, id, options);
    const auto cancelled = first.run([](const auto&, const auto&) {});
    watcher.join();
    QVERIFY(cancelled.cancelled);
    QCOMPARE(cancelled.progress.cancelled, int64_t(2));
    QCOMPARE(queryInt(p, "SELECT count(*) FROM runs WHERE status = 'cancelled'"), int64_t(2));
    // Each saved a checkpoint where it stopped.
    QCOMPARE(queryInt(p, "SELECT count(DISTINCT run_id) FROM artifacts"), int64_t(2));

    std::vector<std::string> how;
    fl::study::StudyScheduler second(registry(), p, id, {});
    const auto done = second.run([&](const fl::study::StudyRunReport& r, const auto&) {
      if (!r.ended) how.push_back(r.how);
    });
    QVERIFY(!done.cancelled);
    QCOMPARE(done.progress.finished, int64_t(4));
    QCOMPARE(queryInt(p, "SELECT count(*) FROM runs"), int64_t(4));
    QCOMPARE(queryInt(p, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(4));
    int resumed = 0;
    for (const auto& h : how) resumed += h.rfind("resumed from step", 0) == 0;
    QCOMPARE(resumed, 2);
    // No step recorded twice in any run's curves.
    QCOMPARE(queryInt(p,
                      "SELECT count(*) FROM (SELECT series_id, step, count(*) c FROM metrics "
                      "GROUP BY 1, 2 HAVING c > 1)"),
             int64_t(0));
    QCOMPARE(queryInt(p,
                      "SELECT min(count) FROM series s JOIN runs r ON r.id = s.run_id "
                      "WHERE s.key = 'test/kl'"),
             int64_t(150));  // every evaluation of every run, once
    // Running it again trains nothing.
    fl::study::StudyScheduler third(registry(), p, id, {});
    int startedAgain = 0;
    third.run([&](const fl::study::StudyRunReport& r, const auto&) { startedAgain += !r.ended; });
    QCOMPARE(startedAgain, 0);
  }

  // A study whose store stops taking a run's writes (another process's lock here; a full disk
  // alike) says so once while the run trains, and once when the store takes them again; nothing
  // of the run is lost in between.
  void aStoreRefusingWritesIsNoticedOnceEachWay() {
    const std::string p = path("refusing.db");
    int64_t id;
    {
      RunStore runs(p);
      id = createStudy(runs, tinyFourierStudy(/*epochs=*/100000));
    }
    // A run of 100000 epochs, stopped as the second notice comes; or after two minutes where
    // one never came (the test then fails rather than train on).
    std::atomic<int> giveUp{0};
    std::atomic<bool> over{false};
    std::thread watchdog([&] {
      for (int i = 0; i < 12000 && !over; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (!over) giveUp = SIGTERM;
    });
    fl::study::StudySchedulerOptions options;
    options.cores = 1;  // one run at a time: no claim on the driver thread while the lock holds
    options.stopFlag = &giveUp;
    fl::study::StudyScheduler scheduler(registry(), p, id, options);
    sqlite3* holder = nullptr;
    std::vector<std::string> notices;
    const auto outcome = scheduler.run(
        [&](const fl::study::StudyRunReport& r, const auto&) {
          if (r.ended || holder) return;
          sqlite3_open(p.c_str(), &holder);
          sqlite3_busy_timeout(holder, 10000);
          if (sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
            notices.push_back("the test could not lock the store");
            scheduler.cancel();
          }
        },
        [&](const std::string& notice) {
          notices.push_back(notice);
          if (notices.size() == 1) {
            sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
            sqlite3_close(holder);
          } else {
            scheduler.cancel();
          }
        });
    over = true;
    watchdog.join();
    QVERIFY(outcome.cancelled);
    QCOMPARE(giveUp.load(), 0);
    QCOMPARE(notices.size(), size_t(2));
    QVERIFY2(notices[0].rfind("store: not taking the writes of run 1 (", 0) == 0,
             notices[0].c_str());
    QCOMPARE(notices[1],
             std::string("store: taking the writes of run 1 again: nothing of it was lost"));
    // Every evaluation the run made is stored once, the stretch the lock held included (the
    // last may be the cancel's, between two).
    const auto kl = RunStore(p, /*readOnly=*/true).metric(1, "test/kl");
    QVERIFY(kl.size() > 1);
    for (size_t i = 0; i + 1 < kl.size(); ++i)
      QVERIFY2(kl[i].step == int64_t(i + 1) * kl[0].step,
               qPrintable(QString("evaluation %1 is at step %2").arg(i).arg(kl[i].step)));
  }

  // Another process's lock held a few seconds past the store's busy timeout as the study
  // claims its next run: the claim is tried again, as closing writes are, where the study had
  // stopped ("cannot start a run of study 1: ... database is locked", sweep run exit 3). A
  // signal during that wait stops the study as cancelled, not as a store error.
  void aStudyWaitsOutALockOnItsNextClaim_data() {
    QTest::addColumn<bool>("signalled");
    QTest::newRow("lock released") << false;
    QTest::newRow("signalled meanwhile") << true;
  }
  void aStudyWaitsOutALockOnItsNextClaim() {
    QFETCH(bool, signalled);
    const std::string p = path(signalled ? "claim-signalled.db" : "claim-under-lock.db");
    int64_t id;
    {
      RunStore runs(p);
      auto spec = tinyFourierStudy(/*epochs=*/2);
      spec.seeds = {1};
      id = createStudy(runs, spec);
    }
    std::atomic<int> stop{0};
    fl::study::StudySchedulerOptions options;
    options.cores = 1;  // one run at a time: the second is claimed as the first ends
    options.batch = fl::study::BatchMode{1};
    options.stopFlag = &stop;
    std::thread other;
    sqlite3* holder = nullptr;
    bool locked = false;
    std::atomic<bool> over{false};
    std::string thrown;
    fl::study::StudyOutcome outcome;
    fl::study::StudyScheduler scheduler(registry(), p, id, options);
    try {
      // Taken as the first run starts: it ends within the lock, and the next claim comes
      // while it is held.
      outcome = scheduler.run([&](const fl::study::StudyRunReport& r, const auto&) {
        if (r.ended || holder) return;
        sqlite3_open(p.c_str(), &holder);
        sqlite3_busy_timeout(holder, 10000);
        locked = sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK;
        // Held 11 s, two busy timeouts (5 s) and far shorter than the patience; or, signalled
        // after 7 s, until the study has ended.
        other = std::thread([&, signalledAfter = signalled] {
          for (int i = 0; i < (signalledAfter ? 700 : 1100) && !over; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          if (signalledAfter) {
            stop = SIGTERM;
            return;
          }
          sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
        });
      });
    } catch (const std::exception& e) {
      thrown = e.what();
    }
    over = true;
    if (other.joinable()) other.join();
    if (holder) {
      sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
      sqlite3_close(holder);
    }
    QVERIFY(locked);
    if (signalled) {
      // The first run's last writes, which waited for the lock too, are lost to the signal and
      // said so; the claim's wait, given up, is not a problem of its own.
      QVERIFY2(thrown.find("not written to the store") != std::string::npos, thrown.c_str());
      QVERIFY2(thrown.find("cannot start a run") == std::string::npos, thrown.c_str());
    } else {
      QVERIFY2(thrown.empty(), thrown.c_str());
      QVERIFY(!outcome.cancelled);
      QCOMPARE(outcome.progress.finished, int64_t(2));
      QCOMPARE(queryInt(p, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(2));
    }
  }

  // A study signalled to stop while another process holds the store's lock ends without
  // waiting out the lock, as `run` does: the run's last writes are lost (and said so), where
  // they had waited two minutes, past a cluster's SIGKILL.
  void aSignalledStudyDoesNotWaitOutAnotherProcesssLock() {
    const std::string p = path("signalled-under-lock.db");
    int64_t id;
    {
      RunStore runs(p);
      id = createStudy(runs, tinyFourierStudy(/*epochs=*/100000));
    }
    std::atomic<int> stop{0};
    std::atomic<bool> over{false};
    std::atomic<bool> lockTakenBack{false};
    sqlite3* holder = nullptr;
    std::mutex holderMutex;
    auto release = [&] {
      const std::lock_guard<std::mutex> lock(holderMutex);
      if (!holder) return;
      sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
      sqlite3_close(holder);
      holder = nullptr;
    };
    // Half the two minutes' patience: had the study waited out the lock, it ends here instead.
    std::thread watchdog([&] {
      for (int i = 0; i < 6000 && !over; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (!over) {
        lockTakenBack = true;
        release();
      }
    });
    fl::study::StudySchedulerOptions options;
    options.cores = 1;
    options.stopFlag = &stop;
    fl::study::StudyScheduler scheduler(registry(), p, id, options);
    std::vector<std::string> notices;
    std::string thrown;
    try {
      scheduler.run(
          [&](const fl::study::StudyRunReport& r, const auto&) {
            const std::lock_guard<std::mutex> lock(holderMutex);
            if (r.ended || holder) return;
            sqlite3_open(p.c_str(), &holder);
            sqlite3_busy_timeout(holder, 10000);
            if (sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK)
              notices.push_back("the test could not lock the store");
          },
          [&](const std::string& notice) {
            notices.push_back(notice);
            stop = SIGTERM;  // as the lock first refuses the run's writes
          });
    } catch (const std::exception& e) {
      thrown = e.what();
    }
    over = true;
    watchdog.join();
    release();
    QVERIFY2(!lockTakenBack, "the signalled study waited out the lock");
    // The loss is the study's outcome: what the store lacks (test_store_sink checks the words
    // for its checkpoints, however many the machine's speed made).
    QVERIFY2(thrown.find(": run 1 (head=linear seed=1): not written to the store: its final "
                         "status (cancelled), ") != std::string::npos,
             thrown.c_str());
    QVERIFY2(thrown.find("checkpoint") != std::string::npos, thrown.c_str());
    QVERIFY(!notices.empty());
    QVERIFY2(notices[0].rfind("store: not taking the writes of run 1 (", 0) == 0,
             notices[0].c_str());
    for (const auto& notice : notices)
      QVERIFY2(notice.find("again: nothing of it was lost") == std::string::npos, notice.c_str());
  }

  void deletingAStudyKeepsRunsOtherStudiesUse() {
    RunStore runs(path("delete.db"));
    StudyStore studies(runs);
    const auto spec = tinyFourierStudy();
    const int64_t a = createStudy(runs, spec);
    for (int64_t cell = 0; cell < 4; ++cell) {
      const auto c = studies.claim(a, cell);
      runs.finishRun(c.runId, fl::RunStatus::Finished, "");
    }
    auto other = spec;
    other.name = "other";
    other.seeds = {1};
    const int64_t b = createStudy(runs, other);  // shares the seed-1 runs
    QCOMPARE(studies.results(b)[0].status, fl::study::CellStatus(fl::RunStatus::Finished));
    QCOMPARE(studies.remove(a, /*withRuns=*/true), 2);
    QCOMPARE(runs.listRuns().size(), size_t(2));
    QVERIFY(!studies.study(a));
    // b took a's seed-1 runs as they were, made before it (as a study takes the user's own
    // runs): deleting b with its runs keeps them. They were deleted, a pinned baseline with them.
    QCOMPARE(studies.runsOnlyItTrained(b), std::vector<int64_t>{});
    QCOMPARE(studies.remove(b, /*withRuns=*/true), 0);
    QCOMPARE(runs.listRuns().size(), size_t(2));
    QVERIFY(!studies.study(b));
    // A study's own runs go with it.
    const int64_t c = createStudy(runs, tinyFourierStudy(/*epochs=*/3));
    for (int64_t cell = 0; cell < 4; ++cell) studies.claim(c, cell);
    QCOMPARE(studies.runsOnlyItTrained(c).size(), size_t(4));
    QCOMPARE(studies.remove(c, /*withRuns=*/false), 0);
    QCOMPARE(runs.listRuns().size(), size_t(6));
    // A run trained by hand after the study was made, then taken by its claim as it was: the
    // user's, not the study's, though made after it (it was judged by the time it was made).
    const int64_t d = createStudy(runs, tinyFourierStudy(/*epochs=*/4));
    const auto cell0 = studies.results(d)[0];
    fl::store::NewRun byHand;
    byHand.experiment = "fourier-head";
    byHand.config = cell0.config;
    byHand.configHash = fl::store::identityHash(
        "fourier-head", registry().find("fourier-head")->allParams(), cell0.config);
    const int64_t mine = runs.createRun(byHand);
    runs.finishRun(mine, fl::RunStatus::Finished, "");
    QCOMPARE(studies.claim(d, 0).runId, mine);
    QCOMPARE(studies.claim(d, 0).kind, fl::study::CellClaim::Kind::Done);
    const int64_t made = studies.claim(d, 1).runId;
    QVERIFY(studies.results(d)[0].reused);
    QVERIFY(!studies.results(d)[1].reused);
    QCOMPARE(studies.runsOnlyItTrained(d), std::vector<int64_t>{made});
    QCOMPARE(studies.remove(d, /*withRuns=*/true), 1);
    QVERIFY(runs.run(mine));
    QVERIFY(!runs.run(made));
  }
};

QTEST_GUILESS_MAIN(TestStudyScheduler)
#include "test_study_scheduler.moc"
