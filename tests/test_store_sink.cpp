// Tests core/store/store_sink.h (and the store writer behind it) with a live Runner: everything a
// run emits lands in the store, evaluations are flushed at once, a locked database delays writes
// without losing them, many runs written through one writer keep their own events and their own
// faults; and resuming from a checkpoint continues exactly where an uninterrupted run would be.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <thread>

#include <sqlite3.h>

#include "core/engine/event_queue.h"
#include "core/engine/registry.h"
#include "core/engine/run_name.h"
#include "core/engine/runner.h"
#include "core/engine/system_metrics.h"
#include "core/store/lost_batch.h"
#include "core/store/run_store.h"
#include "core/store/store_sink.h"
#include "core/store/store_writer.h"
#include "core/store/write_trouble.h"
#include "experiments/builtin_experiments.h"

namespace fs = std::filesystem;
using fl::store::RunStore;

namespace {

std::shared_ptr<const fl::Experiment> fourierHead() {
  static fl::ExperimentRegistry registry;
  if (registry.all().empty()) fl::registerBuiltinExperiments(registry);
  return registry.find("fourier-head");
}

fl::StatusEvent statusEvent(fl::RunStatus status) {
  fl::StatusEvent e;
  e.status = status;
  e.device = "cpu";
  return e;
}

nlohmann::json smallConfig(const std::vector<std::string>& extra = {}) {
  // Each key once: buildConfig refuses a key set twice. `extra` replaces a default here.
  std::map<std::string, std::string> byKey{{"samples", "400"},
                                           {"epochs", "6"},
                                           {"eval_every", "1"},
                                           {"device", "cpu"},
                                           {"checkpoint_every", "1"}};
  for (const auto& e : extra) byKey[e.substr(0, e.find('='))] = e.substr(e.find('=') + 1);
  std::vector<std::string> a;
  for (const auto& [key, value] : byKey) a.push_back(key + "=" + value);
  auto c = fl::buildConfig(*fourierHead(), "", a);
  if (!c.ok()) qFatal("%s", c.summary().c_str());
  return c.values;
}

// Copies each checkpoint file as it appears, before the keep policy can delete it.
class CheckpointCollector : public fl::EventSink {
 public:
  explicit CheckpointCollector(std::string folder) : m_folder(std::move(folder)) {}
  void onEvent(const fl::Event& e) override {
    if (auto* c = std::get_if<fl::CheckpointEvent>(&e); c && !c->removed) {
      const auto copy = m_folder + "/copy-" + std::to_string(c->step) + ".pt";
      fs::copy_file(c->path, copy, fs::copy_options::overwrite_existing);
      std::lock_guard<std::mutex> lock(m_mutex);
      m_copies[c->step] = copy;
    }
  }
  std::map<int64_t, std::string> copies() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_copies;
  }

 private:
  std::string m_folder;
  std::mutex m_mutex;
  std::map<int64_t, std::string> m_copies;
};

// Whether each superseded checkpoint file still existed when the Runner announced it.
class RemovalWitness : public fl::EventSink {
 public:
  void onEvent(const fl::Event& e) override {
    if (auto* c = std::get_if<fl::CheckpointEvent>(&e); c && c->removed) {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_existed.push_back(fs::exists(c->path));
    }
  }
  std::vector<bool> existed() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_existed;
  }

 private:
  std::mutex m_mutex;
  std::vector<bool> m_existed;
};

// Trains the small fourier-head config into a new run of `store` through a StoreSink (with
// checkpoints), showing every event to `witness` as well; returns the run id.
int64_t trainInto(RunStore& store, fl::EventSink& witness) {
  const auto config = smallConfig();
  const int64_t id = store.createRun({"fourier-head", "", config, {}, {}});
  fl::store::StoreSink sink(store.path(), id);
  fl::FanOutSink both({&witness, &sink});
  fl::RunnerOptions options;
  options.checkpointDir = store.artifactFolder(id);
  fl::Runner runner(fourierHead(), config, both, options);
  runner.start();
  runner.join();
  sink.close();
  if (sink.error()) qFatal("the store sink failed: %s", sink.error()->c_str());
  return id;
}

}  // namespace

// A store with one run, and another connection holding its write lock until release().
struct LockedStore {
  explicit LockedStore(const std::string& db)
      : store(db), run(store.createRun({"x", "", nlohmann::json::object(), {}, {}})) {
    sqlite3_open(db.c_str(), &holder);
    locked = sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK;
  }
  ~LockedStore() { release(); }
  LockedStore(const LockedStore&) = delete;
  LockedStore& operator=(const LockedStore&) = delete;
  void release() {
    if (!holder) return;
    sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(holder);
    holder = nullptr;
  }
  RunStore store;
  const int64_t run;
  sqlite3* holder = nullptr;
  bool locked = false;
};

class TestStoreSink : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string path(const std::string& name) const {
    return m_dir.path().toStdString() + "/" + name;
  }

 private slots:
  // Of a batch the store refused, the checkpoint recorded for the resume is one from which the
  // resume gives back every lost metric: before the first lost step, or at it where the run
  // finished there. A batch lost from step 1 kept its final checkpoint, and the resumed run
  // ended with one point of each curve.
  void aLostBatchKeepsOnlyACheckpointThatGivesEveryLostPointBack() {
    QTemporaryDir dir;
    auto checkpoint = [&](int64_t step) {
      const std::string path = dir.filePath(QString("step-%1.pt").arg(step)).toStdString();
      std::ofstream(path) << "x";
      return fl::CheckpointEvent{step, path, false};
    };
    const fl::MetricEvent loss1{"train/loss", 1, 0.1, 3.0};
    const fl::MetricEvent loss40{"train/loss", 40, 4.0, 2.0};
    const fl::MetricEvent kl40{"test/kl", 40, 4.0, 0.3};
    const fl::MetricEvent cpu10{std::string(fl::kSystemCpuPercent), 10, 1.0, 100.0};
    fl::SnapshotEvent probe{5, 0.5, {}, 7};  // a probe's answer: asked once, never given again
    const fl::StatusEvent finished{fl::RunStatus::Finished, "", "cpu", 40};
    const fl::StatusEvent cancelled{fl::RunStatus::Cancelled, "", "cpu", 40};
    using Batch = std::vector<fl::Event>;
    auto keptStep = [](const Batch& lost) {
      const auto* kept = fl::store::resumableCheckpointOf(lost);
      return kept ? kept->step : int64_t(-1);
    };
    QCOMPARE(fl::store::firstLostStep({cpu10, probe, loss40}), int64_t(40));
    // Lost from step 1: no checkpoint of it gives step 1 back.
    QCOMPARE(keptStep({loss1, checkpoint(25), loss40, kl40, checkpoint(40), finished}),
             int64_t(-1));
    // Only the final step's points (and the machine's, and a probe's): its checkpoint.
    QCOMPARE(keptStep({cpu10, probe, loss40, kl40, checkpoint(40), finished}), int64_t(40));
    // The same step but not the run's end: resumed there, its evaluation would not come back.
    QCOMPARE(keptStep({loss40, kl40, checkpoint(40), cancelled}), int64_t(-1));
    // A checkpoint before the first lost step is kept, the newest such.
    QCOMPARE(keptStep({checkpoint(10), checkpoint(20), loss40, kl40, checkpoint(40), cancelled}),
             int64_t(20));
    // Superseded within the batch, or its file gone: not kept.
    auto gone = checkpoint(30);
    std::filesystem::remove(gone.path);
    QCOMPARE(
        keptStep({checkpoint(20), fl::CheckpointEvent{0, checkpoint(20).path, true}, gone, loss40}),
        int64_t(-1));
  }

  // What the store lacks, said of a lost batch: its final status only where it is still lost.
  // A failed run's status is written by the one small write after the loss, so its message
  // must not say the status was not written.
  void aLostBatchIsDescribedWithItsStatusOnlyWhileTheStatusIsLost() {
    fl::StatusEvent failed;
    failed.status = fl::RunStatus::Failed;
    const std::vector<fl::Event> lost{fl::MetricEvent{"train/loss", 3, 0.1, 2.0},
                                      fl::MetricEvent{"train/loss", 5, 0.2, 1.5}, failed};
    QCOMPARE(fl::store::describeEvents(lost),
             std::string("its final status (failed), 2 metric points (steps 3-5)"));
    QCOMPARE(fl::store::describeEvents(lost, /*withStatus=*/false),
             std::string("2 metric points (steps 3-5)"));
    // Points of one step are said at it: "(steps 500-500)" read as a range.
    QCOMPARE(fl::store::describeEvents(
                 {fl::MetricEvent{"a", 500, 1.0, 0.1}, fl::MetricEvent{"b", 500, 1.0, 0.2}}),
             std::string("2 metric points (step 500)"));
    // Checkpoints are counted with their span (a long lock held dozens, each named on its own);
    // one removed within the batch is not among them (its file is gone).
    auto checkpointAt = [](int64_t step, bool removed = false) {
      return fl::CheckpointEvent{step, "step-" + std::to_string(step) + ".pt", removed};
    };
    QCOMPARE(fl::store::describeEvents({checkpointAt(5)}), std::string("the checkpoint at step 5"));
    QCOMPARE(fl::store::describeEvents({checkpointAt(5), checkpointAt(10)}),
             std::string("the checkpoints at steps 5 and 10"));
    QCOMPARE(fl::store::describeEvents({checkpointAt(5), checkpointAt(10), checkpointAt(15),
                                        checkpointAt(5, true), checkpointAt(20)}),
             std::string("3 checkpoints (steps 10-20)"));
    // Why it failed goes with it: where the status is lost, this line is all that says so.
    fl::StatusEvent why = failed;
    why.message = "cannot write step-125.pt: disk full";
    QCOMPARE(fl::store::describeEvents({why}),
             std::string("its final status (failed: cannot write step-125.pt: disk full)"));
    // The status alone, once written, leaves nothing to name; log lines are counted.
    QCOMPARE(fl::store::describeEvents({failed}, /*withStatus=*/false), std::string());
    QCOMPARE(fl::store::describeEvents({fl::LogEvent{}, failed}, /*withStatus=*/false),
             std::string("1 event"));
  }

  void aLiveRunIsRecordedCompletely() {
    const auto db = path("live.db");
    RunStore store(db);
    fl::EventQueue queue;
    const int64_t id = trainInto(store, queue);

    // Every snapshot the run emitted is stored as it declares: each step, the latest step of
    // its name, or not at all (rebuilt for readers).
    size_t metricEvents = 0, snapshotEvents = 0;
    std::set<std::string> latestOnly;
    for (const auto& e : queue.takeAll()) {
      metricEvents += std::holds_alternative<fl::MetricEvent>(e);
      if (auto* s = std::get_if<fl::SnapshotEvent>(&e)) {
        if (s->snapshot.keep == fl::SnapshotKeep::EveryStep) ++snapshotEvents;
        if (s->snapshot.keep == fl::SnapshotKeep::LatestStep) latestOnly.insert(s->snapshot.name);
      }
    }
    snapshotEvents += latestOnly.size();
    auto r = store.run(id).value();
    QCOMPARE(fl::toString(r.status), std::string("finished"));
    QCOMPARE(r.device, std::string("cpu"));
    QVERIFY(r.started > 0 && r.finished >= r.started);
    QCOMPARE(r.lastStep, r.totalSteps);
    size_t stored = 0;
    for (const auto& s : r.metrics) stored += static_cast<size_t>(s.count);
    QCOMPARE(stored, metricEvents);
    size_t storedSnapshots = 0;
    for (const auto& name : store.snapshotNames(id))
      storedSnapshots += store.snapshots(id, name).size();
    QCOMPARE(storedSnapshots, snapshotEvents);
    // The keep policy left the last and the best checkpoint, with files that exist.
    auto checkpoints = store.checkpoints(id);
    QVERIFY(!checkpoints.empty() && checkpoints.size() <= 2);
    QCOMPARE(checkpoints.back().step, r.totalSteps);
    for (const auto& c : checkpoints) QVERIFY(fs::exists(c.path));
    size_t files = 0;
    for (const auto& f : fs::directory_iterator(store.artifactFolder(id)))
      files += f.is_regular_file();
    QCOMPARE(files, checkpoints.size());
  }

  // The Runner used to delete superseded checkpoint files before the writer thread had
  // committed the new checkpoint's row, so a kill -9 between the two left the store naming a
  // deleted file. Now the Runner only announces them; the store deletes them after its commit.
  void supersededCheckpointsAreDeletedOnlyByTheStore() {
    const auto db = path("superseded.db");
    RunStore store(db);
    RemovalWitness witness;
    const int64_t id = trainInto(store, witness);
    const auto existed = witness.existed();
    QVERIFY(!existed.empty());  // 6 checkpoints, at most 2 kept
    for (bool e : existed) QVERIFY(e);
    for (const auto& c : store.checkpoints(id)) QVERIFY(fs::exists(c.path));
    size_t files = 0;
    for (const auto& f : fs::directory_iterator(store.artifactFolder(id)))
      files += f.is_regular_file();
    QCOMPARE(files, store.checkpoints(id).size());  // the store deleted the superseded ones
  }

  void evaluationsAreFlushedWithoutWaitingForTheInterval() {
    const auto db = path("flush.db");
    RunStore store(db);
    const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    fl::store::StoreSink sink(db, id, std::chrono::milliseconds(60000));
    sink.onEvent(fl::MetricEvent{"test/kl", 10, 1.0, 0.5});
    sink.onEvent(fl::ProgressEvent{10, 100, 1, 10, 1.0, 2.0, /*evaluated=*/true});
    QTRY_COMPARE_WITH_TIMEOUT(store.metric(id, "test/kl").size(), size_t(1), 5000);
    sink.onEvent(fl::MetricEvent{"train/loss", 11, 1.1, 2.0});  // not an evaluation: waits
    QTest::qWait(300);
    QCOMPARE(store.metric(id, "train/loss").size(), size_t(0));
    sink.close();  // close writes the rest
    QCOMPARE(store.metric(id, "train/loss").size(), size_t(1));
  }

  // A training-loss point (no evaluation to flush it) is on disk within the default 1 s flush
  // interval, visible to another connection while the sink is still open.
  void aTrainingPointReachesTheDiskWithinTheDefaultInterval() {
    const auto db = path("interval.db");
    const int64_t id = RunStore(db).createRun({"x", "", nlohmann::json::object(), {}, {}});
    fl::store::StoreSink sink(db, id);
    QTest::qWait(100);  // the writer is waiting on its interval, as during a run
    sink.onEvent(fl::MetricEvent{"train/loss", 1, 0.1, 2.0});
    RunStore reader(db, /*readOnly=*/true);
    // 1 s plus ample slack for two shared cores: what matters is that the point does not wait
    // for close() (the sink stays open until after the check).
    QTRY_COMPARE_WITH_TIMEOUT(reader.metric(id, "train/loss").size(), size_t(1), 3000);
    sink.close();
  }

  // checkpoint_every = N writes a checkpoint after every Nth evaluation, and one at the end.
  void checkpointEveryNEvaluations() {
    const auto config = smallConfig({"checkpoint_every=4"});
    fl::EventQueue queue;
    fl::RunnerOptions options;
    options.checkpointDir = path("every-4");
    fl::Runner runner(fourierHead(), config, queue, options);
    runner.start();
    runner.join();
    std::vector<int64_t> evaluated, checkpointed;
    int64_t lastStep = -1;
    for (const auto& e : queue.takeAll()) {
      if (auto* p = std::get_if<fl::ProgressEvent>(&e)) {
        if (p->evaluated) evaluated.push_back(p->step);
        lastStep = p->totalSteps;
      }
      if (auto* c = std::get_if<fl::CheckpointEvent>(&e); c && !c->removed)
        checkpointed.push_back(c->step);
    }
    QVERIFY(evaluated.size() > 4);
    QCOMPARE(evaluated.back(), lastStep);
    std::vector<int64_t> expected;
    for (size_t i = 0; i < evaluated.size(); ++i)
      if ((i + 1) % 4 == 0 || i + 1 == evaluated.size()) expected.push_back(evaluated[i]);
    QCOMPARE(checkpointed, expected);
  }

  void aLockedDatabaseDelaysButLosesNothing() {
    const auto db = path("locked.db");
    RunStore store(db);
    const int64_t first = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    const int64_t second = store.createRun({"y", "", nlohmann::json::object(), {}, {}});
    sqlite3* holder = nullptr;
    sqlite3_open(db.c_str(), &holder);
    sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    // 100 ms batches against a 5 s busy timeout: the first write waits on the lock.
    fl::store::StoreSink sink(db, first, std::chrono::milliseconds(100));
    fl::store::StoreSink other(db, second, std::chrono::milliseconds(100));
    for (int i = 1; i <= 1000; ++i) {
      sink.onEvent(fl::MetricEvent{"m", i, i * 0.001, double(i)});
      other.onEvent(fl::MetricEvent{"m", i, i * 0.001, -double(i)});
    }
    QTest::qWait(500);
    sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(holder);
    sink.close();
    other.close();
    QVERIFY(!sink.error());
    QVERIFY(!other.error());
    QCOMPARE(store.metric(first, "m").size(), size_t(1000));
    QCOMPARE(store.metric(second, "m").size(), size_t(1000));
    QCOMPARE(store.metric(second, "m").back().value, -1000.0);
  }

  // While another process holds the lock, the sink's error says so (a live run's trouble is
  // read from it), and once the lock goes the same sink's writes are taken again.
  void aLockedStoreIsSaidWhileItLastsAndClearedAfter() {
    const auto db = path("locked-said.db");
    LockedStore locked(db);
    QVERIFY(locked.locked);
    fl::store::StoreSink sink(db, locked.run, std::chrono::milliseconds(100));
    sink.onEvent(fl::MetricEvent{"m", 1, 0.001, 1.0});
    QTRY_VERIFY_WITH_TIMEOUT(sink.error().has_value(), 30000);
    QVERIFY2(sink.error()->find("another process holds the write lock") != std::string::npos,
             sink.error()->c_str());
    sink.onEvent(fl::MetricEvent{"m", 2, 0.002, 2.0});
    locked.release();
    QTRY_VERIFY_WITH_TIMEOUT(!sink.error().has_value(), 30000);
    QCOMPARE(locked.store.metric(locked.run, "m").size(), size_t(2));
    sink.close();
    QVERIFY(!sink.failure());
  }

  // Another process's lock of a few seconds as a run ended cost it everything its last batch
  // held: its final status and metrics, its checkpoints' rows and (as strays) their files. A
  // run that has ended now keeps trying while the lock lasts. The lock here outlasts two busy
  // timeouts, the one last try the writer gave a closing run.
  void aRunEndingUnderALockWaitsForItAndLosesNothing() {
    const auto db = path("locked-at-end.db");
    LockedStore locked(db);
    QVERIFY(locked.locked);
    const std::string checkpoint = locked.store.artifactFolder(locked.run) + "/step-40.pt";
    fs::create_directories(locked.store.artifactFolder(locked.run));
    std::ofstream(checkpoint) << "weights";
    fl::store::StoreSink sink(db, locked.run, std::chrono::milliseconds(100));
    for (int i = 1; i <= 40; ++i) sink.onEvent(fl::MetricEvent{"m", i, i * 0.01, double(i)});
    sink.onEvent(fl::CheckpointEvent{40, checkpoint, false});
    fl::StatusEvent finished;
    finished.status = fl::RunStatus::Finished;
    finished.step = 40;
    sink.onEvent(finished);
    sink.beginClose();
    QTRY_VERIFY_WITH_TIMEOUT(sink.error().has_value(), 30000);  // said while it waits
    QTest::qWait(11000);
    QVERIFY(!sink.waitClosed(std::chrono::milliseconds(0)));
    locked.release();
    QVERIFY(sink.waitClosed(std::chrono::minutes(1)));
    QVERIFY2(!sink.failure(), sink.failure() ? sink.failure()->unwritten.c_str() : "");
    QVERIFY(!sink.error());
    QCOMPARE(locked.store.metric(locked.run, "m").size(), size_t(40));
    QCOMPARE(fl::toString(locked.store.run(locked.run)->status), std::string("finished"));
    QCOMPARE(locked.store.checkpoints(locked.run).size(), size_t(1));
    QVERIFY(fs::exists(checkpoint));
  }

  // The wait has an end: past its patience, or at once when its closer is signalled (a
  // cluster's SIGKILL follows its SIGTERM within seconds). The batch is then lost and recorded
  // so, as on any failed write.
  void aClosingRunsWaitForTheLockEnds_data() {
    QTest::addColumn<bool>("signalled");
    QTest::newRow("patience spent") << false;
    QTest::newRow("closer signalled") << true;
  }
  void aClosingRunsWaitForTheLockEnds() {
    QFETCH(bool, signalled);
    if (!signalled) qputenv("FOURIERLAB_STORE_PATIENCE_MS", "0");
    const auto restore = qScopeGuard([] { qunsetenv("FOURIERLAB_STORE_PATIENCE_MS"); });
    const auto db = path(std::string("locked-ends-") + (signalled ? "signalled" : "past") + ".db");
    LockedStore locked(db);
    QVERIFY(locked.locked);
    {
      fl::store::StoreSink sink(db, locked.run, std::chrono::milliseconds(100));
      sink.onEvent(fl::MetricEvent{"m", 1, 0.01, 1.0});
      sink.beginClose();
      if (signalled) {
        QTRY_VERIFY_WITH_TIMEOUT(sink.error().has_value(), 30000);
        sink.stopWaiting();
      }
      QVERIFY(sink.waitClosed(std::chrono::seconds(60)));  // busy timeouts, not minutes
      QVERIFY(sink.failure().has_value());
      QCOMPARE(sink.failure()->unwritten, std::string("1 metric point (step 1)"));
      QVERIFY2(
          sink.failure()->error.find("another process holds the write lock") != std::string::npos,
          sink.failure()->error.c_str());
    }
    locked.release();
    QCOMPARE(locked.store.metric(locked.run, "m").size(), size_t(0));
  }

  void runsAreNamedShortly() {
    using fl::nameRunIds;
    QCOMPARE(nameRunIds({7}), std::string("run 7"));
    QCOMPARE(nameRunIds({3, 4}), std::string("runs 3 and 4"));
    QCOMPARE(nameRunIds({3, 4, 5}), std::string("runs 3, 4 and 5"));
    QCOMPARE(nameRunIds({3, 4, 5, 6}), std::string("runs 3, 4, 5 and 6"));
    QCOMPARE(nameRunIds({3, 4, 5, 6, 7}), std::string("runs 3, 4, 5 and 2 more"));
  }

  // Trouble is said when it starts and when its reason changes, not again while it lasts;
  // its end is said only of runs whose writes were taken (a run that ended failing lost its
  // batch, and its end says so: "taken again" would be false).
  void writeTroubleIsSaidOnceAndItsEndOnlyForRunsThatWrote() {
    fl::store::WriteTroubleWatch watch;
    QVERIFY(!watch.update({}, {}));
    const auto said = watch.update({{1}, "runs.db: database or disk is full"}, {});
    QVERIFY(said);
    QVERIFY2(said->find("not taking the writes of run 1 (runs.db: database or disk is full)") !=
                 std::string::npos,
             said->c_str());
    QVERIFY2(said->find("before the run ends (or, while another process holds its lock, within 2 "
                        "minutes of its end)") != std::string::npos,
             said->c_str());
    QVERIFY(!watch.update({{1, 2}, "runs.db: database or disk is full"}, {}));
    QVERIFY(!watch.update({{1, 2}, "runs.db: database or disk is full"}, {}));
    const auto other = watch.update({{1, 2}, "runs.db: disk I/O error"}, {});
    QVERIFY(other && other->find("runs 1 and 2 (runs.db: disk I/O error)") != std::string::npos);
    QVERIFY(other->find("before those runs end (or, while another process holds its lock, within 2 "
                        "minutes of their ends)") != std::string::npos);
    // Run 1 ended with its writes lost; run 2 wrote: only run 2 is said to be taken again.
    const auto back = watch.update({}, {1});
    QVERIFY(back);
    QCOMPARE(*back, std::string("taking the writes of run 2 again: nothing of it was lost"));
    QVERIFY(!watch.update({}, {1}));
    // Every failing run ended with its writes lost: nothing to say here (their ends say it).
    QVERIFY(watch.update({{4}, "locked"}, {1}));
    QVERIFY(!watch.update({}, {1, 4}));
    QVERIFY(!watch.update({}, {1, 4}));
  }

  // A study's runs write through one writer: 40 runs fed from 4 threads at once, each with its
  // own random number of points, each find exactly theirs in the store, in order.
  void runsOfOneStoreKeepTheirOwnEventsThroughOneWriter() {
    const auto db = path("shared.db");
    RunStore store(db);
    std::mt19937 rng(7);
    constexpr int kRuns = 40, kThreads = 4;
    std::vector<int64_t> ids;
    std::vector<int> counts;
    std::vector<std::unique_ptr<fl::store::StoreSink>> sinks;
    for (int r = 0; r < kRuns; ++r) {
      ids.push_back(store.createRun({"x", "", nlohmann::json::object(), {}, {}}));
      counts.push_back(std::uniform_int_distribution<int>(1, 200)(rng));
      sinks.push_back(
          std::make_unique<fl::store::StoreSink>(db, ids.back(), std::chrono::milliseconds(50)));
    }
    // One writer for the store (at one flush interval), however many sinks.
    const auto writer = fl::store::StoreWriter::of(db, std::chrono::milliseconds(50));
    QCOMPARE(fl::store::StoreWriter::of(db, std::chrono::milliseconds(50)).get(), writer.get());
    QVERIFY(fl::store::StoreWriter::of(db, std::chrono::milliseconds(60)).get() != writer.get());
    std::vector<std::thread> feeders;
    for (int t = 0; t < kThreads; ++t)
      feeders.emplace_back([&, t] {
        for (int r = t; r < kRuns; r += kThreads) {
          auto& sink = *sinks[r];
          sink.onEvent(statusEvent(fl::RunStatus::Running));
          for (int i = 1; i <= counts[r]; ++i)
            sink.onEvent(fl::MetricEvent{"m", i, i * 0.01, double(ids[r] * 1000 + i)});
          sink.onEvent(statusEvent(fl::RunStatus::Finished));
        }
      });
    for (auto& f : feeders) f.join();
    std::vector<int> order(kRuns);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (int r : order) sinks[r]->close();
    for (int r = 0; r < kRuns; ++r) {
      QVERIFY(!sinks[r]->error());
      QVERIFY(!sinks[r]->failure());
      QCOMPARE(sinks[r]->eventsWritten(), int64_t(counts[r] + 2));
      QCOMPARE(fl::toString(store.run(ids[r])->status), std::string("finished"));
      const auto points = store.metric(ids[r], "m");
      QCOMPARE(points.size(), size_t(counts[r]));
      for (int i = 0; i < counts[r]; ++i) {
        QCOMPARE(points[i].step, int64_t(i + 1));
        QCOMPARE(points[i].value, double(ids[r] * 1000 + i + 1));
      }
    }
  }

  // One writer flushes every run of the store at once: a point another run queued (no
  // evaluation of its own to flush it) is written with this run's evaluation.
  void anEvaluationFlushesEveryRunOfTheStore() {
    const auto db = path("together.db");
    RunStore store(db);
    const int64_t evaluated = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    const int64_t quiet = store.createRun({"y", "", nlohmann::json::object(), {}, {}});
    fl::store::StoreSink a(db, evaluated, std::chrono::milliseconds(60000));
    fl::store::StoreSink b(db, quiet, std::chrono::milliseconds(60000));
    b.onEvent(fl::MetricEvent{"train/loss", 5, 0.5, 2.0});
    a.onEvent(fl::MetricEvent{"test/kl", 10, 1.0, 0.5});
    a.onEvent(fl::ProgressEvent{10, 100, 1, 10, 1.0, 2.0, /*evaluated=*/true});
    QTRY_COMPARE_WITH_TIMEOUT(store.metric(evaluated, "test/kl").size(), size_t(1), 5000);
    QCOMPARE(store.metric(quiet, "train/loss").size(), size_t(1));
  }

  // A run whose writes fail (here its row is gone: every insert breaks a foreign key) loses its
  // own batch when it closes, with failure() saying what; the runs beside it are written live,
  // while it is still open, and completely.
  void aRunWhoseWritesFailLosesOnlyItsOwn() {
    const auto db = path("isolated.db");
    RunStore store(db);
    const int64_t first = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    const int64_t second = store.createRun({"y", "", nlohmann::json::object(), {}, {}});
    const int64_t gone = second + 1000;
    fl::store::StoreSink a(db, first, std::chrono::milliseconds(50));
    fl::store::StoreSink broken(db, gone, std::chrono::milliseconds(50));
    fl::store::StoreSink b(db, second, std::chrono::milliseconds(50));
    for (int i = 1; i <= 3; ++i) {
      a.onEvent(fl::MetricEvent{"m", i, i * 0.1, double(i)});
      broken.onEvent(fl::MetricEvent{"m", i, i * 0.1, double(i)});
      b.onEvent(fl::MetricEvent{"m", i, i * 0.1, double(i)});
    }
    QTRY_COMPARE_WITH_TIMEOUT(store.metric(first, "m").size(), size_t(3), 5000);
    QTRY_COMPARE_WITH_TIMEOUT(store.metric(second, "m").size(), size_t(3), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(broken.error().has_value(), 5000);
    QVERIFY2(broken.error()->find("FOREIGN KEY") != std::string::npos, broken.error()->c_str());
    broken.close();
    QVERIFY(broken.failure().has_value());
    QCOMPARE(broken.failure()->unwritten, std::string("3 metric points (steps 1-3)"));
    QVERIFY(!broken.failure()->recorded);  // it has no row to record its end in
    a.onEvent(fl::MetricEvent{"m", 4, 0.4, 4.0});
    a.close();
    b.close();
    QVERIFY(!a.failure() && !a.error());
    QVERIFY(!b.failure() && !b.error());
    QCOMPARE(store.metric(first, "m").size(), size_t(4));
  }

  void resumingFromACheckpointMatchesAnUninterruptedRun() {
    // The reference: 6 epochs straight through, copying every checkpoint as it is written.
    const auto config = smallConfig();
    CheckpointCollector collector(m_dir.path().toStdString());
    fl::EventQueue straight;
    fl::FanOutSink sinks({&collector, &straight});
    fl::RunnerOptions options;
    options.checkpointDir = path("resume-ckpt");
    {
      fl::Runner runner(fourierHead(), config, sinks, options);
      runner.start();
      runner.join();
    }
    const auto copies = collector.copies();
    QVERIFY(copies.size() >= 3);
    const auto middle = std::next(copies.begin(), 2);  // after the 3rd epoch
    // Resume from that checkpoint: every later metric must be bit-for-bit the same.
    fl::EventQueue resumed;
    fl::RunnerOptions resumeOptions;
    resumeOptions.checkpointDir = path("resume-ckpt-2");
    resumeOptions.resume = fl::ResumePoint{middle->second, middle->first};
    {
      fl::Runner runner(fourierHead(), config, resumed, resumeOptions);
      runner.start();
      runner.join();
    }
    // The run's own metrics: the process's "system/" figures are sampled on the clock.
    std::map<std::pair<std::string, int64_t>, double> expected, got;
    for (const auto& e : straight.takeAll())
      if (auto* m = std::get_if<fl::MetricEvent>(&e);
          m && m->step > middle->first && !fl::isSystemMetric(m->key))
        expected[{m->key, m->step}] = m->value;
    for (const auto& e : resumed.takeAll())
      if (auto* m = std::get_if<fl::MetricEvent>(&e); m && !fl::isSystemMetric(m->key))
        got[{m->key, m->step}] = m->value;
    QVERIFY(!expected.empty());
    QCOMPARE(got.size(), expected.size());  // nothing before the checkpoint is repeated
    for (const auto& [key, value] : expected)
      QVERIFY2(got.at(key) == value, qPrintable(QString("%1 at step %2: %3 vs %4")
                                                    .arg(QString::fromStdString(key.first))
                                                    .arg(key.second)
                                                    .arg(got.at(key))
                                                    .arg(value)));
  }
};

QTEST_GUILESS_MAIN(TestStoreSink)
#include "test_store_sink.moc"
