// Tests app/gui/main_window.h offscreen: Run starts a run whose metrics reach the plots and
// the store, Stop cancels it, an invalid config disables Run with the reason, the history
// lists and sorts stored runs, and a stored run opens with its plots.
#include <QtTest>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>

#include <qcustomplot.h>
#include <QProcess>
#include <QSettings>
#include <QSlider>

#include <algorithm>
#include <csignal>
#include <set>

#include "app/gui/history_view.h"
#include "app/gui/launch_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/run_session.h"
#include "core/store/run_store.h"
#include "core/store/store_sink.h"
#include "experiments/builtin_experiments.h"
#include "widgets/config_form.h"
#include "widgets/dashboard.h"
#include "widgets/metric_plot.h"
#include "widgets/probe_panel.h"
#include "widgets/run_colors.h"
#include "widgets/snapshot_plot.h"
#include "widgets/verdict_panel.h"

class TestMainWindow : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fl::ExperimentRegistry m_registry;

  std::unique_ptr<fl::gui::MainWindow> makeWindow(const QString& db) {
    auto store = std::make_unique<fl::store::RunStore>((m_dir.path() + "/" + db).toStdString());
    auto w = std::make_unique<fl::gui::MainWindow>(m_registry, std::move(store));
    w->launchPanel()->selectExperiment("fourier-head");
    auto* form = w->launchPanel()->form();
    qobject_cast<QSpinBox*>(form->field("samples"))->setValue(400);
    qobject_cast<QSpinBox*>(form->field("eval_every"))->setValue(1);
    return w;
  }

 private slots:
  void initTestCase() {
    fl::registerBuiltinExperiments(m_registry);
    QStandardPaths::setTestModeEnabled(true);  // QSettings away from the user's
  }

  void runReachesPlotsAndStore() {
    auto w = makeWindow("run.db");
    qobject_cast<QSpinBox*>(w->launchPanel()->form()->field("epochs"))->setValue(3);
    const int64_t id = w->launch();
    QVERIFY(id > 0);
    QTRY_VERIFY_WITH_TIMEOUT(w->sessions().back()->done(), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(w->sessions().back()->live().status == fl::RunStatus::Finished, 5000);
    QTest::qWait(100);  // one more tick drains the last events
    size_t points = 0;
    for (auto* plot : w->dashboard()->metricPlots())
      for (const auto& name : plot->curveNames()) points += plot->pointCount(name);
    QVERIFY2(points >= 3 + 4 * 3, qPrintable(QString::number(points)));  // loss + 4 test metrics
    fl::store::RunStore store((m_dir.path() + "/run.db").toStdString());
    auto run = store.run(id).value();
    QCOMPARE(fl::toString(run.status), std::string("finished"));
    QCOMPARE(store.metric(id, "test/kl").size(), size_t(3));
    // The live metrics table shows the run's last values.
    auto* metrics = w->metricsTable();
    QVERIFY(metrics && metrics->rowCount() == 1);
    QStringList columns;
    for (int c = 0; c < metrics->columnCount(); ++c)
      columns << metrics->horizontalHeaderItem(c)->text();
    const int kl = columns.indexOf("test/kl");
    QVERIFY(kl > 0);
    QVERIFY(std::abs(metrics->item(0, kl)->text().toDouble() -
                     store.metric(id, "test/kl").back().value) < 1e-4);
    QCOMPARE(w->runsTable()->rowCount(), 1);
    QCOMPARE(w->runsTable()->item(0, 2)->text(), QString("finished"));

    // The finished run's probe answers from its last checkpoint.
    auto* probe = w->probePanel();
    probe->setInput("x", -0.5);
    probe->setInput("y", 0.5);
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          auto* pred = probe->plot()->latest("probe/pred_grid");
          return pred && std::abs(pred->meta["inputs"][0]["x"].get<double>() + 0.5) < 1e-9;
        }(),
        15000);
  }

  void paperPresetsShowTheirFiguresAndShortenedRunsAreNotCompared() {
    auto w = makeWindow("paper.db");
    QVERIFY(w->launchPanel()->selectPreset("paper-fourier"));
    // Before the run: what the paper measured.
    const auto labels = w->launchPanel()->findChildren<QLabel*>();
    QVERIFY(std::any_of(labels.begin(), labels.end(), [](QLabel* l) {
      return l->text().contains("dataset gmm2: test/kl 0.146 ± 0.033");
    }));
    // A 2-epoch run of it is not the paper's configuration: no verdict, nothing in red.
    auto* form = w->launchPanel()->form();
    qobject_cast<QSpinBox*>(form->field("samples"))->setValue(400);
    qobject_cast<QSpinBox*>(form->field("epochs"))->setValue(2);
    w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(w->sessions().back()->done(), 60000);
    QTest::qWait(100);
    QVERIFY(!w->sessions().back()->live().judged());
    QVERIFY(!w->runsTable()->item(0, 6)->text().contains("vs paper"));
  }

  void aStoredRunShowsItsPaperVerdictInRedWhenOutside() {
    const QString path = m_dir.path() + "/stored-verdict.db";
    int64_t id = 0;
    {
      fl::store::RunStore store(path.toStdString());
      id = store.createRun({"fourier-head", "paper-fourier", {{"dataset", "gmm2"}}, {}, {}});
      fl::store::StoreSink sink(path.toStdString(), id);
      sink.onEvent(fl::StatusEvent{
          fl::RunStatus::Finished,
          "test/kl 0.260 vs paper 0.146 ± 0.033: outside the paper's spread", "cpu", 10, 1.0});
      sink.close();
    }
    auto w = makeWindow("stored-verdict.db");
    w->refreshHistory();
    auto* table = w->history()->table();
    QCOMPARE(table->rowCount(), 1);
    auto* status = table->item(0, 3);
    QCOMPARE(status->text(), QString("finished: outside paper"));
    QCOMPARE(status->toolTip(),
             QString("test/kl 0.260 vs paper 0.146 ± 0.033: outside the paper's spread"));
    QCOMPARE(status->foreground().color(), QColor(170, 0, 0));
    w->openStoredRun(id);
    const auto labels = w->findChildren<QLabel*>();
    QVERIFY(std::any_of(labels.begin(), labels.end(), [](QLabel* l) {
      return l->text().contains("outside the paper's spread") && l->text().contains("run ");
    }));
  }

  void shortcutsReachTheirActions() {
    auto w = makeWindow("shortcuts.db");
    qobject_cast<QSpinBox*>(w->launchPanel()->form()->field("epochs"))->setValue(100000);
    w->show();
    QApplication::setActiveWindow(w.get());
    QVERIFY(QTest::qWaitForWindowActive(w.get()));
    // Run comparison: one run per declared arm (linear, Fourier N = 4, 12, 20).
    QTest::keySequence(w.get(), QKeySequence("Ctrl+Shift+R"));
    QCOMPARE(w->sessions().size(), size_t(4));
    // Stop: the shown run (the paper's N = 12 arm, shown first) is cancelled, the others go on.
    auto* shown = w->sessions()[2];
    QCOMPARE(shown->live().name, std::string("fourier N=12"));
    QTRY_VERIFY_WITH_TIMEOUT(shown->live().progress.step > 0, 30000);
    QTest::keySequence(w.get(), QKeySequence("Ctrl+."));
    QTRY_VERIFY_WITH_TIMEOUT(shown->done(), 10000);
    QCOMPARE(fl::toString(shown->live().status), std::string("cancelled"));
    QVERIFY(!w->sessions().front()->done() && !w->sessions().back()->done());
    // Run: one more.
    QTest::keySequence(w.get(), QKeySequence("Ctrl+R"));
    QCOMPARE(w->sessions().size(), size_t(5));
    // Compare the runs selected in History.
    w->refreshHistory();
    w->history()->table()->selectAll();
    QTest::keySequence(w.get(), QKeySequence("Ctrl+Shift+C"));
    QVERIFY(w->configDiffTable()->isVisibleTo(w.get()));
    QCOMPARE(w->configDiffTable()->rowCount(), 5);
    for (auto* s : w->sessions()) s->cancel();
    QTRY_VERIFY_WITH_TIMEOUT(
        std::all_of(w->sessions().begin(), w->sessions().end(), [](auto* s) { return s->done(); }),
        20000);
  }

  void smoothingStaysAppliedWhenThePanelsAreRebuilt() {
    auto w = makeWindow("smoothing.db");
    auto* slider = w->findChild<QSlider*>();
    QVERIFY(slider);
    slider->setValue(60);
    qobject_cast<QSpinBox*>(w->launchPanel()->form()->field("epochs"))->setValue(2);
    w->launch();  // focusing the new run rebuilds the dashboard
    QVERIFY(!w->dashboard()->metricPlots().isEmpty());
    for (auto* plot : w->dashboard()->metricPlots()) QCOMPARE(plot->smoothing(), 0.6);
    QTRY_VERIFY_WITH_TIMEOUT(w->sessions().back()->done(), 60000);
  }

  void switchingBetweenLiveRunsLosesNoPoints() {
    auto w = makeWindow("switch.db");
    auto* form = w->launchPanel()->form();
    qobject_cast<QSpinBox*>(form->field("epochs"))->setValue(3000);
    qobject_cast<QSpinBox*>(form->field("eval_every"))->setValue(30);
    const int64_t first = w->launch();
    const int64_t second = w->launch();  // shown; the first trains unseen
    // While both train, show the first again, then the second, then the first.
    for (int64_t id : {first, second, first}) {
      QTest::qWait(400);
      QVERIFY(!w->sessions().front()->done() && !w->sessions().back()->done());
      auto* table = w->runsTable();
      for (int row = 0; row < table->rowCount(); ++row)
        if (table->item(row, 0)->text().toLongLong() == id)
          QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                            table->visualItemRect(table->item(row, 0)).center());
    }
    QTRY_VERIFY_WITH_TIMEOUT(
        std::all_of(w->sessions().begin(), w->sessions().end(), [](auto* s) { return s->done(); }),
        60000);
    QTest::qWait(100);
    fl::store::RunStore store((m_dir.path() + "/switch.db").toStdString());
    for (auto* plot : w->dashboard()->metricPlots()) {
      if (plot->objectName() != "kl") continue;
      const QString curve = plot->curveNames().filter(QString("#%1").arg(first)).value(0);
      QVERIFY2(!curve.isEmpty(), qPrintable(plot->curveNames().join(", ")));
      // Every evaluation once: none lost between the store's last flush and the switch, none twice.
      QCOMPARE(plot->pointCount(curve), store.metric(first, "test/kl").size());
      QCOMPARE(plot->pointCount(curve), size_t(100));
    }
  }

  void aRunKeepsItsColourInEveryPanel() {
    auto w = makeWindow("colours.db");
    qobject_cast<QSpinBox*>(w->launchPanel()->form()->field("epochs"))->setValue(2);
    w->launch();
    const int64_t id = w->launch();  // the second run: not the first colour
    QTRY_VERIFY_WITH_TIMEOUT(w->sessions().back()->done(), 60000);
    QTest::qWait(100);
    const QColor colour = fl::widgets::runColor(id);
    auto* pdf = w->dashboard()->panel("pdf")->findChild<QCustomPlot*>();
    bool predicted = false;
    for (int g = 0; g < pdf->graphCount(); ++g)
      if (pdf->graph(g)->name().startsWith("predicted")) {
        QCOMPARE(pdf->graph(g)->pen().color(), colour);
        predicted = true;
      }
    QVERIFY(predicted);
    auto* spectrum = w->dashboard()->panel("spectrum")->findChild<QCustomPlot*>();
    QVERIFY(spectrum->plottableCount() > 0);
    QCOMPARE(qobject_cast<QCPBars*>(spectrum->plottable(0))->brush().color(), colour);
  }

  void theCommandLineRefusesMistakes_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown experiment")
        << QStringList{"--start", "nope"} << "--start: unknown experiment 'nope' (one of: ";
    QTest::newRow("unknown preset")
        << QStringList{"--start", "fourier-head", "--preset", "nope"}
        << "--preset: 'nope' is not a preset of fourier-head (one of: demo, ";
    QTest::newRow("preset alone") << QStringList{"--preset", "demo"}
                                  << "--preset needs --start EXPERIMENT";
    QTest::newRow("bad id") << QStringList{"--open", "3,x"} << "--open: 'x' is not a run id";
    QTest::newRow("missing run") << QStringList{"--open", "42"} << "--open: there is no run 42 in ";
  }

  void theCommandLineRefusesMistakes() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QProcess gui;
    gui.setProcessChannelMode(QProcess::SeparateChannels);
    gui.start(QString::fromLocal8Bit(qgetenv("FOURIERLAB_GUI")),
              QStringList{"--db", m_dir.path() + "/cli-args.db"} + args);
    QVERIFY(gui.waitForFinished(
        120000));  // a loaded CI machine: the GUI starts twice (see openmp_wait_policy.h)
    QCOMPARE(gui.exitCode(), 2);
    const QString err = QString::fromUtf8(gui.readAllStandardError());
    QVERIFY2(err.contains("error: " + message), qPrintable(err));
  }

  void aQueuedRunStoppedBeforeItStartsIsRecordedCancelled() {
    auto w = makeWindow("queued.db");
    qobject_cast<QSpinBox*>(w->launchPanel()->form()->field("epochs"))->setValue(100000);
    w->launchPanel()->setParallelRuns(1);
    const int64_t first = w->launch();
    const int64_t second = w->launch();  // waits for the first: shown, and stopped while queued
    QVERIFY(!w->sessions().back()->started());
    w->stopFocused();
    QCOMPARE(fl::toString(w->sessions().back()->live().status), std::string("cancelled"));
    fl::store::RunStore store((m_dir.path() + "/queued.db").toStdString());
    QCOMPARE(fl::toString(store.run(second)->status), std::string("cancelled"));
    QVERIFY(first != second);
  }

  void aCorruptStoreIsRefusedWithExitThreeAndLeftAsItWas() {
    const QString path = m_dir.path() + "/not-a-store.db";
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray(8192, 'x'));
    file.close();
    QProcess gui;
    gui.start(QString::fromLocal8Bit(qgetenv("FOURIERLAB_GUI")), {"--db", path});
    QVERIFY(gui.waitForFinished(
        120000));  // a loaded CI machine: the GUI starts twice (see openmp_wait_policy.h)
    QCOMPARE(gui.exitCode(), 3);
    const QString err = QString::fromUtf8(gui.readAllStandardError());
    QVERIFY2(err.contains("store error: ") && err.contains(path), qPrintable(err));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray(8192, 'x'));
  }

  // #16: `fourierlab --open 1 --db missing/x.db` created x.db. Opening runs reads: it never
  // creates the store.
  void openingRunsOfAMissingStoreCreatesNothing() {
    const QString folder = m_dir.path() + "/missing";
    QProcess gui;
    gui.start(QString::fromLocal8Bit(qgetenv("FOURIERLAB_GUI")),
              {"--open", "1", "--db", folder + "/x.db"});
    QVERIFY(gui.waitForFinished(30000));
    QCOMPARE(gui.exitCode(), 3);
    const QString err = QString::fromUtf8(gui.readAllStandardError());
    QVERIFY2(err.contains(folder + "/x.db: no run store at this path"), qPrintable(err));
    QVERIFY(!QFileInfo::exists(folder));
  }

  // #16: SIGTERM (a logout, `kill`) ended the lab like kill -9: its runs stayed `running` with
  // no checkpoint. It closes as Quit does, without asking, and exits 143.
  void sigtermClosesTheLabCancellingItsRunsCleanly() {
    const QString db = m_dir.path() + "/sigterm.db";
    QProcess gui;
    gui.start(QString::fromLocal8Bit(qgetenv("FOURIERLAB_GUI")),
              {"--db", db, "--start", "fourier-head"});  // the defaults: 500 epochs
    QVERIFY(gui.waitForStarted());
    auto progressed = [&] {
      if (!QFileInfo::exists(db)) return false;
      try {
        fl::store::RunStore store(db.toStdString(), /*readOnly=*/true);
        auto run = store.run(1);
        return run && run->status == fl::RunStatus::Running && run->lastStep > 0;
      } catch (const std::exception&) {
        return false;  // being created by the lab
      }
    };
    QTRY_VERIFY_WITH_TIMEOUT(progressed(), 60000);
    ::kill(static_cast<pid_t>(gui.processId()), SIGTERM);
    QVERIFY(gui.waitForFinished(60000));
    QCOMPARE(gui.exitStatus(), QProcess::NormalExit);
    QCOMPARE(gui.exitCode(), 143);
    fl::store::RunStore store(db.toStdString());
    const auto run = store.run(1).value();
    QCOMPARE(fl::toString(run.status), std::string("cancelled"));
    QVERIFY2(run.message.find("checkpoint saved") != std::string::npos, run.message.c_str());
    QVERIFY(!store.checkpoints(1).empty());
  }

  void theDeviceHasOneControl() {
    auto w = makeWindow("device.db");
    QVERIFY(!w->launchPanel()->form()->field("device"));  // not in the form: the combo owns it
    QVERIFY(w->launchPanel()->selectDevice("cpu"));
    QCOMPARE(w->launchPanel()->config().values["device"].get<std::string>(), std::string("cpu"));
    QVERIFY(!w->launchPanel()->selectDevice("tpu"));
  }

  void settingsAreKeptBetweenSessions() {
    {
      auto w = makeWindow("settings.db");
      QVERIFY(w->launchPanel()->selectPreset("paper-gmm"));
      QVERIFY(w->launchPanel()->selectDevice("cpu"));
      w->launchPanel()->setParallelRuns(2);
      w->findChild<QSlider*>()->setValue(40);
      w->history()->filterText()->setText("abc");
      w->show();
      QVERIFY(w->close());  // closing saves them
    }
    auto w = makeWindow("settings.db");
    QCOMPARE(w->launchPanel()->presetName(), QString("paper-gmm"));
    QCOMPARE(w->launchPanel()->device(), QString("cpu"));
    QCOMPARE(w->launchPanel()->parallelRuns(), 2);
    QCOMPARE(w->findChild<QSlider*>()->value(), 40);
    QCOMPARE(w->history()->filterText()->text(), QString("abc"));
    QSettings("FourierLab", "FourierLab").clear();  // the other tests start from nothing
  }

  void stopCancelsTheRun() {
    auto w = makeWindow("stop.db");
    qobject_cast<QSpinBox*>(w->launchPanel()->form()->field("epochs"))->setValue(100000);
    const int64_t id = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(w->sessions().back()->live().progress.step > 0, 30000);
    w->stopFocused();
    QTRY_VERIFY_WITH_TIMEOUT(w->sessions().back()->done(), 10000);
    QCOMPARE(fl::toString(w->sessions().back()->live().status), std::string("cancelled"));
    fl::store::RunStore store((m_dir.path() + "/stop.db").toStdString());
    QTRY_COMPARE_WITH_TIMEOUT(fl::toString(store.run(id)->status), std::string("cancelled"), 5000);
    // Cancelling keeps the work: a checkpoint where it stopped, so it resumes from there.
    const auto message = store.run(id)->message;
    QVERIFY2(message.find("; checkpoint saved") != std::string::npos, message.c_str());
    const int64_t stoppedAt = std::stoll(message.substr(std::string("cancelled after ").size()));
    QVERIFY(stoppedAt > 0);
    QTRY_VERIFY_WITH_TIMEOUT(
        !store.checkpoints(id).empty() && store.checkpoints(id).back().step == stoppedAt, 5000);
    QVERIFY(w->resumeRun(id));
  }

  void exportWritesPlotsMetricsAndConfig() {
    auto w = makeWindow("export.db");
    qobject_cast<QSpinBox*>(w->launchPanel()->form()->field("epochs"))->setValue(2);
    w->resize(1400, 900);
    const int64_t id = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(w->sessions().back()->done(), 60000);
    QTest::qWait(100);
    const auto files = w->exportShownRun(m_dir.path() + "/export");
    QVERIFY(files.contains(m_dir.path() + QString("/export/run-%1-kl.png").arg(id)));
    QVERIFY(files.contains(m_dir.path() + QString("/export/run-%1-pdf.pdf").arg(id)));
    QImage png(m_dir.path() + QString("/export/run-%1-kl.png").arg(id));
    QVERIFY(!png.isNull() && png.width() > 100);
    QFile pdf(m_dir.path() + QString("/export/run-%1-pdf.pdf").arg(id));
    QVERIFY(pdf.open(QIODevice::ReadOnly) && pdf.read(5) == "%PDF-");
    QFile svg(m_dir.path() + QString("/export/run-%1-kl.svg").arg(id));
    QVERIFY(svg.open(QIODevice::ReadOnly) && svg.readAll().contains("<svg"));
    QFile config(m_dir.path() + QString("/export/run-%1-config.json").arg(id));
    QVERIFY(config.open(QIODevice::ReadOnly));
    QCOMPARE(nlohmann::json::parse(config.readAll().toStdString())["epochs"].get<int>(), 2);
  }

  void probeReturnsTheDensityForChosenInputs() {
    auto w = makeWindow("probe.db");
    qobject_cast<QSpinBox*>(w->launchPanel()->form()->field("epochs"))->setValue(100000);
    w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(w->sessions().back()->live().progress.step > 0, 30000);
    auto* probe = w->probePanel();
    QVERIFY(probe);
    probe->setInput("x", 0.5);
    probe->setInput("y", -0.25);
    QSignalSpy asked(probe, &fl::widgets::ProbePanel::probeRequested);
    QTRY_VERIFY_WITH_TIMEOUT(asked.count() >= 1, 2000);  // debounced
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          auto* pred = probe->plot()->latest("probe/pred_grid");
          return pred && std::abs(pred->meta["inputs"][0]["x"].get<double>() - 0.5) < 1e-9 &&
                 std::abs(pred->meta["inputs"][0]["y"].get<double>() + 0.25) < 1e-9;
        }(),
        10000);
    auto* truth = probe->plot()->latest("probe/true_grid");
    QVERIFY(truth);
    // The true gmm2 density at (0.5, -0.25) peaks near z = 0.5 and z = -0.25.
    const auto& ticks = truth->axes.back().ticks;
    const auto peak =
        std::max_element(truth->data.begin(), truth->data.end()) - truth->data.begin();
    QVERIFY(std::abs(ticks[peak] - 0.5) < 0.05 || std::abs(ticks[peak] + 0.25) < 0.05);
    w->stopFocused();
    QTRY_VERIFY_WITH_TIMEOUT(w->sessions().back()->done(), 10000);
  }

  void resumeContinuesACancelledRunWithoutOverlap() {
    auto w = makeWindow("resume.db");
    auto* form = w->launchPanel()->form();
    qobject_cast<QSpinBox*>(form->field("epochs"))->setValue(6);
    qobject_cast<QSpinBox*>(form->field("checkpoint_every"))->setValue(1);
    qobject_cast<QSpinBox*>(form->field("samples"))->setValue(20000);  // 500 steps an epoch
    const int64_t id = w->launch();
    fl::store::RunStore store((m_dir.path() + "/resume.db").toStdString());
    QTRY_VERIFY_WITH_TIMEOUT(!store.checkpoints(id).empty(), 60000);
    w->stopFocused();
    QTRY_VERIFY_WITH_TIMEOUT(w->sessions().back()->done(), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(fl::toString(store.run(id)->status), std::string("cancelled"), 5000);
    if (store.run(id)->lastStep >= 3000) QSKIP("the run finished before it could be stopped");
    QVERIFY(w->resumeRun(id));
    QTRY_VERIFY_WITH_TIMEOUT(w->sessions().back()->done(), 60000);
    QTRY_COMPARE_WITH_TIMEOUT(fl::toString(store.run(id)->status), std::string("finished"), 5000);
    const auto kl = store.metric(id, "test/kl");
    QCOMPARE(kl.size(), size_t(6));  // one per epoch, none twice
    for (size_t i = 0; i < kl.size(); ++i) QCOMPARE(kl[i].step, int64_t(500 * (i + 1)));
    // Shown again, the run is drawn whole: its past from the store, the rest from the resumed
    // session (not from the stopped one, which ended at the stop).
    w->openStoredRun(id);
    for (auto* plot : w->dashboard()->metricPlots()) {
      if (plot->objectName() != "kl") continue;
      const QString curve = plot->curveNames().filter(QString("#%1").arg(id)).value(0);
      QCOMPARE(plot->pointCount(curve), size_t(6));
    }
  }

  void invalidConfigDisablesRunWithTheReason() {
    auto w = makeWindow("invalid.db");
    auto* lr = qobject_cast<QLineEdit*>(w->launchPanel()->form()->field("lr"));
    lr->setText("-1");
    QVERIFY(!w->launchPanel()->runButton()->isEnabled());
    QVERIFY(!w->launchPanel()->config().ok());
    QVERIFY(w->launchPanel()->config().summary().find("'lr'") != std::string::npos);
    QCOMPARE(w->launch(), int64_t(0));
    lr->setText("0.001");
    QVERIFY(w->launchPanel()->runButton()->isEnabled());
  }

  void comparisonLaunchesOnlyTheChosenArms() {
    auto w = makeWindow("arms.db");
    qobject_cast<QSpinBox*>(w->launchPanel()->form()->field("epochs"))->setValue(2);
    QVERIFY(!w->launchPanel()->chooseVariants({"no such arm"}));
    QVERIFY(w->launchPanel()->chooseVariants({"linear", "fourier N=20"}));
    const auto ids = w->launchComparison();
    QCOMPARE(ids.size(), size_t(2));
    QCOMPARE(w->sessions().front()->live().name, std::string("linear"));
    QCOMPARE(w->sessions().back()->live().name, std::string("fourier N=20"));
    // Nothing ticked: the button says why it is off.
    QVERIFY(w->launchPanel()->chooseVariants({}));
    QVERIFY(!w->launchPanel()->compareButton()->isEnabled());
    QVERIFY(w->launchPanel()->compareButton()->toolTip().contains("No arm is ticked"));
    for (auto* s : w->sessions()) QTRY_VERIFY_WITH_TIMEOUT(s->done(), 60000);
  }

  void comparisonRunsEachVariantOnTheSameDataAndSeed() {
    auto w = makeWindow("compare.db");
    qobject_cast<QSpinBox*>(w->launchPanel()->form()->field("epochs"))->setValue(2);
    const auto ids = w->launchComparison();
    QCOMPARE(ids.size(), size_t(4));
    for (auto* s : w->sessions()) QTRY_VERIFY_WITH_TIMEOUT(s->done(), 60000);
    QTest::qWait(100);
    fl::store::RunStore store((m_dir.path() + "/compare.db").toStdString());
    std::set<std::string> heads;
    for (auto id : ids) {
      auto run = store.run(id).value();
      QCOMPARE(fl::toString(run.status), std::string("finished"));
      QCOMPARE(run.config["seed"], store.run(ids[0])->config["seed"]);
      QCOMPARE(run.config["dataset"], store.run(ids[0])->config["dataset"]);
      heads.insert(run.config["head"].get<std::string>() +
                   std::to_string(run.config["frequencies"].get<int>()));
    }
    QCOMPARE(heads.size(), size_t(4));
    // The KL panel overlays one curve per arm and KL definition (test/kl, test/kl_exact).
    QStringList klCurves;
    for (auto* plot : w->dashboard()->metricPlots())
      for (const auto& name : plot->curveNames())
        if (plot->parent() && plot->objectName() == "kl") klCurves << name;
    QCOMPARE(klCurves.size(), 8);
    // The PDF panel overlays the other arms' predicted densities over the shown run's.
    auto* pdf = qobject_cast<fl::widgets::SnapshotPlot*>(w->dashboard()->panel("pdf"));
    QVERIFY(pdf);
    QCOMPARE(pdf->overlayCount(), 3);
  }

  void aLeakingFourierQkRunIsLabelledLeaksBesideItsLoss() {
    auto w = makeWindow("qk.db");
    w->launchPanel()->selectExperiment("fourier-qk");
    w->launchPanel()->form()->setValues({{"variant", "fourier"},
                                         {"d_model", 32},
                                         {"heads", 2},
                                         {"layers", 1},
                                         {"train_len", 32},
                                         {"batch_size", 4},
                                         {"steps", 20},
                                         {"eval_every", 10},
                                         {"eval_tokens", 256},
                                         {"synthetic_chars", 20000}});
    QVERIFY(w->launch() > 0);
    QTRY_VERIFY_WITH_TIMEOUT(w->sessions().back()->done(), 60000);
    QTest::qWait(100);
    auto* verdict = qobject_cast<fl::widgets::VerdictPanel*>(w->dashboard()->panel("verdict"));
    QVERIFY(verdict);
    QCOMPARE(verdict->verdict(), QString("LEAKS"));
    QCOMPARE(verdict->ok(), std::optional<bool>(false));
    const QString message = w->runsTable()->item(0, 6)->text();
    QVERIFY2(message.startsWith("LEAKS (val/loss "), qPrintable(message));
    QCOMPARE(w->runsTable()->item(0, 6)->foreground().color(), QColor(170, 0, 0));
    // The stored run keeps its verdict: the history's status column shows it.
    w->refreshHistory();
    QTRY_VERIFY_WITH_TIMEOUT(w->history()->table()->rowCount() == 1, 5000);
    auto* status = w->history()->table()->item(0, 3);
    QCOMPARE(status->text(), QString("finished: LEAKS"));
    QVERIFY(status->toolTip().startsWith("LEAKS -- "));
  }

  void aFopeComparisonOverlaysPerplexityAgainstLength() {
    auto w = makeWindow("fope.db");
    w->launchPanel()->selectExperiment("fope");
    w->launchPanel()->form()->setValues({{"d_model", 32},
                                         {"heads", 2},
                                         {"layers", 1},
                                         {"train_len", 16},
                                         {"batch_size", 4},
                                         {"steps", 10},
                                         {"eval_every", 5},
                                         {"eval_tokens", 256},
                                         {"synthetic_chars", 20000},
                                         {"passkey_mix", 0.0},
                                         {"passkey_samples", 4},
                                         {"eval_factors", "1,4"}});
    const auto ids = w->launchComparison();
    QCOMPARE(ids.size(), size_t(4));  // RoPE, FoPE, ALiBi, NoPE
    for (auto* s : w->sessions()) QTRY_VERIFY_WITH_TIMEOUT(s->done(), 60000);
    QTest::qWait(100);
    std::set<std::string> positions;
    fl::store::RunStore store((m_dir.path() + "/fope.db").toStdString());
    for (auto id : ids) {
      auto run = store.run(id).value();
      QCOMPARE(fl::toString(run.status), std::string("finished"));
      positions.insert(run.config["position"].get<std::string>());
      QCOMPARE(store.metric(id, "val/ppl@64").size(), size_t(2));
    }
    QCOMPARE(positions, (std::set<std::string>{"rope", "fope", "alibi", "none"}));
    // Perplexity per length: one curve per run and length (prefix series "val/ppl@*").
    QStringList pplCurves;
    for (auto* plot : w->dashboard()->metricPlots())
      if (plot->objectName() == "ppl_curves") pplCurves = plot->curveNames();
    QCOMPARE(pplCurves.size(), 8);
    auto* byLength =
        qobject_cast<fl::widgets::SnapshotPlot*>(w->dashboard()->panel("ppl_vs_length"));
    QVERIFY(byLength);
    QCOMPARE(byLength->overlayCount(), 3);
  }

  void historyListsSortsAndOpensStoredRuns() {
    const auto path = (m_dir.path() + "/history.db").toStdString();
    {
      fl::store::RunStore store(path);
      for (int i = 0; i < 3; ++i) {
        const int64_t id =
            store.createRun({"fourier-head", "r" + std::to_string(i), {{"seed", i}}, {}, {}});
        store.writeEvents(id, {fl::MetricEvent{"test/kl", 10, 0.1, 0.5 - 0.1 * i},
                               fl::MetricEvent{"train/loss", 10, 0.1, 3.0}});
        store.finishRun(id, fl::RunStatus::Finished, "");
      }
    }
    auto w = makeWindow("history.db");
    w->refreshHistory();
    auto* table = w->history()->table();
    QCOMPARE(table->rowCount(), 3);
    int klColumn = -1;
    for (int c = 0; c < table->columnCount(); ++c)
      if (table->horizontalHeaderItem(c)->text() == "test/kl (last)") klColumn = c;
    QVERIFY(klColumn >= 0);
    table->sortItems(klColumn, Qt::AscendingOrder);
    QCOMPARE(table->item(0, 2)->text(), QString("r2"));  // lowest KL first
    // Seeds differ: the config column shows them.
    bool seedColumn = false;
    for (int c = 0; c < table->columnCount(); ++c)
      seedColumn |= table->horizontalHeaderItem(c)->text() == "seed";
    QVERIFY(seedColumn);
    w->history()->filterText()->setText("r1");  // filtered once typing pauses
    QTRY_COMPARE(table->rowCount(), 1);
    w->history()->filterText()->clear();
    QTRY_COMPARE(table->rowCount(), 3);
    QCOMPARE(w->history()->experimentFilter()->count(), 2);  // "any" + fourier-head
    w->history()->experimentFilter()->setCurrentIndex(1);
    QCOMPARE(table->rowCount(), 3);
    w->history()->experimentFilter()->setCurrentIndex(0);
    w->openStoredRun(1);
    size_t points = 0;
    for (auto* plot : w->dashboard()->metricPlots())
      for (const auto& name : plot->curveNames()) points += plot->pointCount(name);
    QCOMPARE(points, size_t(2));

    // Export writes valid files; delete removes the run.
    const QString csv = m_dir.path() + "/history-export.csv";
    QString error;
    QVERIFY(w->history()->exportRuns({1, 2}, csv, &error));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto lines = QString::fromUtf8(file.readAll()).trimmed().split('\n');
    QCOMPARE(lines.size(), 1 + 4);  // header + 2 runs x 2 points
    const QString json = m_dir.path() + "/history-export.json";
    QVERIFY(w->history()->exportRuns({3}, json, &error));
    QFile jf(json);
    QVERIFY(jf.open(QIODevice::ReadOnly));
    QCOMPARE(
        nlohmann::json::parse(jf.readAll().toStdString())["runs"][0]["name"].get<std::string>(),
        std::string("r2"));
    // Compare overlays the stored runs and lists only the config values that differ.
    w->compareRuns({1, 2, 3});
    QStringList klCurves;
    for (auto* plot : w->dashboard()->metricPlots())
      if (plot->objectName() == "kl") klCurves = plot->curveNames();
    QCOMPARE(klCurves.size(), 3);
    auto* diff = w->configDiffTable();
    QCOMPARE(diff->rowCount(), 3);
    QCOMPARE(diff->columnCount(), 2);  // run, seed
    QCOMPARE(diff->horizontalHeaderItem(1)->text(), QString("seed"));
    QCOMPARE(w->history()->deleteRuns({2}), 1);
    QCOMPARE(table->rowCount(), 2);
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
