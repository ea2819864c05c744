// Tests app/gui/run_queue.h: the window's runs train under the studies' thread budget (on two
// cores, runs of a tiny model two at a time with one thread each; the user's Parallel runs
// wins), a waiting run cancelled is recorded cancelled, a resumed run keeps its row, a
// study's cells are claimed as slots free, each trained once, and a study's cells of one shape
// train as batched groups whose members are ordinary runs: own rows, own curves, stopped
// and resumed alone, the same figures as the study trained cell by cell.
// LibTorch before Qt: its headers name members `slots`, which Qt defines as a keyword.
#include <torch/torch.h>

#include <QtTest>

#include <ATen/Parallel.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "app/gui/run_queue.h"
#include "app/gui/run_views.h"
#include "core/engine/config.h"
#include "core/engine/resume_refused.h"
#include "core/store/run_store.h"
#include "core/study/study_expansion.h"
#include "core/study/study_store.h"
#include "experiments/builtin_experiments.h"

using fl::gui::RunQueue;
using fl::gui::RunViews;

namespace {

// Records how many runs stepped at once and with how many intra-op threads.
struct Probe {
  std::atomic<int> active{0};
  std::atomic<int> maxActive{0};
  std::atomic<int> maxThreads{0};
};
Probe g_probe;

void raise(std::atomic<int>& max, int value) {
  for (int seen = max; value > seen && !max.compare_exchange_weak(seen, value);) {
  }
}

class SleepyTrial : public fl::Trial {
 public:
  explicit SleepyTrial(int64_t width) : m_width(width) {}
  fl::TrialPlan plan() const override { return {8, 4, 4, 4}; }
  fl::StepLoss trainStep(int64_t) override {
    raise(g_probe.maxActive, ++g_probe.active);
    raise(g_probe.maxThreads, at::get_num_threads());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    --g_probe.active;
    return 1.0;
  }
  void evaluate(int64_t stepsDone, bool, fl::EvalReport& out) override {
    out.metric("test/width", static_cast<double>(m_width));
  }

 private:
  int64_t m_width;
};

class SleepyExperiment : public fl::Experiment {
 public:
  std::string name() const override { return "sleepy"; }
  std::string title() const override { return "sleepy"; }
  std::string description() const override { return ""; }
  std::vector<fl::ParamSpec> params() const override {
    return {fl::ParamSpec::integer("width", 1, 1, 100, "")};
  }
  std::vector<fl::PanelSpec> panels() const override { return {}; }
  std::vector<fl::Preset> presets() const override { return {}; }
  int usefulThreads(const nlohmann::json&) const override { return 1; }  // a tiny model
  std::unique_ptr<fl::Trial> createTrial(const fl::TrialContext& c) const override {
    return std::make_unique<SleepyTrial>(c.config.at("width").get<int64_t>());
  }
};

// Trains for good, checkpointing; a resume is refused as a changed corpus refuses one.
class RefusingTrial : public fl::Trial {
 public:
  fl::TrialPlan plan() const override { return {1000000, 4, 4, 4}; }
  fl::StepLoss trainStep(int64_t) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return 1.0;
  }
  void evaluate(int64_t, bool, fl::EvalReport& out) override { out.metric("test/m", 1.0); }
  bool supportsCheckpoints() const override { return true; }
  void saveCheckpoint(const std::string& path) const override {
    torch::serialize::OutputArchive archive;  // a whole archive: a resume checks that first
    archive.write("x", torch::zeros({1}));
    archive.save_to(path);
  }
  void loadCheckpoint(const std::string&) override {
    throw fl::ResumeRefused("corpus 'x.txt' is not the text this run trained on");
  }
};

class RefusingExperiment : public SleepyExperiment {
 public:
  std::string name() const override { return "refusing"; }
  std::unique_ptr<fl::Trial> createTrial(const fl::TrialContext&) const override {
    return std::make_unique<RefusingTrial>();
  }
};

// A gate the test holds shut while it stops a group member: the group's thread waits in
// createGroup, before any step, so the stop lands before the first step on any machine (a
// 6-epoch toy group can finish while the queue still claims the study's other cells).
class GroupStartGate {
 public:
  void close() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_open = false;
  }
  void open() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_open = true;
    }
    m_changed.notify_all();
  }
  void waitOpen() {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_changed.wait(lock, [&] { return m_open; });
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_changed;
  bool m_open = true;
};
GroupStartGate g_groupStart;

// fourier-head itself, but its groups start only through g_groupStart.
class GatedFourierHead : public fl::Experiment {
 public:
  explicit GatedFourierHead(std::shared_ptr<const fl::Experiment> inner)
      : m_inner(std::move(inner)) {}
  std::string name() const override { return "gated-fourier-head"; }
  std::string title() const override { return m_inner->title(); }
  std::string description() const override { return m_inner->description(); }
  std::vector<fl::ParamSpec> params() const override { return m_inner->params(); }
  std::vector<fl::PanelSpec> panels() const override { return m_inner->panels(); }
  std::vector<fl::Preset> presets() const override { return m_inner->presets(); }
  std::vector<fl::ConfigIssue> checkConfig(const nlohmann::json& config) const override {
    return m_inner->checkConfig(config);
  }
  int usefulThreads(const nlohmann::json& config) const override {
    return m_inner->usefulThreads(config);
  }
  std::unique_ptr<fl::Trial> createTrial(const fl::TrialContext& c) const override {
    return m_inner->createTrial(c);
  }
  std::string groupDifference(const nlohmann::json& a, const nlohmann::json& b) const override {
    return m_inner->groupDifference(a, b);
  }
  std::unique_ptr<fl::BatchedTrial> createGroup(
      const std::vector<fl::TrialContext>& members) const override {
    g_groupStart.waitOpen();
    return m_inner->createGroup(members);
  }

 private:
  std::shared_ptr<const fl::Experiment> m_inner;
};

fl::ExperimentRegistry& registry() {
  static fl::ExperimentRegistry r = [] {
    fl::ExperimentRegistry reg;
    fl::registerBuiltinExperiments(reg);
    reg.add(std::make_shared<SleepyExperiment>());
    reg.add(std::make_shared<RefusingExperiment>());
    reg.add(std::make_shared<GatedFourierHead>(reg.find("fourier-head")));
    return reg;
  }();
  return r;
}

nlohmann::json sleepyConfig(int width) {
  return fl::validateConfig(registry().find("sleepy")->allParams(),
                            {{"width", width}, {"device", "cpu"}})
      .values;
}

// Drains the queue until every run it has is over (the window's tick, in a loop).
bool drainUntilIdle(RunQueue& queue, RunViews& views, int timeoutMs = 60000) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < timeoutMs) {
    queue.drain();
    bool idle =
        queue.waitingCount() == 0 && queue.trainingCount() == 0 && queue.closingCount() == 0;
    for (auto id : queue.runs())
      idle = idle && views.find(id) && fl::isTerminal(views.find(id)->status());
    if (idle) return true;
    QTest::qWait(20);
  }
  return false;
}

}  // namespace

class TestRunQueue : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string path(const char* name) const { return (m_dir.path() + "/" + name).toStdString(); }

 private slots:
  void fourierHeadRunsTrainTwoAtATimeWithOneThreadOnTwoCores() {
    fl::store::RunStore store(path("budget.db"));
    RunViews views(store);
    RunQueue queue(registry(), store, views);
    queue.setCores(2);
    auto head = registry().find("fourier-head");
    const auto config = fl::validateConfig(head->allParams(), nlohmann::json::object()).values;
    const auto budget = queue.budgetFor(*head, config, 4);
    QCOMPARE(budget.parallel, 2);  // not 4 on 2 cores
    QCOMPARE(budget.threadsPerRun, 1);
    QCOMPARE(budget.describe(), std::string("2 parallel runs x 1 thread on 2 cores"));
    queue.setRequestedParallel(4);  // the user's choice wins, past the cores
    QCOMPARE(queue.budgetFor(*head, config, 4).parallel, 4);
  }

  void noMoreRunsTrainAtOnceThanTheBudgetAllows() {
    g_probe.maxActive = 0;
    g_probe.maxThreads = 0;
    fl::store::RunStore store(path("parallel.db"));
    RunViews views(store);
    RunQueue queue(registry(), store, views);
    queue.setCores(2);
    std::string error;
    for (int i = 0; i < 5; ++i)
      QVERIFY(queue.add(registry().find("sleepy"), sleepyConfig(i + 1), "r", &error) > 0);
    QCOMPARE(queue.trainingCount(), 2);
    QCOMPARE(queue.waitingCount(), int64_t(3));
    QCOMPARE(queue.threadsOf(queue.runs()[0]), 1);
    QVERIFY(drainUntilIdle(queue, views));
    QCOMPARE(queue.runs().size(), size_t(5));
    QVERIFY(g_probe.maxActive <= 2);
    QCOMPARE(g_probe.maxThreads.load(), 1);
    for (auto id : queue.runs())
      QCOMPARE(fl::toString(views.find(id)->status()), fl::toString(fl::RunStatus::Finished));
  }

  void theUsersParallelRunsWins() {
    g_probe.maxActive = 0;
    fl::store::RunStore store(path("one.db"));
    RunViews views(store);
    RunQueue queue(registry(), store, views);
    queue.setCores(2);
    queue.setRequestedParallel(1);
    std::string error;
    for (int i = 0; i < 3; ++i) queue.add(registry().find("sleepy"), sleepyConfig(1), "r", &error);
    QCOMPARE(queue.trainingCount(), 1);
    QVERIFY(drainUntilIdle(queue, views));
    QCOMPARE(g_probe.maxActive.load(), 1);
  }

  void aWaitingRunCancelledIsRecordedCancelled() {
    fl::store::RunStore store(path("cancel.db"));
    RunViews views(store);
    RunQueue queue(registry(), store, views);
    queue.setCores(1);
    std::string error;
    queue.add(registry().find("sleepy"), sleepyConfig(1), "first", &error);
    const int64_t waiting = queue.add(registry().find("sleepy"), sleepyConfig(2), "second", &error);
    QVERIFY(queue.isWaiting(waiting));
    QSignalSpy ended(&queue, &RunQueue::runEnded);
    queue.cancel(waiting);
    QCOMPARE(ended.count(), 1);
    QVERIFY(!queue.isWaiting(waiting));
    QCOMPARE(fl::toString(views.find(waiting)->status()), fl::toString(fl::RunStatus::Cancelled));
    QCOMPARE(fl::toString(store.run(waiting)->status), fl::toString(fl::RunStatus::Cancelled));
    QVERIFY(drainUntilIdle(queue, views));
  }

  void aResumedRunKeepsItsRowAndItsCurvesWhole() {
    fl::store::RunStore store(path("resume.db"));
    RunViews views(store);
    RunQueue queue(registry(), store, views);
    auto head = registry().find("fourier-head");
    const auto config = fl::validateConfig(head->allParams(), {{"samples", 20000},
                                                               {"epochs", 4},
                                                               {"eval_every", 1},
                                                               {"checkpoint_every", 1},
                                                               {"device", "cpu"}})
                            .values;
    std::string error;
    const int64_t id = queue.add(head, config, "resumed", &error);
    QTRY_VERIFY_WITH_TIMEOUT((queue.drain(), !store.checkpoints(id).empty()), 60000);
    queue.cancel(id);
    QVERIFY(drainUntilIdle(queue, views));
    if (views.find(id)->status() == fl::RunStatus::Finished) QSKIP("it finished before the stop");
    QVERIFY(queue.resume(id, &error));
    QCOMPARE(queue.runs().size(), size_t(1));  // the same row, not a second one
    QVERIFY(drainUntilIdle(queue, views));
    QCOMPARE(fl::toString(views.find(id)->status()), fl::toString(fl::RunStatus::Finished));
    // The view: the store's past up to the checkpoint, then the resumed session's points.
    const auto& kl = views.find(id)->metrics().at("test/kl");
    QCOMPARE(kl.steps, (std::vector<double>{500, 1000, 1500, 2000}));
  }

  // A resume the trial refuses (its corpus changed) leaves the run as it was, as `run --resume`
  // does, and says why: it read "interrupted: not resumed: ..." after the refusal.
  void aRefusedResumeLeavesTheRunAsItWas() {
    fl::store::RunStore store(path("refused.db"));
    RunViews views(store);
    RunQueue queue(registry(), store, views);
    auto refusing = registry().find("refusing");
    const auto config =
        fl::validateConfig(refusing->allParams(), {{"device", "cpu"}, {"checkpoint_every", 1}})
            .values;
    std::string error;
    const int64_t id = queue.add(refusing, config, "refused", &error);
    QTRY_VERIFY_WITH_TIMEOUT((queue.drain(), !store.checkpoints(id).empty()), 60000);
    queue.cancel(id);
    QVERIFY(drainUntilIdle(queue, views));
    const auto before = *store.run(id);
    QCOMPARE(fl::toString(before.status), std::string("cancelled"));
    QSignalSpy problems(&queue, &RunQueue::problem);
    QVERIFY2(queue.resume(id, &error), error.c_str());
    QVERIFY(drainUntilIdle(queue, views));
    const auto after = *store.run(id);
    QCOMPARE(fl::toString(after.status), std::string("cancelled"));
    QCOMPARE(after.message, before.message);
    QCOMPARE(after.finished, before.finished);
    QCOMPARE(fl::toString(views.find(id)->status()), std::string("cancelled"));
    QCOMPARE(problems.count(), 1);
    QCOMPARE(problems.at(0).at(0).toString(),
             QString("Run #%1 not resumed: corpus 'x.txt' is not the text this run trained on; it "
                     "is left as it was")
                 .arg(id));
  }

  void aStudysCellsAreClaimedAsSlotsFreeAndEachTrainsOnce() {
    fl::store::RunStore store(path("study.db"));
    auto spec = fl::study::StudySpec::fromText(R"({"name": "w", "grid": {"width": [1, 2, 3]},
                                                   "seeds": [1, 2]})");
    spec.experiment = "sleepy";
    const auto expansion = fl::study::expandStudy(*registry().find("sleepy"), spec);
    QVERIFY(expansion.ok());
    const int64_t studyId = fl::study::StudyStore(store).create(spec, expansion);
    RunViews views(store);
    RunQueue queue(registry(), store, views);
    queue.setCores(2);
    // Listeners of runEnded read the store: by then it holds the run's final status.
    std::vector<std::string> statusWhenEnded;
    connect(&queue, &RunQueue::runEnded, this, [&](int64_t id, int64_t) {
      statusWhenEnded.push_back(fl::toString(store.run(id)->status));
    });
    std::string error;
    QCOMPARE(queue.addStudy(studyId, &error), int64_t(6));
    QCOMPARE(queue.trainingCount(), 2);  // claimed two, the others wait unclaimed
    QVERIFY(drainUntilIdle(queue, views));
    QCOMPARE(queue.runs().size(), size_t(6));
    for (auto id : queue.runs()) QCOMPARE(queue.studyOf(id), studyId);
    const auto results = fl::study::StudyStore(store).results(studyId);
    for (const auto& r : results)
      QCOMPARE(r.status, fl::study::CellStatus(fl::RunStatus::Finished));
    QCOMPARE(statusWhenEnded, std::vector<std::string>(6, "finished"));
    QCOMPARE(store.listRuns().size(), size_t(6));  // none trained twice
    // Queued again, a finished study has nothing left to train.
    QCOMPARE(queue.addStudy(studyId, &error), int64_t(0));
    QVERIFY(error.find("finished") != std::string::npos);
  }

  void aStudysCellsOfOneShapeTrainAsBatchedGroupsOfOrdinaryRuns() {
    auto spec = fl::study::StudySpec::fromText(R"({"name": "b", "grid": {"gamma": [0, 1e-6]},
        "seeds": [1, 2, 3], "set": {"samples": 200, "epochs": 6, "eval_every": 2}})");
    spec.experiment = "gated-fourier-head";
    const auto expansion = fl::study::expandStudy(*registry().find("gated-fourier-head"), spec);
    QVERIFY(expansion.ok());
    // The study trained cell by cell, for the figures the groups must give. Short runs: these
    // toys amplify rounding (test_batched_fourier_head), and batched sums add in another order.
    std::map<int64_t, double> aloneKl;
    {
      fl::store::RunStore store(path("cells.db"));
      const int64_t studyId = fl::study::StudyStore(store).create(spec, expansion);
      RunViews views(store);
      RunQueue queue(registry(), store, views);
      queue.setCores(2);
      queue.setBatchMode(fl::study::BatchMode{1});
      std::string error;
      QCOMPARE(queue.addStudy(studyId, &error), int64_t(6));
      QCOMPARE(queue.busyWorkers(), 2);
      QCOMPARE(queue.trainingCount(), 2);
      QVERIFY(drainUntilIdle(queue, views, 120000));
      for (const auto& r : fl::study::StudyStore(store).results(studyId))
        aloneKl[r.cell] = r.last.at("test/kl");
    }
    fl::store::RunStore store(path("groups.db"));
    const int64_t studyId = fl::study::StudyStore(store).create(spec, expansion);
    RunViews views(store);
    RunQueue queue(registry(), store, views);
    queue.setCores(2);  // auto: two groups of three, one per core
    std::string error;
    g_groupStart.close();
    struct OpenOnExit {
      ~OpenOnExit() { g_groupStart.open(); }  // a failed check must not leave groups waiting
    } openOnExit;
    QCOMPARE(queue.addStudy(studyId, &error), int64_t(6));
    QCOMPARE(queue.busyWorkers(), 2);
    QCOMPARE(queue.trainingCount(), 6);
    QCOMPARE(queue.runs().size(), size_t(6));  // a row per member
    // Stopped alone (before its group's first step), the first member ends cancelled while the
    // rest of its group trains on.
    const int64_t stopped = queue.runs().front();
    queue.cancel(stopped);
    g_groupStart.open();
    QVERIFY(drainUntilIdle(queue, views, 120000));
    QCOMPARE(fl::toString(views.find(stopped)->status()), fl::toString(fl::RunStatus::Cancelled));
    for (auto id : queue.runs()) {
      if (id == stopped) continue;
      QCOMPARE(fl::toString(views.find(id)->status()), fl::toString(fl::RunStatus::Finished));
    }
    // Resumed alone from its checkpoint, in its own row; then the figures are the cells'.
    QVERIFY(queue.resume(stopped, &error));
    QVERIFY(drainUntilIdle(queue, views, 120000));
    QCOMPARE(queue.runs().size(), size_t(6));
    QCOMPARE(fl::toString(views.find(stopped)->status()), fl::toString(fl::RunStatus::Finished));
    for (const auto& r : fl::study::StudyStore(store).results(studyId)) {
      QCOMPARE(r.status, fl::study::CellStatus(fl::RunStatus::Finished));
      const double kl = r.last.at("test/kl");
      QVERIFY2(std::abs(kl - aloneKl.at(r.cell)) <= 1e-3 * aloneKl.at(r.cell),
               ("run " + std::to_string(r.runId) + (r.runId == stopped ? " (resumed)" : "") + ": " +
                std::to_string(kl) + " vs " + std::to_string(aloneKl.at(r.cell)))
                   .c_str());
      // Each member's curve in its view is the store's: no point lost or repeated.
      std::vector<double> stored;
      for (const auto& point : store.metric(r.runId, "test/kl"))
        stored.push_back(static_cast<double>(point.step));
      QCOMPARE(stored.size(), size_t(3));  // every 2 epochs
      QCOMPARE(views.find(r.runId)->metrics().at("test/kl").steps, stored);
    }
  }
};

QTEST_GUILESS_MAIN(TestRunQueue)
#include "test_run_queue.moc"
