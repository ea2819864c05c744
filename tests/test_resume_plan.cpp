// Tests core/store/resume_plan.h: a run resumes from the newest checkpoint whose file exists and
// is whole,
// and a run that cannot resume is left exactly as it was (metrics, status, checkpoints).
#include <QtTest>

#include <filesystem>
#include <fstream>

#include <torch/torch.h>

#include "core/engine/registry.h"
#include "core/optim/checkpoint_file.h"
#include "core/store/resume_plan.h"
#include "core/store/run_store.h"
#include "experiments/builtin_experiments.h"
#include "tests/sqlite_probe.h"

namespace fs = std::filesystem;
using fl::store::RunStore;

namespace {

const fl::ExperimentRegistry& registry() {
  static fl::ExperimentRegistry r;
  if (r.all().empty()) fl::registerBuiltinExperiments(r);
  return r;
}

// An interrupted fourier-head run with a metric at steps 1..8 and checkpoints (rows and files)
// at steps 4 and 8, as the keep policy leaves them.
int64_t interruptedRun(RunStore& store) {
  auto config = fl::buildConfig(*registry().find("fourier-head"), "", {"device=cpu"});
  if (!config.ok()) qFatal("%s", config.summary().c_str());
  const int64_t id = store.createRun({"fourier-head", "", config.values, {}, {}});
  store.markRunning(id, "cpu", 8, fl::store::currentProcess());
  std::vector<fl::Event> events;
  for (int64_t step = 1; step <= 8; ++step)
    events.push_back(fl::MetricEvent{"train/loss", step, step * 0.1, 1.0 / double(step)});
  store.writeEvents(id, events);
  fs::create_directories(store.artifactFolder(id));
  for (int64_t step : {4, 8}) {
    const auto file = store.artifactFolder(id) + "/step-" + std::to_string(step) + ".pt";
    torch::serialize::OutputArchive archive;
    archive.write("step", torch::tensor(step));
    fl::optim::saveArchive(archive, file);  // a whole file, with its CRC
    store.addCheckpoint(id, step, file);
  }
  store.finishRun(id, fl::RunStatus::Interrupted, "killed");
  return id;
}

}  // namespace

class TestResumePlan : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string path(const std::string& name) const {
    return m_dir.path().toStdString() + "/" + name;
  }

 private slots:
  void resumesFromTheLastCheckpoint() {
    RunStore store(path("last.db"));
    const int64_t id = interruptedRun(store);
    auto plan = fl::store::prepareResume(registry(), store, id);
    QVERIFY2(plan.ok(), plan.error.c_str());
    QCOMPARE(plan.point.step, int64_t(8));
    QVERIFY(plan.note.empty());
    QCOMPARE(store.metric(id, "train/loss").size(), size_t(8));
  }

  // A killed run's steps after its last checkpoint are dropped by the resume and trained
  // again: said where it continues (the window's status bar and `run --resume`), they are not
  // a silent jump back in its curves.
  void aResumeSaysWhatItTrainsAgain() {
    RunStore store(path("says.db"));
    const int64_t id = interruptedRun(store);
    fl::ProgressEvent reached;
    reached.step = 11;
    reached.totalSteps = 20;
    store.writeEvents(id, {reached});
    auto plan = fl::store::prepareResume(registry(), store, id);
    QVERIFY2(plan.ok(), plan.error.c_str());
    QCOMPARE(fl::store::describeResume(plan),
             std::string("from its checkpoint at step 8 (steps 9-11 are trained again)"));
    plan.stepsBefore = 9;
    QCOMPARE(fl::store::describeResume(plan),
             std::string("from its checkpoint at step 8 (step 9 is trained again)"));
    plan.stepsBefore = 8;
    QCOMPARE(fl::store::describeResume(plan), std::string("from its checkpoint at step 8"));
    plan.fromStart = true;
    QCOMPARE(fl::store::describeResume(plan),
             std::string("from step 0 (its 8 steps are trained again)"));
  }

  // A config a damaged page left unreadable read as null, which validates as every default: the
  // run would have trained on with the default lr, steps and seed. Refused, nothing changed.
  void aDamagedConfigIsNotResumedWithTheDefaults() {
    const std::string p = path("damaged-config.db");
    RunStore store(p);
    const int64_t id = interruptedRun(store);
    QCOMPARE(fl::testing::writeSql(p, "UPDATE runs SET config = '{\"lr\": AAAA'"), std::string());
    const auto plan = fl::store::prepareResume(registry(), store, id);
    QVERIFY(!plan.ok());
    QVERIFY2(plan.error.find("stored config is damaged") != std::string::npos, plan.error.c_str());
    QCOMPARE(store.metric(id, "train/loss").size(), size_t(8));  // nothing rewound
    QCOMPARE(fl::toString(store.run(id)->status), std::string("interrupted"));
  }

  // A checkpoint whose step has no evaluation stored (the store refused the run's last writes)
  // says so: resumed at the last step, the run evaluates again before it is finished.
  void theResumePointSaysWhetherItsStepWasEvaluated() {
    RunStore store(path("evaluated.db"));
    const int64_t id = interruptedRun(store);
    store.writeEvents(id, {fl::MetricEvent{"system/rss_mib", 8, 0.8, 100.0},
                           fl::MetricEvent{"test/kl", 4, 0.4, 0.5}});
    auto plan = fl::store::prepareResume(registry(), store, id);
    QVERIFY2(plan.ok(), plan.error.c_str());
    QCOMPARE(plan.point.step, int64_t(8));
    QVERIFY(!plan.point.evaluatedAtStep);  // the loss and the machine's figures are not one
    store.writeEvents(id, {fl::MetricEvent{"test/kl", 8, 0.8, 0.25}});
    store.finishRun(id, fl::RunStatus::Interrupted, "killed");
    plan = fl::store::prepareResume(registry(), store, id);
    QVERIFY2(plan.ok(), plan.error.c_str());
    QVERIFY(plan.point.evaluatedAtStep);
  }

  // Truncation used to run before anyone checked the file; the Runner then failed to load it
  // and the run, now `failed`, could never be resumed.
  void aMissingLastCheckpointFileFallsBackToThePreviousOne() {
    RunStore store(path("fallback.db"));
    const int64_t id = interruptedRun(store);
    fs::remove(store.checkpoints(id).back().path);
    auto plan = fl::store::prepareResume(registry(), store, id);
    QVERIFY2(plan.ok(), plan.error.c_str());
    QCOMPARE(plan.point.step, int64_t(4));
    QVERIFY(fs::exists(plan.point.checkpointPath));
    QVERIFY2(plan.note.find("step-8.pt") != std::string::npos, plan.note.c_str());
    QCOMPARE(store.metric(id, "train/loss").size(), size_t(4));  // truncated after step 4
    QCOMPARE(store.checkpoints(id).size(), size_t(1));
  }

  // A damaged newest file (a flipped byte, caught by its CRC) was chosen: the resume dropped the
  // later metrics, then failed at the load, every time. It is passed over as a missing one is.
  void aDamagedLastCheckpointFallsBackToThePreviousOne() {
    RunStore store(path("damaged.db"));
    const int64_t id = interruptedRun(store);
    const std::string newest = store.checkpoints(id).back().path;
    {
      std::fstream file(newest, std::ios::in | std::ios::out | std::ios::binary);
      file.seekg(40);
      char byte = 0;
      file.read(&byte, 1);
      file.seekp(40);
      byte = static_cast<char>(byte ^ 0x5a);
      file.write(&byte, 1);
    }
    auto plan = fl::store::prepareResume(registry(), store, id);
    QVERIFY2(plan.ok(), plan.error.c_str());
    QCOMPARE(plan.point.step, int64_t(4));
    QVERIFY2(plan.note.find("damaged: ") != std::string::npos &&
                 plan.note.find("step-8.pt") != std::string::npos,
             plan.note.c_str());
    // Both damaged: nothing is changed, and the error says why.
    RunStore other(path("damaged-both.db"));
    const int64_t both = interruptedRun(other);
    for (const auto& c : other.checkpoints(both)) fs::resize_file(c.path, 30);
    auto refused = fl::store::prepareResume(registry(), other, both);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error.find("has no usable checkpoint (damaged: ") != std::string::npos,
             refused.error.c_str());
    QCOMPARE(other.metric(both, "train/loss").size(), size_t(8));
  }

  void noCheckpointFileLeftChangesNothing() {
    RunStore store(path("none.db"));
    const int64_t id = interruptedRun(store);
    for (const auto& c : store.checkpoints(id)) fs::remove(c.path);
    auto plan = fl::store::prepareResume(registry(), store, id);
    QVERIFY(!plan.ok());
    QVERIFY2(plan.error.find("missing") != std::string::npos, plan.error.c_str());
    QCOMPARE(store.metric(id, "train/loss").size(), size_t(8));
    QCOMPARE(fl::toString(store.run(id)->status), std::string("interrupted"));
    QCOMPARE(store.checkpoints(id).size(), size_t(2));
  }

  // A run killed before its first checkpoint used to answer "has no checkpoint to resume from"
  // (with the defaults, every fourier-head run killed in its first 50 epochs). It trains again
  // from step 0 under its id; the curves it had are dropped, a half-written file too.
  void aRunKilledBeforeItsFirstCheckpointStartsAgainFromStepZero() {
    RunStore store(path("from-start.db"));
    const int64_t id = interruptedRun(store);
    for (const auto& c : store.checkpoints(id)) store.removeCheckpoint(c.id);
    const auto partial = store.artifactFolder(id) + "/step-12.pt.partial";
    std::ofstream(partial) << "half a checkpoint";
    auto plan = fl::store::prepareResume(registry(), store, id);
    QVERIFY2(plan.ok(), plan.error.c_str());
    QVERIFY(plan.fromStart);
    QCOMPARE(plan.runId, id);
    QVERIFY2(plan.note.find("again from step 0") != std::string::npos, plan.note.c_str());
    QVERIFY(store.metric(id, "train/loss").empty());
    QCOMPARE(store.run(id)->lastStep, int64_t(0));
    QVERIFY(!fs::exists(partial));
  }

  // Files no row names (a .partial left by a kill, a checkpoint written just before one)
  // are removed when the run resumes; the checkpoints its rows name stay.
  void resumingRemovesFilesNoRowNames() {
    RunStore store(path("strays.db"));
    const int64_t id = interruptedRun(store);
    const auto folder = store.artifactFolder(id);
    std::ofstream(folder + "/step-9.pt.partial") << "half";
    std::ofstream(folder + "/step-12.pt") << "written, never recorded";
    auto plan = fl::store::prepareResume(registry(), store, id);
    QVERIFY2(plan.ok(), plan.error.c_str());
    QCOMPARE(plan.point.step, int64_t(8));
    QVERIFY(!fs::exists(folder + "/step-9.pt.partial"));
    QVERIFY(!fs::exists(folder + "/step-12.pt"));
    QVERIFY(fs::exists(folder + "/step-4.pt"));
    QVERIFY(fs::exists(folder + "/step-8.pt"));
  }
};

QTEST_APPLESS_MAIN(TestResumePlan)
#include "test_resume_plan.moc"
