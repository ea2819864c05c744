// Tests app/gui/run_view.h and run_views.h: a run's view is the store's history once, then
// each drained event once (no point missing or repeated), keeps evaluation snapshots but not
// probe answers, takes its verdicts from its terminal status (its latest judgement while it
// trains), and RunViews loads a view once and lets spare ones go.
#include <QtTest>

#include <random>

#include "app/gui/run_view.h"
#include "app/gui/run_views.h"
#include "app/gui/runs_table_model.h"
#include "core/store/run_store.h"

using fl::gui::RunDelta;
using fl::gui::RunView;
using fl::gui::RunViews;

namespace {

fl::MetricEvent metric(const std::string& key, int64_t step, double value) {
  return fl::MetricEvent{key, step, 0.01 * static_cast<double>(step), value};
}

fl::SnapshotEvent snapshot(const std::string& name, int64_t step, int64_t requestId = 0,
                           nlohmann::json meta = nlohmann::json::object()) {
  fl::Snapshot s;
  s.name = name;
  s.shape = {2};
  s.data = {static_cast<float>(step), 1.0f};
  s.meta = std::move(meta);
  return fl::SnapshotEvent{step, 0.0, s, requestId};
}

}  // namespace

class TestRunView : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string path(const char* name) const { return (m_dir.path() + "/" + name).toStdString(); }

 private slots:
  // A run read back from the store (cancelled, or another process's) counts epochs as it did
  // while it trained: "step 17511/250000" replaced "epoch 350/5000" once it was cancelled.
  void anEpochRunReadFromTheStoreStillCountsEpochs() {
    fl::store::RunStore store(path("epochs.db"));
    const int64_t id = store.createRun({"fourier-head", "r", {{"epochs", 5000}}, {}, {}});
    store.writeEvents(id, {fl::ProgressEvent{17511, 250000, 350, 5000, 1.0, 3.0, false}});
    auto view = RunView::load(store, id);
    QVERIFY(view);
    QCOMPARE(fl::gui::RunsTableModel::progressText(*view), QString("epoch 350/5000"));
    const int64_t steps = store.createRun({"fope", "s", {{"steps", 300}}, {}, {}});
    store.writeEvents(steps, {fl::ProgressEvent{120, 300, 0, 1, 1.0, 3.0, false}});
    QCOMPARE(fl::gui::RunsTableModel::progressText(*RunView::load(store, steps)),
             QString("step 120/300"));
  }

  void theStoreThenTheEventsGiveEveryPointOnce() {
    fl::store::RunStore store(path("view.db"));
    const int64_t id = store.createRun({"fourier-head", "r", {{"epochs", 3}}, {}, {}});
    std::vector<fl::Event> past;
    for (int64_t step = 1; step <= 5; ++step) past.push_back(metric("test/kl", step, 1.0 / step));
    past.push_back(snapshot("pdf/pred", 5));
    store.writeEvents(id, past);  // a resumed run's past, up to its checkpoint

    auto view = RunView::load(store, id);
    QVERIFY(view);
    QCOMPARE(view->name(), std::string("r"));
    QCOMPARE(view->metrics().at("test/kl").steps.size(), size_t(5));
    QCOMPARE(view->snapshots().size(), size_t(1));
    QVERIFY(view->countsEpochs());

    RunDelta d =
        view->apply({fl::StatusEvent{fl::RunStatus::Running, "", "cpu", 5, 0.0, {}},
                     metric("test/kl", 6, 0.2), metric("train/loss", 6, 3.0),
                     snapshot("pdf/pred", 6), snapshot("probe/pred_grid", 6, /*requestId=*/7),
                     metric("test/kl", 7, 0.1), fl::ProgressEvent{7, 9, 2, 3, 1.0, 3.0, true}});
    QVERIFY(d.statusChanged && d.progressed && d.evaluated());
    QCOMPARE(d.metricsFrom.at("test/kl"), size_t(5));  // new points start after the store's
    QCOMPARE(d.metricsFrom.at("train/loss"), size_t(0));
    QCOMPARE(d.snapshotsFrom, size_t(1));
    QCOMPARE(d.snapshotsTo, size_t(2));
    QCOMPARE(d.probeAnswers.size(), size_t(1));  // passed on, not kept
    const auto& kl = view->metrics().at("test/kl");
    QCOMPARE(kl.steps, (std::vector<double>{1, 2, 3, 4, 5, 6, 7}));  // none missing, none twice
    // Each point keeps its wall time, from the store as from the events (a curve over time).
    QCOMPARE(kl.walls.size(), kl.steps.size());
    for (size_t i = 0; i < kl.walls.size(); ++i) QCOMPARE(kl.walls[i], 0.01 * kl.steps[i]);
    QCOMPARE(view->firstMetricWall(), 0.01);
    QCOMPARE(view->snapshots().size(), size_t(2));
    QCOMPARE(view->lastValues().at("test/kl"), 0.1);
    QCOMPARE(view->progress().step, int64_t(7));
    QVERIFY(view->isTraining());
    QCOMPARE(view->device(), std::string("cpu"));
    QVERIFY(view->apply({}).empty());
  }

  // A snapshot its panel shows at its latest step only is released once a newer one of its
  // name comes: a 30000-epoch run kept every evaluation's predicted density, 1.4 GB of the
  // window. Those kept at every step (a spectrum's history) stay; the entries stay counted, so
  // a delta's range still names the new ones.
  void aLatestOnlySnapshotIsReleasedWhenANewerOneComes() {
    fl::store::RunStore store(path("latest.db"));
    const int64_t id = store.createRun({"fourier-head", "r", {{"epochs", 3}}, {}, {}});
    auto latestOnly = [](const char* name, int64_t step) {
      auto e = snapshot(name, step);
      e.snapshot.keep = fl::SnapshotKeep::LatestStep;
      return e;
    };
    store.writeEvents(id, {latestOnly("pdf/pred", 5), snapshot("spectrum/abs_c", 5)});
    auto view = RunView::load(store, id);
    QVERIFY(view);
    QCOMPARE(view->snapshots().size(), size_t(2));
    auto truth = snapshot("pdf/true", 6);
    truth.snapshot.keep = fl::SnapshotKeep::NotStored;
    auto laterTruth = truth;
    laterTruth.step = 7;
    const RunDelta d = view->apply({latestOnly("pdf/pred", 6), snapshot("spectrum/abs_c", 6), truth,
                                    latestOnly("pdf/pred", 7), laterTruth});
    QCOMPARE(d.snapshotsFrom, size_t(2));
    QCOMPARE(d.snapshotsTo, size_t(7));
    const auto& all = view->snapshots();
    QCOMPARE(all.size(), size_t(7));
    std::vector<std::pair<std::string, int64_t>> kept;
    for (size_t i = 0; i < all.size(); ++i) {
      if (view->isSuperseded(i)) {
        QVERIFY(all[i].snapshot.data.empty());  // its payload released
        continue;
      }
      QVERIFY(!all[i].snapshot.data.empty());
      kept.push_back({all[i].snapshot.name, all[i].step});
    }
    QCOMPARE(kept,
             (std::vector<std::pair<std::string, int64_t>>{
                 {"spectrum/abs_c", 5}, {"spectrum/abs_c", 6}, {"pdf/pred", 7}, {"pdf/true", 7}}));
  }

  void verdictsComeFromTheJudgementWhileTrainingThenFromTheTerminalStatus() {
    RunView view(1, "fourier-qk", "", nlohmann::json::object());
    view.apply({snapshot("leak/verdict", 10, 0, {{"verdict", "LEAKS"}, {"ok", false}})});
    QCOMPARE(view.verdicts().size(), size_t(1));
    QCOMPARE(view.verdicts()[0].label, std::string("LEAKS"));
    QCOMPARE(view.verdicts()[0].passed, std::optional<bool>(false));
    fl::Verdict paper;
    paper.label = fl::kWithinPaper;
    paper.passed = true;
    fl::StatusEvent finished{fl::RunStatus::Finished, "done", "cpu", 20, 2.0, {}};
    finished.verdicts = {view.verdicts()[0], paper};
    view.apply({finished});
    QCOMPARE(view.verdicts().size(), size_t(2));
    QCOMPARE(fl::toString(view.status()), fl::toString(fl::RunStatus::Finished));
    QCOMPARE(view.message(), std::string("done"));
  }

  void theEtaFollowsThisSessionsRateNotTheStepsTrainedBefore() {
    // A run resumed at step 500 of 1000, whose earlier process took 100 s for those steps and
    // this one 0.1 s a step: 490 steps left at 0.1 s are 49 s.
    RunView view(1, "x", "", nlohmann::json::object());
    fl::StatusEvent running;
    running.status = fl::RunStatus::Running;
    fl::ProgressEvent first, later;
    first.step = 500;
    first.totalSteps = later.totalSteps = 1000;
    first.wallSeconds = 100.0;
    later.step = 510;
    later.wallSeconds = 101.0;
    view.apply({running, first});
    QCOMPARE(fl::gui::RunsTableModel::etaText(view.progress(), view.sessionStart()),
             QString("-"));  // one progress gives no rate
    view.apply({later});
    QCOMPARE(fl::gui::RunsTableModel::etaText(view.progress(), view.sessionStart()),
             QString("0:49"));
    // Started again (a resume in the same window): the rate starts anew.
    view.apply({running, later});
    QCOMPARE(view.sessionStart()->step, int64_t(510));
  }

  void metricKeysAreInNaturalOrderSoLegendsReadByLength() {
    RunView view(1, "x", "", nlohmann::json::object());
    std::vector<fl::Event> events;
    for (const char* key : {"passkey/acc@512", "passkey/acc@64", "passkey/acc@1024", "val/ppl@128"})
      events.push_back(fl::MetricEvent{key, 1, 0.1, 1.0});
    view.apply(events);
    std::vector<std::string> keys;
    for (const auto& [key, series] : view.metrics()) keys.push_back(key);
    QCOMPARE(keys, (std::vector<std::string>{"passkey/acc@64", "passkey/acc@512",
                                             "passkey/acc@1024", "val/ppl@128"}));
    // Against the numbers themselves, over many random keys: "k@N" orders as N does, and the
    // order is strict (never both a < b and b < a).
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> number(0, 100000);
    const fl::NaturalLess less;
    for (int i = 0; i < 2000; ++i) {
      const int a = number(rng), b = number(rng);
      const std::string ka = "k@" + std::to_string(a), kb = "k@" + std::to_string(b);
      QCOMPARE(less(ka, kb), a < b);
      QVERIFY(!(less(ka, kb) && less(kb, ka)));
    }
  }

  void viewsAreLoadedOnceAndSpareOnesGo() {
    fl::store::RunStore store(path("views.db"));
    std::vector<int64_t> ids;
    for (size_t i = 0; i < RunViews::kSpareViews + 4; ++i)
      ids.push_back(store.createRun({"fourier-head", "r", nlohmann::json::object(), {}, {}}));
    store.writeEvents(ids[0], {metric("m", 1, 1.0)});
    RunViews views(store);
    RunView* first = views.get(ids[0]);
    QVERIFY(first);
    QCOMPARE(views.get(ids[0]), first);
    store.writeEvents(ids[0], {metric("m", 2, 2.0)});
    // Loaded once: later store writes are not read back (the session's events bring them).
    QCOMPARE(views.get(ids[0])->metrics().at("m").steps.size(), size_t(1));
    QCOMPARE(views.reload(ids[0])->metrics().at("m").steps.size(), size_t(2));
    QVERIFY(!views.get(9999));
    for (auto id : ids) QVERIFY(views.get(id));
    views.keep({ids.back()});
    QCOMPARE(views.size(), RunViews::kSpareViews + 1);
    QVERIFY(views.find(ids.back()));
    QVERIFY(!views.find(ids[0]));  // the oldest went first
  }
};

QTEST_GUILESS_MAIN(TestRunView)
#include "test_run_view.moc"
