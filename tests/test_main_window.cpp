// Tests app/gui/main_window.h offscreen, as a user drives it: Run starts a run whose metrics
// reach the plots, the tables and the store; Stop cancels it; an invalid config disables Run
// with the reason; comparisons, studies and History; and the window's habits: no
// stale state after switching experiments, a comparison kept when one of its runs is clicked,
// the History sorted by column key with empty columns left out, Delete asking with No as the
// default, the empty store offering the demo, a first window that fits the screen. Every wait
// is on a condition (QTRY_*), every table column is found by its name or key.
#include <QtTest>

#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QGuiApplication>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QProgressDialog>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTableView>
#include <QToolButton>

#include <qcustomplot.h>

#include <algorithm>
#include <csignal>
#include <functional>
#include <limits>
#include <set>

#include "app/gui/closing_wait.h"
#include "app/gui/dock_title_bar.h"
#include "app/gui/history_model.h"
#include "app/gui/history_view.h"
#include "app/gui/launch_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/metrics_table_model.h"
#include "app/gui/run_display.h"
#include "app/gui/run_queue.h"
#include "app/gui/run_views.h"
#include "app/gui/runs_dock.h"
#include "app/gui/runs_table_model.h"
#include "app/gui/shortcuts_box.h"
#include "app/gui/stopped_at_close.h"
#include "app/gui/study_view.h"
#include "core/engine/config.h"
#include "core/engine/device_spec.h"
#include "core/engine/run_name.h"
#include "core/engine/system_metrics.h"
#include "core/store/run_store.h"
#include "core/store/store_sink.h"
#include "core/study/study_expansion.h"
#include "experiments/builtin_experiments.h"
#include "tests/sqlite_probe.h"
#include "widgets/config_form.h"
#include "widgets/dashboard.h"
#include "widgets/frozen_columns_view.h"
#include "widgets/metric_plot.h"
#include "widgets/probe_panel.h"
#include "widgets/run_colors.h"
#include "widgets/snapshot_plot.h"
#include "widgets/study_figure_plot.h"
#include "widgets/study_progress_grid.h"
#include "widgets/study_table_model.h"
#include "widgets/text_table_model.h"
#include "widgets/verdict_panel.h"

using fl::gui::MainWindow;
using fl::gui::RunsTableModel;

namespace {

// The run's view says it is over: its terminal status was drained (and drawn in that tick).
bool isOver(const MainWindow& w, int64_t id) {
  const fl::gui::RunView* view = w.views().find(id);
  return view && fl::isTerminal(view->status()) && !w.queue()->isTraining(id);
}

bool allOver(const MainWindow& w) {
  return std::all_of(w.queue()->runs().begin(), w.queue()->runs().end(),
                     [&](int64_t id) { return isOver(w, id); }) &&
         w.queue()->waitingCount() == 0;
}

QString runsCell(const MainWindow& w, int64_t id, int column) {
  const int row = w.runsModel()->rowOf(id);
  return w.runsModel()->data(w.runsModel()->index(row, column), Qt::DisplayRole).toString();
}

size_t pointsIn(const fl::widgets::Dashboard& d, const QString& panel, int64_t id) {
  for (auto* plot : d.metricPlots()) {
    if (plot->objectName() != panel) continue;
    const QString curve = plot->curveNames().filter(QString("#%1").arg(id)).value(0);
    return curve.isEmpty() ? 0 : plot->pointCount(curve);
  }
  return 0;
}

fl::widgets::MetricPlot* plotIn(const fl::widgets::Dashboard& d, const QString& panel) {
  for (auto* plot : d.metricPlots())
    if (plot->objectName() == panel) return plot;
  return nullptr;
}

// The x of a run's curve in a panel of one key, as the dashboard was given them.
std::vector<double> curveXIn(const fl::widgets::Dashboard& d, const QString& panel, int64_t id) {
  auto* plot = plotIn(d, panel);
  return plot ? plot->curveX(plot->curveNames().filter(QString("#%1").arg(id)).value(0))
              : std::vector<double>();
}

QSpinBox* spin(MainWindow& w, const char* name) {
  return qobject_cast<QSpinBox*>(w.launchPanel()->form()->field(name));
}

// Shows the window with its Runs table one row high (as in a window crowded by its panels):
// the table, its viewport laid out at that height.
QTableView* showWithOneRunsRow(MainWindow& w) {
  w.show();
  if (!QTest::qWaitForWindowExposed(&w)) return nullptr;
  QTableView* table = w.runsDock()->table();
  const int oneRow = table->horizontalHeader()->height() +
                     table->verticalHeader()->defaultSectionSize() + 2 * table->frameWidth();
  table->setFixedHeight(oneRow);
  const bool laidOut = QTest::qWaitFor([&] {
    return table->viewport()->height() ==
           oneRow - table->horizontalHeader()->height() - 2 * table->frameWidth();
  });
  return laidOut ? table : nullptr;
}

// Launches a study of the form's settings with `key` over the values `list` ("4,8"): its id, 0
// where the form did not offer it.
int64_t launchStudyOver(MainWindow& w, const char* key, const QString& list) {
  if (!w.launchPanel()->form()->setList(key, list)) return 0;
  if (!QTest::qWaitFor([&] { return w.launchPanel()->studyButton()->isEnabled(); })) return 0;
  return w.launchStudy();
}

// Clicks the Runs table's row of a run, with modifiers (Ctrl adds it to the selection).
void clickRun(MainWindow& w, int64_t id, Qt::KeyboardModifiers modifiers = {}) {
  QTableView* table = w.runsTable();
  const QModelIndex index = table->model()->index(w.runsModel()->rowOf(id), RunsTableModel::kName);
  QTest::mouseClick(table->viewport(), Qt::LeftButton, modifiers,
                    table->visualRect(index).center());
}

// Answers the next modal message box with `button`, noting which button was its default.
void answerNextMessageBox(QMessageBox::StandardButton button,
                          QMessageBox::StandardButton* defaultOne, QString* text = nullptr) {
  QTimer::singleShot(50, [=] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box) return answerNextMessageBox(button, defaultOne, text);
    if (defaultOne) *defaultOne = box->standardButton(box->defaultButton());
    if (text) *text = box->text();
    box->button(button) ? box->button(button)->click() : box->accept();
  });
}

// Answers the next modal input dialog with `answer`, once it is open.
void answerNextInputDialog(const std::function<void(QInputDialog*)>& answer) {
  QTimer::singleShot(50, [=] {
    auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
    if (!dialog) return answerNextInputDialog(answer);
    answer(dialog);
  });
}

// Selects History's row of run `id` alone; false when it is not listed.
bool selectInHistory(MainWindow& w, int64_t id) {
  auto* table = w.history()->table();
  const int idColumn = w.history()->model()->column("id");
  for (int row = 0; row < table->model()->rowCount(); ++row)
    if (table->model()->index(row, idColumn).data().toLongLong() == id) {
      table->clearSelection();
      table->selectRow(row);
      return true;
    }
  return false;
}

// Clicks History's button with this text.
void clickHistoryButton(MainWindow& w, const QString& text) {
  for (auto* button : w.history()->findChildren<QPushButton*>())
    if (button->text() == text) return button->click();
  QFAIL(qPrintable("no History button " + text));
}

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fl::ExperimentRegistry m_registry;

  static fl::gui::DockTitleBar* titleBar(QDockWidget* dock) {
    return qobject_cast<fl::gui::DockTitleBar*>(dock->titleBarWidget());
  }

  std::unique_ptr<MainWindow> makeWindow(const QString& db) {
    auto store = std::make_unique<fl::store::RunStore>((m_dir.path() + "/" + db).toStdString());
    auto w = std::make_unique<MainWindow>(m_registry, std::move(store));
    // The offscreen screen is small (800x600): a first window is maximized there, and the
    // tests that size their window need it in its normal state.
    w->setWindowState(Qt::WindowNoState);
    w->launchPanel()->selectExperiment("fourier-head");
    spin(*w, "samples")->setValue(400);
    spin(*w, "eval_every")->setValue(1);
    return w;
  }

  // A file of 8192 'x' bytes: no run store, and what must be left as it was.
  QString notAStore(const QString& name) {
    const QString path = m_dir.path() + "/" + name;
    QFile file(path);
    if (file.open(QIODevice::WriteOnly)) file.write(QByteArray(8192, 'x'));
    return path;
  }

 private slots:
  void initTestCase() {
    fl::registerBuiltinExperiments(m_registry);
    QStandardPaths::setTestModeEnabled(true);  // QSettings away from the user's
    QSettings("FourierLab", "FourierLab").clear();
  }

  void runReachesPlotsTablesAndStore() {
    auto w = makeWindow("run.db");
    spin(*w, "epochs")->setValue(3);
    const int64_t id = w->launch();
    QVERIFY(id > 0);
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id), 60000);
    QCOMPARE(fl::toString(w->views().find(id)->status()), fl::toString(fl::RunStatus::Finished));
    // The probe shows the final model: asked again once the run has ended (a request after
    // its last step is never answered by the run), from its final checkpoint.
    const QString finalStep = QString("step %1").arg(w->views().find(id)->progress().step);
    auto* probePlot = w->display()->probePanel()->plot();
    QTRY_COMPARE_WITH_TIMEOUT(probePlot->caption(), finalStep, 15000);
    w->display()->probePanel()->clearAnswer();
    QVERIFY(probePlot->caption() != finalStep);
    emit w->queue()->runEnded(id, 0);
    QTRY_COMPARE_WITH_TIMEOUT(probePlot->caption(), finalStep, 15000);
    fl::store::RunStore store((m_dir.path() + "/run.db").toStdString());
    QTRY_COMPARE_WITH_TIMEOUT(fl::toString(store.run(id)->status),
                              fl::toString(fl::RunStatus::Finished), 5000);
    QCOMPARE(store.metric(id, "test/kl").size(), size_t(3));
    // Every point reached the plots: the loss per epoch and each test metric per evaluation.
    QCOMPARE(pointsIn(*w->display()->dashboard(), "loss", id), size_t(3));
    QCOMPARE(pointsIn(*w->display()->dashboard(), "kl", id), size_t(3));
    // The live metrics table shows the run's last values.
    auto* metrics = w->display()->metricsModel();
    QCOMPARE(metrics->rowCount(), 1);
    const int kl = metrics->column("test/kl");
    QVERIFY(kl > 0);
    QVERIFY(std::abs(metrics->data(metrics->index(0, kl), Qt::DisplayRole).toDouble() -
                     store.metric(id, "test/kl").back().value) < 1e-4);
    QCOMPARE(w->runsModel()->rowCount(), 1);
    QCOMPARE(runsCell(*w, id, RunsTableModel::kStatus), QString("finished"));
    QCOMPARE(runsCell(*w, id, RunsTableModel::kProgress), QString("epoch 3/3"));
    QCOMPARE(runsCell(*w, id, RunsTableModel::kThreads), QString());  // no longer training

    // Opened from the store in a second window, the learned PDF is drawn against the true one
    // as it was live: the store keeps the latest prediction and the truth is rebuilt from it.
    auto pdfPlot = [](MainWindow& window) {
      auto* panel = window.display()->dashboard()->panel("pdf");
      auto* plot = qobject_cast<fl::widgets::SnapshotPlot*>(panel);
      return plot ? plot : panel->findChild<fl::widgets::SnapshotPlot*>();
    };
    auto reopened = makeWindow("run.db");
    // A window that trains and shows nothing says how its Runs table fills, rather than
    // showing a blank grid.
    QCOMPARE(reopened->runsModel()->rowCount(), 0);
    QVERIFY2(reopened->runsDock()->emptyTableText().contains("Run or Run comparison starts"),
             qPrintable(reopened->runsDock()->emptyTableText()));
    // The stored run it opens has its row, as it reads in the window that trained it.
    reopened->openStoredRun(id);
    QCOMPARE(reopened->runsModel()->rowCount(), 1);
    QCOMPARE(runsCell(*reopened, id, RunsTableModel::kStatus), QString("finished"));
    QCOMPARE(runsCell(*reopened, id, RunsTableModel::kProgress), QString("epoch 3/3"));
    QVERIFY(reopened->runsDock()->emptyTableText().isEmpty());
    for (const char* name : {"pdf/true_grid", "pdf/pred_grid", "pdf/true", "pdf/pred"}) {
      const auto* live = pdfPlot(*w)->latest(name);
      const auto* stored = pdfPlot(*reopened)->latest(name);
      QVERIFY2(live && stored, name);
      QVERIFY2(stored->data == live->data, name);
    }
    reopened.reset();

    // The finished run's probe answers from its last checkpoint.
    auto* probe = w->display()->probePanel();
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
    QVERIFY(!w->launchPanel()->presetModified());
    // Before the run: what the paper measured, one link away (all of it took the dock's height
    // from the form at 1280x720) and on hover.
    QLabel* note = w->launchPanel()->presetNote();
    const QString values = "dataset gmm2: test/kl 0.146 ± 0.033";
    QVERIFY2(note->text().contains("The paper's Fourier head") && !note->text().contains(values),
             qPrintable(note->text()));
    QVERIFY(note->toolTip().contains(values));
    emit note->linkActivated("unfold");
    QVERIFY2(note->text().contains(values), qPrintable(note->text()));
    emit note->linkActivated("fold");
    QVERIFY(!note->text().contains(values));
    // A long description alone is cut folded too (fope's tiny took six wrapped lines from the
    // form at 1280x720), whole on hover and one link away.
    {
      auto fope = makeWindow("paper-fope.db");
      fope->launchPanel()->selectExperiment("fope");
      QVERIFY(fope->launchPanel()->selectPreset("tiny"));
      QLabel* tiny = fope->launchPanel()->presetNote();
      const QString end = "a few minutes on 2 CPU cores";
      QVERIFY2(!tiny->text().contains(end) && tiny->text().contains(">more</a>"),
               qPrintable(tiny->text()));
      QVERIFY(tiny->toolTip().contains(end));
      emit tiny->linkActivated("unfold");
      QVERIFY2(tiny->text().contains(end), qPrintable(tiny->text()));
    }
    // A 2-epoch run of it is not the paper's configuration: no verdict, nothing in red.
    spin(*w, "samples")->setValue(400);
    spin(*w, "epochs")->setValue(2);
    QVERIFY(w->launchPanel()->presetModified());  // the preset says it was edited
    const int64_t id = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id), 60000);
    // And so does the run's name: it is not the paper's run.
    QCOMPARE(w->store().run(id)->name, std::string("paper-fourier, edited: samples 400, epochs 2"));
    QVERIFY(w->views().find(id)->verdicts().empty());
    // No verdict, and it says why where the verdict would be (the column was blank).
    const QString cell = runsCell(*w, id, RunsTableModel::kVerdict);
    QVERIFY2(cell.contains("not compared with the paper (paper-fourier): samples 400 (the "
                           "paper's 5000), epochs 2 (the paper's 500)"),
             qPrintable(cell));
    QVERIFY(!cell.contains("within") && !cell.contains("outside"));

    // Choosing the preset shown again, or the note's "reset", goes back to its values (choosing
    // it again did nothing: the combo's index had not changed).
    const auto boxes = w->launchPanel()->findChildren<QComboBox*>();
    auto* preset = *std::find_if(boxes.begin(), boxes.end(),
                                 [](QComboBox* b) { return b->currentText() == "paper-fourier"; });
    emit preset->activated(preset->currentIndex());
    QCOMPARE(spin(*w, "samples")->value(), 5000);
    QCOMPARE(spin(*w, "epochs")->value(), 500);
    QVERIFY(!w->launchPanel()->presetModified());
    spin(*w, "epochs")->setValue(3);
    QVERIFY(w->launchPanel()->presetModified());
    const auto notes = w->launchPanel()->findChildren<QLabel*>();
    auto* modified = *std::find_if(notes.begin(), notes.end(),
                                   [](QLabel* l) { return l->text().contains("reset"); });
    emit modified->linkActivated("reset");
    QCOMPARE(spin(*w, "epochs")->value(), 500);
    QVERIFY(!w->launchPanel()->presetModified());
  }

  void aStoredRunShowsItsTypedVerdictInRedWhenOutside() {
    const QString path = m_dir.path() + "/stored-verdict.db";
    int64_t id = 0;
    {
      fl::store::RunStore store(path.toStdString());
      id = store.createRun({"fourier-head", "paper-fourier", {{"dataset", "gmm2"}}, {}, {}});
      fl::store::StoreSink sink(path.toStdString(), id);
      fl::Verdict outside;
      outside.source = fl::VerdictSource::Paper;
      outside.subject = "test/kl";
      outside.label = fl::kOutsidePaper;
      outside.passed = false;
      outside.detail = "test/kl 0.260 vs paper 0.146 ± 0.033: outside the paper's spread";
      fl::Verdict unjudged = outside;  // the paper prints no spread: shown, not judged
      unjudged.subject = "test/mse_argmax";
      unjudged.label = "vs paper";
      unjudged.passed.reset();
      unjudged.detail = "test/mse_argmax 0.189 vs paper 0.211";
      fl::StatusEvent finished{fl::RunStatus::Finished, "words nobody parses", "cpu", 10, 1.0, {}};
      finished.verdicts = {outside, unjudged};
      sink.onEvent(finished);
      sink.close();
    }
    auto w = makeWindow("stored-verdict.db");
    w->refreshHistory();
    auto* model = w->history()->model();
    QCOMPARE(model->rowCount(), 1);
    const QModelIndex verdict = model->index(0, model->column("verdict"));
    QCOMPARE(verdict.data().toString(), QString("outside paper"));
    QCOMPARE(verdict.data(Qt::ToolTipRole).toString(),
             QString("test/kl 0.260 vs paper 0.146 ± 0.033: outside the paper's spread; "
                     "test/mse_argmax 0.189 vs paper 0.211"));
    QCOMPARE(verdict.data(Qt::ForegroundRole).value<QColor>(), QColor(170, 0, 0));
    w->openStoredRun(id);
    const QString line = w->display()->focusLine()->text();
    QVERIFY2(
        line.contains("outside the paper") && line.contains("run ") && line.contains("#aa0000"),
        qPrintable(line));
    // The unjudged value in the neutral colour, not in the judged one's; a metric's name is
    // never wrapped at its slash (a word joiner after it).
    QVERIFY2(line.contains("<span style='color:#333'>test/" + QString(QChar(0x2060)) +
                           "mse_argmax 0.189 vs paper 0.211</span>"),
             qPrintable(line));
  }

  // A store an older build judged ("outside" by mean ± std alone): the window judges its runs
  // again on opening and says so in its status bar (stderr alone told no one at a desktop).
  void aStoreAnOlderBuildJudgedIsJudgedAgainAndSaidSo() {
    {
      fl::store::RunStore store((m_dir.path() + "/older-verdicts.db").toStdString());
      const auto config =
          fl::buildConfig(*m_registry.find("fourier-head"), "paper-fourier", {"dataset=gmm2"});
      QVERIFY(config.ok());
      const int64_t id = store.createRun({"fourier-head", "", config.values, {}, {}});
      const fl::Verdict old{
          .source = fl::VerdictSource::Paper,
          .subject = "test/kl",
          .label = fl::kOutsidePaper,
          .passed = false,
          .detail = "test/kl 0.170 vs paper 0.146 ± 0.033: outside the paper's spread",
          .value = 0.17,
          .paperMean = 0.146,
          .paperStd = 0.033,
          .preset = "paper-fourier"};
      fl::StatusEvent finished{fl::RunStatus::Finished, old.detail, "cpu", 10, 1.0, {}};
      finished.verdicts = {old};
      store.writeEvents(id, {fl::MetricEvent{"test/kl", 10, 1.0, 0.17}, finished});
    }
    auto w = makeWindow("older-verdicts.db");
    const QString said = w->statusBar()->currentMessage();
    QVERIFY2(said.contains(" · 1 run's verdicts against the paper judged again by this build's "
                           "rule"),
             qPrintable(said));
    QCOMPARE(w->store().run(1)->verdicts.at(0).passed, std::optional<bool>(true));
    auto* model = w->history()->model();
    const int verdict = model->column("verdict");
    QVERIFY(verdict >= 0);
    QCOMPARE(model->data(model->index(0, verdict), Qt::DisplayRole).toString(),
             QString("within paper"));
  }

  // File > Open a run store starts a window of its own for it (this one's runs go on): not for
  // this window's own store, nor for one in a folder that does not exist.
  void anotherRunStoreOpensInAWindowOfItsOwn() {
    auto w = makeWindow("opener.db");
    QStringList asked;
    w->setWindowStarter([&](const QString& program, const QStringList& arguments) {
      asked = QStringList{program} + arguments;
      return true;
    });
    const QString other = m_dir.path() + "/other.db";
    QVERIFY(w->openStoreInNewWindow(other));
    QCOMPARE(asked, (QStringList{QCoreApplication::applicationFilePath(), "--db", other}));
    asked.clear();
    QVERIFY(!w->openStoreInNewWindow(m_dir.path() + "/./opener.db"));
    QVERIFY(asked.isEmpty());
    QVERIFY(w->statusBar()->currentMessage().contains("is this window's run store"));
    QVERIFY(!w->openStoreInNewWindow(m_dir.path() + "/typo/x.db"));
    QVERIFY(asked.isEmpty());
    QVERIFY2(w->statusBar()->currentMessage().contains("does not exist"),
             qPrintable(w->statusBar()->currentMessage()));
    bool listed = false;
    for (QAction* top : w->menuBar()->actions())
      for (QAction* action : top->menu() ? top->menu()->actions() : QList<QAction*>{})
        listed = listed || (action->text().startsWith("Open a run store") &&
                            action->shortcut() == QKeySequence(QKeySequence::Open));
    QVERIFY(listed);
  }

  // Help > Keyboard and mouse lists every menu action's shortcut, read from the menus, so a
  // shortcut added later is listed too; F1 opens it.
  void theShortcutListNamesEveryMenuShortcut() {
    auto w = makeWindow("shortcuts-list.db");
    const QString text = fl::gui::shortcutsText(w->menuBar());
    int listed = 0;
    for (QAction* top : w->menuBar()->actions())
      for (QAction* action : top->menu() ? top->menu()->actions() : QList<QAction*>{})
        if (!action->shortcut().isEmpty()) {
          ++listed;
          const QString row =
              QString("%1 › %2").arg(top->text().remove('&'), action->text().remove('&'));
          QVERIFY2(text.contains(row.toHtmlEscaped()), qPrintable(row));
          QVERIFY2(text.contains(action->shortcut().toString(QKeySequence::NativeText)),
                   qPrintable(row));
        }
    QVERIFY(listed >= 12);
    QVERIFY(text.contains("Run › Run comparison") && text.contains("Ctrl+Shift+R"));
    QVERIFY(text.contains("Ctrl + wheel on a plot"));
    QVERIFY(text.contains("Help › Keyboard and mouse"));
  }

  // A run the CLI trains, opened here: the focus line says how far it is and which process
  // trains it, and Stop asks that process to stop (SIGTERM), after saying so. The CLI
  // then cancels its run with a checkpoint (exit 143), and Stop greys once the store says so.
  void aRunTrainedByTheCliIsStoppedFromTheWindow() {
    const QString db = m_dir.path() + "/cli-trained.db";
    QProcess cli;
    cli.start(QString::fromLocal8Bit(qgetenv("FOURIERLAB_CLI")),
              {"run", "fourier-head", "--db", db, "--name", "long", "--set", "epochs=100000",
               "--set", "samples=400", "--set", "eval_every=1"});
    QVERIFY2(cli.waitForStarted(), qPrintable(cli.errorString()));
    auto w = makeWindow("cli-trained.db");
    auto stepOfRunOne = [&] {
      const auto run = w->store().run(1);
      return run && run->status == fl::RunStatus::Running ? run->lastStep : int64_t(0);
    };
    QTRY_VERIFY_WITH_TIMEOUT(stepOfRunOne() > 0, 60000);
    w->openStoredRun(1);
    const QString line = w->display()->focusLine()->text();
    const QString pid = QString::number(cli.processId());
    const int64_t total = w->store().run(1)->totalSteps;
    QVERIFY2(line.contains("running on cpu, step ") &&
                 line.contains(QString(" of %1, in another process (pid %2)").arg(total).arg(pid)),
             qPrintable(line));
    QVERIFY(w->runsDock()->stopButton()->isEnabled());
    QVERIFY2(w->runsDock()->stopButton()->toolTip().contains("(pid " + pid + ")"),
             qPrintable(w->runsDock()->stopButton()->toolTip()));
    // Asked first: No leaves it training.
    QMessageBox::StandardButton defaultButton = QMessageBox::NoButton;
    QString asked;
    answerNextMessageBox(QMessageBox::No, &defaultButton, &asked);
    w->runsDock()->stopButton()->click();
    QCOMPARE(defaultButton, QMessageBox::No);
    QVERIFY2(asked.contains("pid " + pid + " (") && asked.contains("fourierlab-cli run"),
             qPrintable(asked));
    QCOMPARE(cli.state(), QProcess::Running);
    answerNextMessageBox(QMessageBox::Yes, nullptr);
    w->runsDock()->stopButton()->click();
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
    QCOMPARE(cli.exitCode(), 143);
    QCOMPARE(fl::toString(w->store().run(1)->status), fl::toString(fl::RunStatus::Cancelled));
    QVERIFY(!w->store().checkpoints(1).empty());
    QTRY_VERIFY_WITH_TIMEOUT(!w->runsDock()->stopButton()->isEnabled(), 10000);
    QVERIFY(w->runsDock()->stopButton()->toolTip().contains("nothing to stop"));
  }

  void shortcutsReachTheirActions() {
    auto w = makeWindow("shortcuts.db");
    spin(*w, "epochs")->setValue(100000);
    w->show();
    QApplication::setActiveWindow(w.get());
    QVERIFY(QTest::qWaitForWindowActive(w.get()));
    // Run comparison: one run per declared arm (linear, Fourier N = 4, 12, 20), pressed while
    // History is up: the Live tab comes up with them.
    w->tabs()->setCurrentWidget(w->history());
    QTest::keySequence(w.get(), QKeySequence("Ctrl+Shift+R"));
    QCOMPARE(w->queue()->runs().size(), size_t(4));
    QCOMPARE(w->tabs()->currentWidget(), static_cast<QWidget*>(w->display()));
    // The paper's N = 12 arm is shown first, the others overlaid.
    const int64_t shown = w->display()->focused();
    QCOMPARE(w->views().find(shown)->name(),
             std::string("fourier N=12, edited: samples 400, epochs 100000, eval_every 1"));
    QCOMPARE(w->display()->shown().size(), size_t(4));
    // The queue trains as many as the thread budget allows (two on two cores): the shown arm
    // may still wait; the first one trains.
    QTRY_VERIFY_WITH_TIMEOUT(w->views().find(w->queue()->runs().front())->progress().step > 0,
                             30000);
    // Stop: the shown run is cancelled, the others go on.
    QVERIFY(w->runsDock()->stopButton()->isEnabled());
    QTest::keySequence(w.get(), QKeySequence("Ctrl+."));
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, shown), 10000);
    QCOMPARE(fl::toString(w->views().find(shown)->status()),
             fl::toString(fl::RunStatus::Cancelled));
    // A run that is over has nothing to stop: grey, saying so (it stayed enabled and did
    // nothing when clicked).
    QTRY_VERIFY(!w->runsDock()->stopButton()->isEnabled());
    QVERIFY(w->runsDock()->stopButton()->toolTip().contains("nothing to stop"));
    QVERIFY(!isOver(*w, w->queue()->runs().front()));
    // Run: one more.
    QTest::keySequence(w.get(), QKeySequence("Ctrl+R"));
    QCOMPARE(w->queue()->runs().size(), size_t(5));
    // Compare the runs selected in History; with too few, the list is shown and the status bar
    // says what to select, as the Compare button does.
    w->refreshHistory();
    w->history()->table()->clearSelection();
    w->tabs()->setCurrentIndex(0);
    QTest::keySequence(w.get(), QKeySequence("Ctrl+Shift+C"));
    QCOMPARE(w->tabs()->currentWidget(), static_cast<QWidget*>(w->history()));
    QCOMPARE(w->statusBar()->currentMessage(),
             QString("Compare: select 2 or more runs in the list first"));
    w->history()->table()->selectAll();
    QTest::keySequence(w.get(), QKeySequence("Ctrl+Shift+C"));
    QVERIFY(w->display()->configDiffButton()->isVisibleTo(w.get()));
    QVERIFY2(w->display()->configDiffButton()->text().startsWith("Config diff: 5 runs"),
             qPrintable(w->display()->configDiffButton()->text()));
    QCOMPARE(w->display()->configDiffModel()->rowCount(), 5);
    w->queue()->cancelAll();
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 20000);
  }

  void smoothingSaysItsWeightAndStaysAppliedWhenThePanelsAreRebuilt() {
    auto w = makeWindow("smoothing.db");
    w->display()->smoothing()->setValue(60);
    const auto labels = w->display()->findChildren<QLabel*>();
    QVERIFY(
        std::any_of(labels.begin(), labels.end(), [](QLabel* l) { return l->text() == "0.60"; }));
    w->launchPanel()->selectExperiment("fope");  // another experiment: new panels
    w->launchPanel()->selectExperiment("fourier-head");
    QVERIFY(!w->display()->dashboard()->metricPlots().isEmpty());
    for (auto* plot : w->display()->dashboard()->metricPlots()) QCOMPARE(plot->smoothing(), 0.6);
  }

  // The curves' x axis, as W&B and TensorBoard offer it: epochs (step / the steps the trainer
  // takes an epoch), wall time from the run's first metric point, tokens where the model reads
  // them (not the toy's: disabled, saying why). The hover reads x in the chosen unit.
  void aStoredRunIsDrawnOverTheChosenXAxis() {
    using fl::gui::XAxis;
    auto w = makeWindow("xaxis.db");
    spin(*w, "epochs")->setValue(3);
    const int64_t id = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id), 60000);
    fl::store::RunStore store((m_dir.path() + "/xaxis.db").toStdString());
    QTRY_COMPARE_WITH_TIMEOUT(fl::toString(store.run(id)->status),
                              fl::toString(fl::RunStatus::Finished), 5000);
    const auto loss = store.metric(id, "train/loss");
    QCOMPARE(loss.size(), size_t(3));
    auto r = makeWindow("xaxis.db");
    r->show();
    QVERIFY(QTest::qWaitForWindowExposed(r.get()));
    r->openStoredRun(id);
    auto* display = r->display();
    QComboBox* choice = display->xAxisChoice();
    auto* items = qobject_cast<QStandardItemModel*>(choice->model());
    QVERIFY(items);
    const int tokens = static_cast<int>(XAxis::Tokens);
    QVERIFY(!items->item(tokens)->isEnabled());
    QVERIFY2(choice->itemData(tokens, Qt::ToolTipRole).toString().contains("reads no tokens"),
             qPrintable(choice->itemData(tokens, Qt::ToolTipRole).toString()));
    QVERIFY(items->item(static_cast<int>(XAxis::Epoch))->isEnabled());

    // 400 samples less the 80 held out, in batches of 32: 10 steps an epoch.
    choice->setCurrentIndex(static_cast<int>(XAxis::Epoch));
    auto* plot = plotIn(*display->dashboard(), "loss");
    QVERIFY(plot);
    QCOMPARE(plot->xLabel(), QString("epoch"));
    auto x = curveXIn(*display->dashboard(), "loss", id);
    QCOMPARE(x.size(), loss.size());
    for (size_t i = 0; i < x.size(); ++i) QCOMPARE(x[i], static_cast<double>(loss[i].step) / 10);
    // The axis spans epochs 1 to 3: its middle reads epoch 2.
    plot->plot()->replot();
    const QString readout = plot->readoutAt(plot->plot()->axisRect()->rect().center());
    QVERIFY2(readout.contains("@ 2.00"), qPrintable(readout));

    // Wall time: from the run's first metric point of any key, never going back.
    choice->setCurrentIndex(static_cast<int>(XAxis::WallTime));
    QCOMPARE(plot->xLabel(), QString("wall time (s)"));
    double origin = std::numeric_limits<double>::infinity();
    for (const auto& key : store.metricKeys(id))
      origin = std::min(origin, store.metric(id, key).front().wall);
    x = curveXIn(*display->dashboard(), "loss", id);
    QCOMPARE(x.size(), loss.size());
    for (size_t i = 0; i < x.size(); ++i) {
      QVERIFY(x[i] == loss[i].wall - origin);
      QVERIFY(x[i] >= (i == 0 ? 0.0 : x[i - 1]));
    }
    double first = std::numeric_limits<double>::infinity();
    for (auto* p : display->dashboard()->metricPlots())
      for (const auto& name : p->curveNames())
        if (!p->curveX(name).empty()) first = std::min(first, p->curveX(name).front());
    QVERIFY2(first == 0.0, qPrintable(QString::number(first)));

    // A choice the experiment cannot give draws over steps (and the choice says so).
    choice->setCurrentIndex(tokens);
    QCOMPARE(choice->currentIndex(), static_cast<int>(XAxis::Step));
    QCOMPARE(plot->xLabel(), QString("step"));
    x = curveXIn(*display->dashboard(), "loss", id);
    for (size_t i = 0; i < x.size(); ++i) QCOMPARE(x[i], static_cast<double>(loss[i].step));
  }

  // Chosen before the run starts, its points arrive live (appended tick by tick) in tokens
  // seen: the addition model reads "a + b =", four tokens a problem, batch_size problems a step.
  void liveCurvesArriveOverTheChosenXAxis() {
    auto w = makeWindow("xaxis-live.db");
    w->launchPanel()->selectExperiment("addition");
    spin(*w, "operands")->setValue(20);
    spin(*w, "steps")->setValue(40);
    spin(*w, "warmup")->setValue(5);
    spin(*w, "eval_every")->setValue(10);
    spin(*w, "batch_size")->setValue(16);
    w->display()->setXAxis(fl::gui::XAxis::Tokens);
    const int64_t id = w->launch();
    QVERIFY(id > 0);
    QCOMPARE(pointsIn(*w->display()->dashboard(), "loss", id), size_t(0));  // all come live
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id), 60000);
    QCOMPARE(w->display()->xAxisChoice()->currentIndex(), static_cast<int>(fl::gui::XAxis::Tokens));
    QCOMPARE(plotIn(*w->display()->dashboard(), "loss")->xLabel(), QString("tokens seen"));
    const auto& steps = w->views().find(id)->metrics().at("train/loss").steps;
    const auto x = curveXIn(*w->display()->dashboard(), "loss", id);
    QVERIFY(!x.empty());
    QCOMPARE(x.size(), steps.size());
    for (size_t i = 0; i < x.size(); ++i) QCOMPARE(x[i], steps[i] * 16 * 4);
  }

  void switchingBetweenLiveRunsLosesNoPoints() {
    auto w = makeWindow("switch.db");
    spin(*w, "epochs")->setValue(3000);
    spin(*w, "eval_every")->setValue(30);
    w->launchPanel()->setParallelRuns(2);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    const int64_t first = w->launch();
    const int64_t second = w->launch();  // shown; the first trains unseen
    // While both train, show the first again, then the second, then the first.
    for (int64_t id : {first, second, first}) {
      const int64_t before = w->views().find(id)->progress().step;
      QTRY_VERIFY_WITH_TIMEOUT(w->views().find(id)->progress().step > before, 30000);
      QVERIFY(!isOver(*w, first) && !isOver(*w, second));
      clickRun(*w, id);
      QCOMPARE(w->display()->focused(), id);
    }
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 120000);
    fl::store::RunStore store((m_dir.path() + "/switch.db").toStdString());
    // Every evaluation once: none lost between the store's last flush and the switch, none twice.
    QTRY_COMPARE_WITH_TIMEOUT(store.metric(first, "test/kl").size(), size_t(100), 5000);
    QCOMPARE(pointsIn(*w->display()->dashboard(), "kl", first), size_t(100));
    QCOMPARE(w->views().find(first)->metrics().at("test/kl").steps.size(), size_t(100));
  }

  void runsShownTogetherHaveTheirOwnColourInEveryPanel() {
    auto w = makeWindow("colours.db");
    spin(*w, "epochs")->setValue(2);
    w->launchPanel()->chooseVariants({"linear", "fourier N=12"});
    const auto ids = w->launchComparison();
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 60000);
    // Each arm is named by its label and the form's edit besides what the arm sets: the 2-epoch
    // arms were named "linear" and "fourier N=12", as the full-length ones are.
    // (makeWindow's form trains 400 samples, evaluated every epoch.)
    const std::string edits = ", edited: samples 400, epochs 2, eval_every 1";
    QCOMPARE(w->store().run(ids[0])->name, "linear" + edits);
    QCOMPARE(w->store().run(ids[1])->name, "fourier N=12" + edits);
    // The legends label each by what is left once the edits they share are set aside.
    QStringList curves;
    for (auto* plot : w->display()->dashboard()->metricPlots())
      if (plot->objectName() == "kl") curves = plot->curveNames();
    QVERIFY2(curves.contains(QString("#%1 linear").arg(ids[0])) &&
                 curves.contains(QString("#%1 fourier N=12").arg(ids[1])),
             qPrintable(curves.join(" | ")));
    auto& colors = w->display()->dashboard()->colors();
    QVERIFY(colors.of(ids[0]) != colors.of(ids[1]));
    const int64_t shown = w->display()->focused();
    const QColor colour = colors.of(shown);
    auto* pdf = w->display()->dashboard()->panel("pdf")->findChild<QCustomPlot*>();
    bool predicted = false;
    // The shown run's prediction, named by its run as the other's is.
    for (int g = 0; g < pdf->graphCount(); ++g)
      if (pdf->graph(g)->name().startsWith(QString("#%1 ").arg(shown))) {
        QCOMPARE(pdf->graph(g)->pen().color(), colour);
        predicted = true;
      }
    QVERIFY(predicted);
    auto* spectrum = w->display()->dashboard()->panel("spectrum")->findChild<QCustomPlot*>();
    QVERIFY(spectrum->plottableCount() > 0);
    QCOMPARE(qobject_cast<QCPBars*>(spectrum->plottable(0))->brush().color(), colour);
    // The tables show the same colours.
    const QModelIndex swatch =
        w->runsModel()->index(w->runsModel()->rowOf(shown), RunsTableModel::kRun);
    QCOMPARE(swatch.data(Qt::DecorationRole).value<QColor>(), colour);
    // Arms of another preset carry its name: the demo's 60-epoch N = 12 arm and the defaults'
    // 500-epoch one were both "fourier N=12".
    QVERIFY(w->launchPanel()->selectPreset("demo"));
    w->launchPanel()->chooseVariants({"fourier N=12"});
    const auto demo = w->launchComparison();
    QCOMPARE(demo.size(), size_t(1));
    QCOMPARE(w->store().run(demo[0])->name, std::string("demo · fourier N=12"));
    // An arm that changes what its preset sets is not named after it: paper-linear's Fourier
    // arm was "paper-linear · fourier N=12" in History and exports for good.
    QVERIFY(w->launchPanel()->selectPreset("paper-linear"));
    const nlohmann::json n12 = {{"head", "fourier"}, {"frequencies", 12}};
    const nlohmann::json n4 = {{"head", "fourier"}, {"frequencies", 4}};
    QCOMPARE(w->launchPanel()->armName("fourier N=12", n12),
             std::string("paper-fourier · fourier N=12"));
    QCOMPARE(w->launchPanel()->armName("fourier N=4", n4),
             std::string("fourier N=4 (paper-linear otherwise)"));
    QCOMPARE(w->launchPanel()->armName("linear", {{"head", "linear"}}),
             std::string("paper-linear · linear"));
    QVERIFY(w->launchPanel()->selectPreset("paper-fourier"));
    QCOMPARE(w->launchPanel()->armName("linear", {{"head", "linear"}}),
             std::string("paper-linear · linear"));
    spin(*w, "epochs")->setValue(20);  // the form's edits are named after the arm's lead
    QCOMPARE(w->launchPanel()->armName("linear", {{"head", "linear"}}),
             std::string("paper-linear · linear, edited: epochs 20"));
    w->queue()->cancelAll();
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 60000);
  }

  // A new row does not scroll the table from under the pointer: a study's runs, starting one
  // by one, scrolled it as the researcher clicked, and the click took another run.
  void aNewRunDoesNotScrollTheTableUnderThePointer() {
    auto w = makeWindow("under-pointer.db");
    spin(*w, "epochs")->setValue(100000);
    w->queue()->setRequestedParallel(1);
    QTableView* table = showWithOneRunsRow(*w);
    QVERIFY(table);
    w->launch();
    auto* filter = table->model();
    QTRY_COMPARE(filter->rowCount(), 1);
    table->viewport()->setAttribute(Qt::WA_UnderMouse, true);  // the pointer over the rows
    w->launch();
    QTRY_COMPARE(filter->rowCount(), 2);
    QCoreApplication::processEvents();  // the scroll a new row asks for, posted
    QCOMPARE(table->indexAt(QPoint(2, 2)).row(), 0);
    QVERIFY(!table->viewport()->rect().intersects(table->visualRect(filter->index(1, 0))));
    table->viewport()->setAttribute(Qt::WA_UnderMouse, false);
    // Away from the pointer, a run launched comes into view, though it waits for a slot.
    w->launch();
    QTRY_COMPARE(filter->rowCount(), 3);
    QTRY_VERIFY(table->viewport()->rect().intersects(table->visualRect(filter->index(2, 0))));
    w->queue()->cancelAll();
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 30000);
  }

  // The Runs table's selection is the runs on the plots: after a comparison opened from
  // History, the row clicked before stayed highlighted beside another run's plots, and read as
  // the run Stop would stop. Ctrl-clicks still add runs to the comparison.
  void theRunsTableSelectsTheRunsOnThePlots() {
    auto w = makeWindow("selection.db");
    spin(*w, "epochs")->setValue(1);
    w->launchPanel()->chooseVariants({"linear", "fourier N=4", "fourier N=12"});
    const auto ids = w->launchComparison();
    QCOMPARE(ids.size(), size_t(3));
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 60000);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    auto selectedIn = [](MainWindow& window) {
      std::set<int64_t> runs;
      const auto* rows = qobject_cast<QSortFilterProxyModel*>(window.runsTable()->model());
      for (const auto& index : window.runsTable()->selectionModel()->selectedRows())
        runs.insert(window.runsModel()->runAt(rows->mapToSource(index).row()));
      return runs;
    };
    auto selected = [&] { return selectedIn(*w); };
    QCOMPARE(selected(), (std::set<int64_t>(ids.begin(), ids.end())));  // the comparison's
    clickRun(*w, ids[2]);  // focused in its comparison, and the one row highlighted
    QCOMPARE(w->display()->focused(), ids[2]);
    QCOMPARE(selected(), std::set<int64_t>{ids[2]});
    w->compareRuns({ids[0], ids[1]});  // as History's Compare does
    QCOMPARE(selected(), (std::set<int64_t>{ids[0], ids[1]}));
    clickRun(*w, ids[2], Qt::ControlModifier);
    QCOMPARE(std::set<int64_t>(w->display()->shown().begin(), w->display()->shown().end()),
             (std::set<int64_t>{ids[0], ids[1], ids[2]}));
    QCOMPARE(selected(), (std::set<int64_t>{ids[0], ids[1], ids[2]}));
    // Opened from History where they have no rows yet: their rows come after the plots change,
    // and are highlighted too (the first of three had not been).
    auto other = makeWindow("selection.db");
    other->show();
    QVERIFY(QTest::qWaitForWindowExposed(other.get()));
    other->compareRuns(ids);
    QCOMPARE(selectedIn(*other), (std::set<int64_t>(ids.begin(), ids.end())));
    other->openStoredRun(ids[1]);
    QCOMPARE(selectedIn(*other), std::set<int64_t>{ids[1]});
  }

  // The Runs table as a runs sidebar: each row's eye says whether its run is on the plots and
  // puts it there or takes it off (the focus kept); a colour picked for a run is its colour in
  // every panel and table, and no other shown run's; the search keeps the matching rows.
  void theRunsTableShowsHidesColoursAndFindsRuns() {
    auto w = makeWindow("sidebar.db");
    spin(*w, "epochs")->setValue(1);
    w->launchPanel()->chooseVariants({"linear", "fourier N=4", "fourier N=12"});
    // A table one row high: each new run comes into view (they used to be added out of sight).
    QTableView* table = showWithOneRunsRow(*w);
    QVERIFY(table);
    const auto ids = w->launchComparison();
    QCOMPARE(ids.size(), size_t(3));
    auto* filter = table->model();
    const QModelIndex newest = filter->index(filter->rowCount() - 1, 0);
    QTRY_VERIFY(table->viewport()->rect().intersects(table->visualRect(newest)));
    QVERIFY(!table->viewport()->rect().intersects(table->visualRect(filter->index(0, 0))));
    table->setMinimumHeight(0);
    table->setMaximumHeight(QWIDGETSIZE_MAX);
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 60000);
    // The dock's title counts them, so a dock rolled up to its bar still says it.
    QTRY_COMPARE(w->runsDock()->windowTitle(), QString("Runs: 3 finished"));
    auto* model = w->runsModel();
    auto eye = [&](int64_t id) { return model->index(model->rowOf(id), RunsTableModel::kRun); };
    auto curvesOf = [&](int64_t id) {
      int n = 0;
      for (auto* plot : w->display()->dashboard()->metricPlots())
        for (const auto& name : plot->curveNames()) n += name.startsWith(QString("#%1 ").arg(id));
      return n;
    };
    const int64_t focused = w->display()->focused();
    const int64_t other = ids[0] == focused ? ids[1] : ids[0];
    for (auto id : ids) QCOMPARE(eye(id).data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QVERIFY(model->flags(eye(other)) & Qt::ItemIsUserCheckable);
    // Off the plots: its curves go, the others stay, the focus too.
    QVERIFY(model->setData(eye(other), Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(w->display()->shown().size(), size_t(2));
    QCOMPARE(w->display()->focused(), focused);
    QCOMPARE(curvesOf(other), 0);
    QCOMPARE(eye(other).data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    // Back on: beside the others, the focus kept.
    QVERIFY(model->setData(eye(other), Qt::Checked, Qt::CheckStateRole));
    QCOMPARE(w->display()->shown().size(), size_t(3));
    QCOMPARE(w->display()->focused(), focused);
    QVERIFY(curvesOf(other) > 0);
    // Every eye off: the empty page, every row unticked.
    for (auto id : ids) model->setData(eye(id), Qt::Unchecked, Qt::CheckStateRole);
    QVERIFY(w->display()->shown().empty());
    for (auto id : ids) QCOMPARE(eye(id).data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    w->display()->compare(ids);
    // A picked colour: another shown run's own, the likeliest clash.
    auto& colors = w->display()->dashboard()->colors();
    const QColor picked = colors.of(ids[2]);
    emit w->runsDock()->colorChosen(ids[0], picked);
    QCOMPARE(colors.of(ids[0]), picked);
    QVERIFY(colors.of(ids[1]) != picked && colors.of(ids[2]) != picked);
    QCOMPARE(eye(ids[0]).data(Qt::DecorationRole).value<QColor>(), picked);
    for (auto* plot : w->display()->dashboard()->metricPlots())
      for (const auto& name : plot->curveNames())
        if (name.startsWith(QString("#%1 ").arg(ids[0])))
          QCOMPARE(plot->curvePen(name).color(), picked);
    // The search keeps the rows that match (any column).
    w->runsDock()->search()->setText(QString("#%1").arg(ids[1]));
    QCOMPARE(w->runsTable()->model()->rowCount(), 1);
    w->runsDock()->search()->setText("fourier N=");
    QCOMPARE(w->runsTable()->model()->rowCount(), 2);
    QVERIFY(w->runsDock()->emptyTableText().isEmpty());
    // A search that leaves no row says so, in the table's place.
    w->runsDock()->search()->setText("no such run");
    QCOMPARE(w->runsTable()->model()->rowCount(), 0);
    QCOMPARE(w->runsDock()->emptyTableText(),
             QString("No run here matches \u201cno such run\u201d"));
    w->runsDock()->search()->clear();
    QCOMPARE(w->runsTable()->model()->rowCount(), 3);
    QVERIFY(w->runsDock()->emptyTableText().isEmpty());
  }

  // Grouped by setting, two seeds of each of two heads are drawn as two curves, each its
  // members' mean (held against the store's points) with a band; by a key, the keys that differ
  // are offered; pinned runs come first in the Runs dock and carry the store's tag.
  void runsGroupAsTheirMeanWithABandAndPinnedRunsStayOnTop() {
    auto w = makeWindow("groups.db");
    spin(*w, "epochs")->setValue(2);
    std::vector<int64_t> ids;
    for (int seed : {1, 2}) {
      spin(*w, "seed")->setValue(seed);
      QVERIFY(w->launchPanel()->chooseVariants({"linear", "fourier N=4"}));
      for (auto id : w->launchComparison()) ids.push_back(id);
    }
    QCOMPARE(ids.size(), size_t(4));
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 60000);
    fl::store::RunStore store((m_dir.path() + "/groups.db").toStdString());
    QTRY_COMPARE_WITH_TIMEOUT(fl::toString(store.run(ids[3])->status),
                              fl::toString(fl::RunStatus::Finished), 5000);
    auto* display = w->display();
    display->compare(ids);
    auto* plot = plotIn(*display->dashboard(), "loss");
    QCOMPARE(plot->curveNames().size(), 4);

    auto* choice = w->runsDock()->groupChoice();
    QTRY_VERIFY(choice->findText("Group: head") >= 0);  // the key the runs differ by is offered
    QVERIFY(choice->findText("Group: seed") < 0);       // a seed's groups would be single runs
    w->runsDock()->setGroupBy({fl::gui::GroupBy::Kind::Setting, {}});
    QCOMPARE(display->groups().size(), size_t(2));
    // The metrics table's swatches are the groups' colours, the ones their curves have.
    auto* metrics = display->metricsModel();
    for (const auto& group : display->groups())
      for (auto member : group.members)
        for (int row = 0; row < metrics->rowCount(); ++row)
          if (metrics->runs()[static_cast<size_t>(row)] == member)
            QCOMPARE(metrics->index(row, 0).data(Qt::DecorationRole).value<QColor>(),
                     display->dashboard()->colors().of(group.members.front()));
    const QStringList names = plot->curveNames();
    QCOMPARE(names.size(), 2);
    // The other members' predicted densities: each in its group's colour, by its group's name
    // and the one member drawn (without the count: not every member is drawn against one truth).
    auto* pdf = qobject_cast<fl::widgets::SnapshotPlot*>(display->dashboard()->panel("pdf"));
    QVERIFY(pdf);
    int overlaid = 0;
    for (int g = 0; g < pdf->plot()->graphCount(); ++g) {
      const QCPGraph* graph = pdf->plot()->graph(g);
      for (const auto& group : display->groups())
        for (auto member : group.members)
          if (graph->name() ==
              QString("%1 #%2").arg(QString::fromStdString(group.label)).arg(member)) {
            ++overlaid;
            QCOMPARE(graph->pen().color(), display->dashboard()->colors().of(group.members[0]));
          }
    }
    // The shown run's own (named by its group, as every curve of a comparison is by its run)
    // and the other head's run of its seed; seed 2's runs predicted for other test inputs, so
    // they are not drawn against this truth, and the caption names them.
    QCOMPARE(overlaid, 2);
    QVERIFY2(pdf->caption().contains("not drawn, another true density at input #0: "),
             qPrintable(pdf->caption()));
    for (const auto& group : display->groups()) {
      QCOMPARE(group.members.size(), size_t(2));
      QString name;
      for (const auto& n : names)
        if (n.startsWith(QString::fromStdString(group.label))) name = n;
      QVERIFY2(name.endsWith(" ×2"), qPrintable(names.join(" | ")));
      QVERIFY(plot->hasBand(name));
      const auto a = store.metric(group.members[0], "train/loss");
      const auto b = store.metric(group.members[1], "train/loss");
      QCOMPARE(a.size(), size_t(2));
      QCOMPARE(plot->curveX(name).size(), a.size());
      plot->plot()->replot();
      // Where the two members' last points are, the curve is their mean.
      const auto* graphs = plot->plot();
      bool found = false;
      for (int g = 0; g < graphs->graphCount(); ++g) {
        const auto* graph = graphs->graph(g);
        if (graph->name() != name || graph->data()->isEmpty()) continue;
        const double last = (graph->data()->end() - 1)->value;
        QVERIFY(std::abs(last - (a.back().value + b.back().value) / 2) < 1e-9);
        found = true;
      }
      QVERIFY(found);
    }
    // Live: a member's new point past the others' is the group's curve there alone (a mean over
    // one), and the band follows; the other members' points stay averaged.
    {
      const auto& group = display->groups().front();
      const int64_t member = group.members[1];
      QString name;
      for (const auto& n : plot->curveNames())
        if (n.startsWith(QString::fromStdString(group.label))) name = n;
      const size_t before = plot->pointCount(name);
      fl::gui::RunView* view = w->views().find(member);
      const double lastStep = view->metrics().at("train/loss").steps.back();
      fl::gui::RunDeltas deltas;
      deltas[member] = view->apply({fl::Event{
          fl::MetricEvent{"train/loss", static_cast<int64_t>(lastStep) + 7, 1.0, 0.25}}});
      display->apply(deltas);
      QCOMPARE(plot->pointCount(name), before + 1);
      QCOMPARE(plot->curveX(name).back(), lastStep + 7);
      QVERIFY(plot->hasBand(name));
      // The hover says the new point is one member's, where the legend counts the group's two.
      plot->refresh();
      plot->plot()->replot(QCustomPlot::rpImmediateRefresh);
      const auto* axes = plot->plot();
      const int middle = axes->axisRect()->rect().center().y();
      const auto at = [&](double step) {
        return QPoint(static_cast<int>(axes->xAxis->coordToPixel(step)), middle);
      };
      const QString alone = plot->readoutAt(at(lastStep + 7));
      QVERIFY2(alone.contains("(1 of 2 runs)"), qPrintable(alone));
      const QString both = plot->readoutAt(at(lastStep));
      QVERIFY2(!both.contains(" of 2 runs"), qPrintable(both));
    }
    // By head: the same two groups here, named by the key.
    w->runsDock()->setGroupBy(fl::gui::GroupBy::parse("key:head"));
    QCOMPARE(display->groups().size(), size_t(2));
    QVERIFY(display->groups()[0].label.starts_with("head="));
    // No grouping: every run its own curve again.
    w->runsDock()->setGroupBy({});
    QCOMPARE(plot->curveNames().size(), 4);

    // Pinned: the last run first in the dock, its name starred, the store's tag set.
    auto* table = w->runsTable()->model();
    auto idAtTop = [&] { return table->index(0, 0).data(Qt::UserRole).toLongLong(); };
    QCOMPARE(idAtTop(), ids[0]);
    w->pinRun(ids[3], true);
    QCOMPARE(idAtTop(), ids[3]);
    QVERIFY(table->index(0, RunsTableModel::kName).data().toString().startsWith("★ "));
    const auto tags = store.run(ids[3])->tags;
    QVERIFY(std::find(tags.begin(), tags.end(), "pinned") != tags.end());
    auto* menu = w->runsDock()->menuForRow(w->runsModel()->rowOf(ids[3]));
    QStringList actions;
    for (auto* a : menu->actions()) actions << a->text();
    QVERIFY2(actions.contains("Unpin"), qPrintable(actions.join(", ")));
    delete menu;
    w->pinRun(ids[3], false);
    QCOMPARE(idAtTop(), ids[0]);
    QVERIFY(store.run(ids[3])->tags.empty());
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
    QTest::newRow("run twice") << QStringList{"--open", "3,4,3"} << "--open: run 3 is given twice";
    // Qt's parser ended an unknown option with exit code 1, a failed run's code.
    QTest::newRow("unknown option") << QStringList{"--bogus"} << "Unknown option 'bogus'.";
    QTest::newRow("missing run") << QStringList{"--open", "42"} << "--open: there is no run 42 in ";
    QTest::newRow("bad study id") << QStringList{"--study", "x"}
                                  << "--study: 'x' is not a study id";
    QTest::newRow("missing study")
        << QStringList{"--study", "7"} << "--study: there is no study 7 in ";
    QTest::newRow("device alone") << QStringList{"--device", "cpu"}
                                  << "--device needs --start EXPERIMENT";
    QTest::newRow("screenshot alone")
        << QStringList{"--screenshot", "x.png"} << "--screenshot needs --start EXPERIMENT";
    QTest::newRow("malformed device")
        << QStringList{"--start", "fourier-head", "--device", "gpu"}
        << "--device: device must be auto, cpu, cuda or cuda:N, got 'gpu'";
    QTest::newRow("missing device") << QStringList{"--start", "fourier-head", "--device", "cuda:7"}
                                    << "--device: device 'cuda:7' requested, but ";
  }

  void theCommandLineRefusesMistakes() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QProcess gui;
    gui.setProcessChannelMode(QProcess::SeparateChannels);
    gui.start(QString::fromLocal8Bit(qgetenv("FOURIERLAB_GUI")),
              QStringList{"--db", m_dir.path() + "/cli-args.db"} + args);
    // A loaded CI machine: the GUI starts twice (see openmp_wait_policy.h).
    QVERIFY(gui.waitForFinished(120000));
    QCOMPARE(gui.exitCode(), 2);
    const QString err = QString::fromUtf8(gui.readAllStandardError());
    QVERIFY2(err.contains("error: " + message), qPrintable(err));
  }

  // Help needs no display; without one the lab says what is missing (Qt would abort).
  void helpNeedsNoDisplayAndAMissingDisplayIsSaid() {
    QProcessEnvironment headless = QProcessEnvironment::systemEnvironment();
    for (const char* variable : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
      headless.remove(variable);
    auto runGui = [&](const QStringList& args) {
      auto gui = std::make_unique<QProcess>();
      gui->setProcessEnvironment(headless);
      gui->start(QString::fromLocal8Bit(qgetenv("FOURIERLAB_GUI")), args);
      gui->waitForFinished(120000);
      return gui;
    };
    auto help = runGui({"--help"});
    QCOMPARE(help->exitStatus(), QProcess::NormalExit);
    QCOMPARE(help->exitCode(), 0);
    QVERIFY(QString::fromUtf8(help->readAllStandardOutput()).contains("--db <path>"));
    auto version = runGui({"--version"});
    QCOMPARE(version->exitCode(), 0);
    QVERIFY(QString::fromUtf8(version->readAllStandardOutput()).startsWith("FourierLab "));
    auto window = runGui({"--db", m_dir.path() + "/headless.db"});
    QCOMPARE(window->exitStatus(), QProcess::NormalExit);
    QCOMPARE(window->exitCode(), 2);
    const QString err = QString::fromUtf8(window->readAllStandardError());
    QVERIFY2(err.contains("error: no display to open the window on"), qPrintable(err));
    QVERIFY(!QFile::exists(m_dir.path() + "/headless.db"));  // nothing opened
  }

  void aQueuedRunStoppedBeforeItStartsIsRecordedCancelled() {
    auto w = makeWindow("queued.db");
    spin(*w, "epochs")->setValue(100000);
    w->launchPanel()->setParallelRuns(1);
    const int64_t first = w->launch();
    const int64_t second = w->launch();  // waits for the first: shown, and stopped while queued
    QVERIFY(w->queue()->isWaiting(second));
    QCOMPARE(runsCell(*w, second, RunsTableModel::kStatus), QString("waiting"));
    w->stopFocused();
    QCOMPARE(fl::toString(w->views().find(second)->status()),
             fl::toString(fl::RunStatus::Cancelled));
    fl::store::RunStore store((m_dir.path() + "/queued.db").toStdString());
    QCOMPARE(fl::toString(store.run(second)->status), fl::toString(fl::RunStatus::Cancelled));
    QVERIFY(first != second);
    w->queue()->cancelAll();
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 20000);
  }

  void aCorruptStoreIsRefusedWithExitThreeAndLeftAsItWas() {
    const QString path = notAStore("not-a-store.db");
    QFile file(path);
    QProcess gui;
    gui.start(QString::fromLocal8Bit(qgetenv("FOURIERLAB_GUI")), {"--db", path});
    // A loaded CI machine: the GUI starts twice (see openmp_wait_policy.h).
    QVERIFY(gui.waitForFinished(120000));
    QCOMPARE(gui.exitCode(), 3);
    const QString err = QString::fromUtf8(gui.readAllStandardError());
    QVERIFY2(err.contains("store error: ") && err.contains(path), qPrintable(err));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray(8192, 'x'));
  }

  // On a screen the store's refusal is a dialog that waits for a click: SIGTERM, SIGINT and
  // SIGHUP did nothing there until a kill -9. A signal closes it with the signal's exit code.
  void aSignalClosesTheStoreDialogWithItsExitCode() {
    const QString path = notAStore("not-a-store-either.db");
    QFile file(path);
    QProcess gui;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "minimal");  // dialogs as on a screen, with no screen
    gui.setProcessEnvironment(env);
    gui.start(QString::fromLocal8Bit(qgetenv("FOURIERLAB_GUI")), {"--db", path});
    QVERIFY(gui.waitForStarted());
    QString err;
    // Said on stderr just before the dialog shows; a signal before it shows closes it as well.
    QTRY_VERIFY_WITH_TIMEOUT(
        (err += QString::fromUtf8(gui.readAllStandardError()), err.contains("store error: ")),
        120000);
    ::kill(static_cast<pid_t>(gui.processId()), SIGTERM);
    QVERIFY(gui.waitForFinished(60000));
    QCOMPARE(gui.exitStatus(), QProcess::NormalExit);
    QCOMPARE(gui.exitCode(), 143);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray(8192, 'x'));
  }

  // History's Note… and Rename… used to open empty, so OK wiped the run's note and Return its
  // name. They start with what the run holds; Tag… lists its tags and removes one taken out.
  // The window's views of a run (legends, titles) follow a rename made here or by another
  // process, which they used to miss until the window was restarted.
  void historyEditsStartFromWhatTheRunHoldsAndViewsFollow() {
    auto w = makeWindow("edits.db");
    spin(*w, "epochs")->setValue(1);
    const int64_t a = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, a), 60000);
    const int64_t b = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, b), 60000);
    const std::string path = (m_dir.path() + "/edits.db").toStdString();
    fl::store::RunStore other(path);  // as `fourierlab-cli runs ...` would
    QTRY_COMPARE_WITH_TIMEOUT(fl::toString(other.run(b)->status),
                              fl::toString(fl::RunStatus::Finished), 5000);
    other.rename(a, "first");
    other.setNotes(a, "N=12 looks best; check seeds");
    other.addTags(a, {"x", "y"});
    w->compareRuns({a, b});
    QCOMPARE(w->views().find(a)->name(), std::string("first"));
    QMenu* configMenu = w->display()->configDiffButton()->menu();
    configMenu->popup(QPoint(0, 0));  // the comparison's table, seen once
    QVERIFY(QTest::qWaitForWindowExposed(configMenu));
    configMenu->hide();

    w->refreshHistory();
    // Selects `id` (0: every run), presses `button`, answers its dialog with `typed` (null:
    // OK as it opened) and returns what the dialog opened with.
    auto edit = [&](int64_t id, const QString& button, const QString& typed) {
      if (id)
        selectInHistory(*w, id);
      else
        w->history()->table()->selectAll();
      QString seen;
      answerNextInputDialog([&](QInputDialog* d) {
        seen = d->textValue();
        if (!typed.isNull()) d->setTextValue(typed);
        d->accept();
      });
      clickHistoryButton(*w, button);
      return seen;
    };
    QCOMPARE(edit(a, "Note…", QString()), QString("N=12 looks best; check seeds"));
    QCOMPARE(other.run(a)->notes, std::string("N=12 looks best; check seeds"));

    QCOMPARE(edit(a, "Rename…", "renamed"), QString("first"));
    QCOMPARE(other.run(a)->name, std::string("renamed"));
    QCOMPARE(w->views().find(a)->name(), std::string("renamed"));
    // Each edit says what it did in the status bar (they used to pass in silence).
    QCOMPARE(w->statusBar()->currentMessage(), QString("Renamed run #%1 to 'renamed'").arg(a));
    // A blank name is refused, as `runs rename` refuses it: it took the name off for good.
    QCOMPARE(edit(a, "Rename…", "   "), QString("renamed"));
    QCOMPARE(other.run(a)->name, std::string("renamed"));
    QCOMPARE(w->statusBar()->currentMessage(),
             QString("A name cannot be blank: run #%1 keeps its name").arg(a));
    // The field shows the whole name being replaced: at its default width it showed the end.
    const QString longName =
        "fourier_head · dataset gmm2, head fourier, frequencies 12, edited: epochs 20";
    other.rename(a, longName.toStdString());
    w->refreshHistory();
    int fieldWidth = 0, nameWidth = 0;
    QString shownName;
    answerNextInputDialog([&](QInputDialog* d) {
      const auto* field = d->findChild<QLineEdit*>();
      fieldWidth = field->contentsRect().width();
      nameWidth = field->fontMetrics().horizontalAdvance(d->textValue());
      shownName = d->textValue();
      d->reject();
    });
    clickHistoryButton(*w, "Rename…");
    QCOMPARE(shownName, longName);
    QVERIFY2(fieldWidth > nameWidth,
             qPrintable(QString("field %1 px, name %2 px").arg(fieldWidth).arg(nameWidth)));
    QCOMPARE(other.run(a)->name, longName.toStdString());  // cancelled: nothing changed
    other.rename(a, "renamed");
    w->refreshHistory();

    QCOMPARE(edit(a, "Tag…", "x, z"), QString("x, y"));
    QCOMPARE(w->statusBar()->currentMessage(), QString("Tagged run #%1: +z -y").arg(a));
    auto tags = other.run(a)->tags;
    std::sort(tags.begin(), tags.end());
    QCOMPARE(tags, (std::vector<std::string>{"x", "z"}));

    // Both selected: what they share is shown, and what only one holds is kept.
    QCOMPARE(edit(0, "Tag…", "shared"), QString());
    tags = other.run(a)->tags;
    std::sort(tags.begin(), tags.end());
    QCOMPARE(tags, (std::vector<std::string>{"shared", "x", "z"}));
    QCOMPARE(other.run(b)->tags, std::vector<std::string>{"shared"});

    // Archived, the run leaves the list: where it went is said.
    selectInHistory(*w, b);
    clickHistoryButton(*w, "Archive");
    QVERIFY(other.run(b)->archived);
    QCOMPARE(w->statusBar()->currentMessage(),
             QString("Archived run #%1: the status filter's \"archived\" lists it").arg(b));
    other.setArchived(b, false);
    w->refreshHistory();

    // One run opened: the config button shows everything it was trained with, its tags and
    // notes (it used to show nothing for a single run).
    w->openStoredRun(a);
    auto* button = w->display()->configDiffButton();
    QVERIFY(button->isVisibleTo(w.get()));
    // Its popup is the settings table's size, not the comparison's table's before it.
    configMenu->popup(QPoint(0, 0));
    QVERIFY(QTest::qWaitForWindowExposed(configMenu));
    const QSize table = w->display()->configDiffTable()->size();
    const QSize menu = configMenu->size();
    configMenu->hide();
    QVERIFY2(menu.width() >= table.width() && menu.height() >= table.height(),
             qPrintable(QString("menu %1x%2, table %3x%4")
                            .arg(menu.width())
                            .arg(menu.height())
                            .arg(table.width())
                            .arg(table.height())));
    QCOMPARE(button->text(), QString("Config: run %1 ▾").arg(a));
    auto* settings = w->display()->configDiffModel();
    std::map<QString, QString> value;
    for (int row = 0; row < settings->rowCount(); ++row)
      value[settings->text(row, "setting")] = settings->text(row, "value");
    QCOMPARE(value["samples"], QString("400"));
    QCOMPARE(value["epochs"], QString("1"));
    QCOMPARE(value["notes"], QString("N=12 looks best; check seeds"));
    QCOMPARE(value["tags"], QString("shared, x, z"));  // as the store lists them
    QCOMPARE(value["experiment"], QString("fourier-head"));
    QCOMPARE(value["trained on"], QString::fromStdString(other.run(a)->device));
    QCOMPARE(value["trained"], QString("alone"));  // launched from the window: not batched
    // A setting the run does not use reads so (a linear head's frequencies).
    if (other.run(a)->config["head"] == "linear")
      QCOMPARE(value["frequencies"], QString("(not used)"));

    // Tags and notes edited elsewhere (the CLI) reach the open table at the next look at the
    // store: it kept the ones it was opened with.
    other.addTags(a, {"later"});
    other.setNotes(a, "seed 2 disagrees");
    w->followStoreChanges();
    value.clear();
    for (int row = 0; row < settings->rowCount(); ++row)
      value[settings->text(row, "setting")] = settings->text(row, "value");
    QCOMPARE(value["tags"], QString("later, shared, x, z"));
    QCOMPARE(value["notes"], QString("seed 2 disagrees"));
  }

  // A run's History row used to read "running" after it finished until the tab was left and
  // shown again: with History shown, a run's end refreshes it.
  void historyShownFollowsARunToItsEnd() {
    auto w = makeWindow("history-live.db");
    spin(*w, "epochs")->setValue(2);
    w->history()->filterText()->clear();  // an earlier session's filter is restored
    w->tabs()->setCurrentWidget(w->history());
    const int64_t id = w->launch();
    w->tabs()->setCurrentWidget(w->history());
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id), 60000);
    auto* model = w->history()->model();
    // Its columns are the listed runs' (none before the run's row is listed).
    auto statusOfRun = [&] {
      return model->index(model->rowOf(id), model->column("status")).data().toString();
    };
    QTRY_COMPARE_WITH_TIMEOUT(statusOfRun(), QString("finished"), 10000);

    // Another process's run (the CLI's) appears, then reads finished, and a rename reaches the
    // shown run, each at the next look at the store, without F5.
    fl::store::RunStore other((m_dir.path() + "/history-live.db").toStdString());
    const int64_t elsewhere =
        other.createRun({"fourier-head", "from the CLI", {{"head", "linear"}}, {}, {}});
    w->followStoreChanges();
    QVERIFY(model->rowOf(elsewhere) >= 0);
    other.finishRun(elsewhere, fl::RunStatus::Finished, "");
    w->followStoreChanges();
    QCOMPARE(model->index(model->rowOf(elsewhere), model->column("status")).data().toString(),
             QString("finished"));
    w->openStoredRun(id);
    other.rename(id, "renamed elsewhere");
    w->followStoreChanges();
    QCOMPARE(w->views().find(id)->name(), std::string("renamed elsewhere"));
    // A CLI run killed (kill -9) while the window looks: it read "running" until another
    // process opened the store. The window's next look marks it interrupted.
    const int64_t killed =
        other.createRun({"fourier-head", "killed", {{"head", "linear"}}, {}, {}});
    other.markRunning(killed, "cpu", 100, fl::testing::deadProcess());
    w->tabs()->setCurrentWidget(w->history());
    w->followStoreChanges();
    QCOMPARE(model->index(model->rowOf(killed), model->column("status")).data().toString(),
             QString("interrupted"));
    QVERIFY2(w->store().run(killed)->message.find("ended without finishing") != std::string::npos,
             w->store().run(killed)->message.c_str());
    QCOMPARE(fl::toString(w->store().run(id)->status), std::string("finished"));  // its own
  }

  // Unnamed runs are labelled by what sets them apart: a choice alone, a number with its key
  // (a legend read "#12 5 12 fourier 500 1": bare numbers side by side say nothing). So are
  // runs that share a name ("defaults, edited: epochs 2", launched twice with two heads): the
  // name alone told their curves apart only by the run ids.
  // A run named by its edits beside study runs that share some of them: the shared ones go,
  // what sets it apart stays (cut to "defa… frequencies 4", it hid its dataset and lr).
  void anEditedRunsLegendDropsTheEditsTheOthersShare() {
    const std::string path = (m_dir.path() + "/edits-shared.db").toStdString();
    std::vector<int64_t> ids;
    {
      fl::store::RunStore store(path);
      auto add = [&](const std::string& name, const nlohmann::json& config) {
        const int64_t id = store.createRun({"fourier-head", name, config, {}, {}});
        store.writeEvents(id, {fl::MetricEvent{"test/kl", 10, 0.1, 0.5}});
        store.finishRun(id, fl::RunStatus::Finished, "");
        ids.push_back(id);
      };
      add("sweep · frequencies=4 head=fourier seed=1",
          {{"head", "fourier"}, {"frequencies", 4}, {"epochs", 10}, {"seed", 1}});
      add("sweep · frequencies=4 head=fourier seed=2",
          {{"head", "fourier"}, {"frequencies", 4}, {"epochs", 10}, {"seed", 2}});
      add("defaults, edited: dataset beta, epochs 10, frequencies 4", {{"head", "fourier"},
                                                                       {"frequencies", 4},
                                                                       {"epochs", 10},
                                                                       {"dataset", "beta"},
                                                                       {"seed", 1}});
    }
    MainWindow w(m_registry, std::make_unique<fl::store::RunStore>(path));
    w.compareRuns(ids);
    QStringList curves;
    for (auto* plot : w.display()->dashboard()->metricPlots())
      if (plot->objectName() == "kl") curves = plot->curveNames();
    QVERIFY2(curves.contains(QString("#%1 defaults · dataset beta").arg(ids[2])),
             qPrintable(curves.join(" | ")));
  }

  void unnamedRunsAreLabelledByTheirDifferingSettings_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("unnamed") << QString();
    QTest::newRow("one name for both") << QString("defaults, edited: epochs 2");
  }

  void unnamedRunsAreLabelledByTheirDifferingSettings() {
    QFETCH(QString, name);
    const std::string path =
        (m_dir.path() + "/labels-" + QString::number(name.size()) + ".db").toStdString();
    std::vector<int64_t> ids;
    {
      fl::store::RunStore store(path);
      for (const auto& [head, samples] : {std::pair{"linear", 500}, std::pair{"fourier", 900}}) {
        const int64_t id = store.createRun({"fourier-head",
                                            name.toStdString(),
                                            {{"head", head}, {"samples", samples}, {"seed", 1}},
                                            {},
                                            {}});
        store.writeEvents(id, {fl::MetricEvent{"test/kl", 10, 0.1, 0.5}});
        store.finishRun(id, fl::RunStatus::Finished, "");
        ids.push_back(id);
      }
    }
    MainWindow w(m_registry, std::make_unique<fl::store::RunStore>(path));
    w.compareRuns(ids);
    QStringList curves;
    for (auto* plot : w.display()->dashboard()->metricPlots())
      if (plot->objectName() == "kl") curves = plot->curveNames();
    QVERIFY2(curves.contains(QString("#%1 linear samples=500").arg(ids[0])) &&
                 curves.contains(QString("#%1 fourier samples=900").arg(ids[1])),
             qPrintable(curves.join(" | ")));
    // The config diff's columns in the experiment's order (samples is declared before head),
    // as History's; they were alphabetical.
    auto* diff = w.display()->configDiffModel();
    QCOMPARE(diff->columnCount(), 3);
    QCOMPARE(diff->column("samples"), 1);
    QCOMPARE(diff->column("head"), 2);
  }

  // A group's curves per evaluation length came in text order (@128, @256, @512, @64): the
  // legend's line styles read out of order. They come as a lone run's do, by length.
  void aGroupsCurvesPerLengthComeInTheOrderOfTheLengths() {
    const std::string path = (m_dir.path() + "/group-lengths.db").toStdString();
    std::vector<int64_t> ids;
    {
      fl::store::RunStore store(path);
      for (int seed : {1, 2}) {
        const int64_t id =
            store.createRun({"fope", "", {{"position", "fope"}, {"seed", seed}}, {}, {}});
        for (const char* key : {"val/ppl@128", "val/ppl@256", "val/ppl@512", "val/ppl@64"})
          store.writeEvents(id, {fl::MetricEvent{key, 10, 0.1, 3.0 + seed},
                                 fl::MetricEvent{key, 20, 0.2, 2.0 + seed}});
        store.finishRun(id, fl::RunStatus::Finished, "");
        ids.push_back(id);
      }
    }
    MainWindow w(m_registry, std::make_unique<fl::store::RunStore>(path));
    w.compareRuns(ids);
    auto lengthsInOrder = [&] {
      const QCustomPlot* plot = plotIn(*w.display()->dashboard(), "ppl_curves")->plot();
      QStringList lengths;  // each curve's length, in the order the plot holds them
      for (int g = 0; g < plot->graphCount(); ++g) {
        const QString name = plot->graph(g)->name();
        const QString length = name.mid(name.lastIndexOf('@'));
        if (name.contains('@') && !plot->graph(g)->data()->isEmpty() && !lengths.contains(length))
          lengths << length;
      }
      return lengths;
    };
    const QStringList expected{"@64", "@128", "@256", "@512"};
    QCOMPARE(lengthsInOrder(), expected);  // two runs, each its own curves
    w.runsDock()->setGroupBy({fl::gui::GroupBy::Kind::Setting, {}});
    QCOMPARE(w.display()->groups().size(), size_t(1));
    QCOMPARE(lengthsInOrder(), expected);  // one group of both
  }

  // A store this user may not write used to be refused at start. It opens for browsing: its
  // runs open with their curves; Run, Run comparison, Run study, the Run menu and History's
  // edits are grey with the reason where Run's reason goes; asked anyway, nothing is written.
  void aReadOnlyStoreIsBrowsedAndNeverWritten() {
    const QString path = m_dir.path() + "/read-only.db";
    int64_t id = 0;
    {
      auto w = makeWindow("read-only.db");
      spin(*w, "epochs")->setValue(2);
      id = w->launch();
      QVERIFY(id > 0);
      QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id), 60000);
    }
    auto bytesOf = [&path] {
      QFile f(path);
      return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    const QByteArray before = bytesOf();
    QVERIFY(!before.isEmpty());
    {
      MainWindow w(m_registry,
                   std::make_unique<fl::store::RunStore>(path.toStdString(), /*readOnly=*/true));
      QCOMPARE(w.windowTitle(), QString("FourierLab (read-only store)"));
      w.launchPanel()->selectExperiment("fourier-head");
      auto* launch = w.launchPanel();
      QVERIFY(!launch->runButton()->isEnabled());
      QVERIFY(!launch->compareButton()->isEnabled());
      QVERIFY(launch->selectStudy("table1"));
      QVERIFY(launch->studySummary()->text().startsWith("Run study makes"));  // a valid plan
      QVERIFY(!launch->studyButton()->isEnabled());
      QVERIFY2(launch->problemLine()->text().startsWith("Read-only store: " + path +
                                                        " is read-only for this user, so"),
               qPrintable(launch->problemLine()->text()));
      for (auto* action : w.menuBar()->actions()[1]->menu()->actions())
        if (action->text().startsWith("Run") || action->text().startsWith("Start"))
          QVERIFY2(!action->isEnabled(), qPrintable(action->text()));
      for (auto* button : w.history()->findChildren<QPushButton*>()) {
        const bool edits =
            QStringList{"Resume", "Rename…", "Tag…", "Note…", "Archive", "Delete…"}.contains(
                button->text());
        const bool reads = QStringList{"Open", "Compare", "Export…"}.contains(button->text());
        if (edits) QVERIFY2(!button->isEnabled(), qPrintable(button->text()));
        if (reads) QVERIFY2(button->isEnabled(), qPrintable(button->text()));
      }
      w.openStoredRun(id);
      QCOMPARE(pointsIn(*w.display()->dashboard(), "kl", id), size_t(2));
      QCOMPARE(w.launch(), int64_t(0));
      QCOMPARE(w.launchStudy(), int64_t(0));
      QVERIFY(!w.resumeRun(id));
      w.pinRun(id, true);
      QVERIFY(w.statusBar()->currentMessage().startsWith("Read-only store: "));
    }
    QCOMPARE(bytesOf(), before);
    {
      // A store on a full disk is browsed the same way, and says why.
      auto full = std::make_unique<fl::store::RunStore>(path.toStdString(), /*readOnly=*/true);
      full->setReadOnlyBecause("cannot be written (no space left for it)");
      MainWindow w(m_registry, std::move(full));
      w.launchPanel()->selectExperiment("fourier-head");
      QVERIFY2(w.launchPanel()->problemLine()->text().startsWith(
                   "Read-only store: " + path + " cannot be written (no space left for it), so") &&
                   w.launchPanel()->problemLine()->text().endsWith(
                       "make room on its disk and open it again."),
               qPrintable(w.launchPanel()->problemLine()->text()));
    }
    fl::store::RunStore reread(path.toStdString(), /*readOnly=*/true);
    QCOMPARE(reread.listRuns({}).size(), size_t(1));
    QVERIFY(reread.run(id)->tags.empty());
  }

  // `fourierlab --open 1 --db missing/x.db` used to create x.db. Opening runs reads: it never
  // creates the store.
  void openingRunsOfAMissingStoreCreatesNothing() {
    const QString folder = m_dir.path() + "/missing";
    QProcess gui;
    gui.start(QString::fromLocal8Bit(qgetenv("FOURIERLAB_GUI")),
              {"--open", "1", "--db", folder + "/x.db"});
    QVERIFY(gui.waitForFinished(120000));
    QCOMPARE(gui.exitCode(), 3);
    const QString err = QString::fromUtf8(gui.readAllStandardError());
    QVERIFY2(err.contains(folder + "/x.db: no run store at this path"), qPrintable(err));
    QVERIFY(!QFileInfo::exists(folder));
  }

  // A store given by path whose folder does not exist (a typo) is refused, exit 2, naming the
  // folder: the lab made the folders and trained into a store no one would look in.
  void aNewStoreIsNotMadeInAFolderThatDoesNotExist() {
    const QString folder = m_dir.path() + "/typo/dir";
    QProcess gui;
    gui.start(QString::fromLocal8Bit(qgetenv("FOURIERLAB_GUI")),
              {"--db", folder + "/x.db", "--start", "fourier-head"});
    QVERIFY(gui.waitForFinished(120000));
    QCOMPARE(gui.exitCode(), 2);
    const QString err = QString::fromUtf8(gui.readAllStandardError());
    QVERIFY2(err.contains("its folder " + folder + " does not exist"), qPrintable(err));
    QVERIFY(!QFileInfo::exists(m_dir.path() + "/typo"));
  }

  // An empty or blank --db (a script's unset variable) is refused, exit 2, as the CLI refuses
  // it: it had opened the default store, as if --db were left out.
  void anEmptyStoreOptionIsRefused() {
    for (const QString& given : {QString(""), QString("  ")}) {
      QProcess gui;
      gui.setWorkingDirectory(m_dir.path());
      gui.start(QString::fromLocal8Bit(qgetenv("FOURIERLAB_GUI")),
                {"--db", given, "--start", "fourier-head"});
      QVERIFY(gui.waitForFinished(120000));
      QCOMPARE(gui.exitCode(), 2);
      const QString err = QString::fromUtf8(gui.readAllStandardError());
      QVERIFY2(err.contains(QString("--db: is %1; give a store file, or leave --db out for the "
                                    "default store")
                                .arg(given.isEmpty() ? "empty" : "blank")),
               qPrintable(err));
      if (!given.isEmpty()) QVERIFY(!QFileInfo::exists(m_dir.path() + "/" + given));
    }
  }

  // SIGTERM (a logout, `kill`) used to end the lab like kill -9: its runs stayed `running` with
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
    // Every device LibTorch offers is listed by name; one the machine lacks is greyed, saying why.
    auto* box = w->launchPanel()->findChild<QComboBox*>("device");
    QVERIFY(box);
    const auto choices = fl::deviceChoices();
    QCOMPARE(box->count(), int(choices.size()));
    auto* items = qobject_cast<QStandardItemModel*>(box->model());
    for (int i = 0; i < box->count(); ++i) {
      QCOMPARE(box->itemText(i), QString::fromStdString(choices[size_t(i)].label));
      const bool greyed = !choices[size_t(i)].unavailableReason.empty();
      QCOMPARE(items->item(i)->isEnabled(), !greyed);
      if (greyed) {
        QCOMPARE(box->itemData(i, Qt::ToolTipRole).toString(),
                 QString::fromStdString(choices[size_t(i)].unavailableReason));
        QVERIFY(!w->launchPanel()->selectDevice(box->itemData(i).toString()));
      }
    }
  }

  void settingsAreKeptBetweenSessions() {
    int runsHeight = 0;
    {
      auto w = makeWindow("settings.db");
      QVERIFY(w->launchPanel()->selectPreset("paper-gmm"));
      QVERIFY(w->launchPanel()->selectDevice("cpu"));
      w->launchPanel()->setParallelRuns(2);
      w->display()->smoothing()->setValue(40);
      w->display()->layoutChoice()->setCurrentIndex(1);  // tabs
      w->display()->xAxisChoice()->setCurrentIndex(static_cast<int>(fl::gui::XAxis::WallTime));
      w->runsDock()->setGroupBy(fl::gui::GroupBy::parse("key:head"));
      w->show();
      QVERIFY(QTest::qWaitForWindowExposed(w.get()));
      runsHeight = w->runsDock()->height();
      titleBar(w->runsDock())->setCollapsed(true);
      w->history()->filterText()->setText("abc");
      w->history()->sortByKey("name", Qt::DescendingOrder);
      w->history()->setColumnShown("status", false);  // the header menu's untick
      w->show();
      QVERIFY(w->close());  // closing saves them
    }
    auto w = makeWindow("settings.db");
    QCOMPARE(w->launchPanel()->presetName(), QString("paper-gmm"));
    QCOMPARE(w->launchPanel()->device(), QString("cpu"));
    QCOMPARE(w->launchPanel()->parallelRuns(), 2);
    QCOMPARE(w->display()->smoothing()->value(), 40);
    QCOMPARE(w->display()->dashboard()->layoutMode(), fl::widgets::Dashboard::Layout::Tabs);
    QCOMPARE(w->display()->xAxis(), fl::gui::XAxis::WallTime);
    QCOMPARE(w->display()->xAxisChoice()->currentIndex(),
             static_cast<int>(fl::gui::XAxis::WallTime));
    QVERIFY(w->display()->groupBy() == fl::gui::GroupBy::parse("key:head"));
    QCOMPARE(w->runsDock()->groupChoice()->currentText(), QString("Group: head"));
    QVERIFY(titleBar(w->runsDock())->collapsed());
    QVERIFY(!titleBar(w->configureDock())->collapsed());
    // Opened again, the dock has the height it had before it was rolled up last session.
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    titleBar(w->runsDock())->setCollapsed(false);
    QTRY_COMPARE(w->runsDock()->height(), runsHeight);
    QCOMPARE(w->history()->filterText()->text(), QString("abc"));
    QCOMPARE(w->history()->sortKey(), QString("name"));
    // A restored filter says so above the runs: a short list read as a store that lost runs.
    w->history()->refresh();
    auto* title = w->history()->findChild<QLabel*>("runsTitle");
    QVERIFY(title);
    const qint64 stored =
        fl::store::RunStore((m_dir.path() + "/settings.db").toStdString()).listedRunCount();
    QVERIFY2(title->text().contains(QString(" of %1, filtered by text)").arg(stored)),
             qPrintable(title->text()));
    w->history()->filterText()->clear();
    w->history()->refresh();
    QCOMPARE(title->text(), QString("<b>Runs</b> (%1)").arg(stored));
    // A column hidden from the header's menu stays hidden by its key, in a later session too.
    QCOMPARE(w->history()->hiddenColumns(), QStringList{"status"});
    {
      fl::store::RunStore store((m_dir.path() + "/settings.db").toStdString());
      const int64_t id = store.createRun({"fourier-head", "listed", {{"head", "linear"}}, {}, {}});
      store.writeEvents(id, {fl::MetricEvent{"test/kl", 4, 0.1, 0.5},
                             fl::MetricEvent{"system/rss_mib", 4, 0.1, 812.0}});
    }
    w->history()->refresh();
    {
      auto* history = w->history();
      const auto hidden = [history](const QString& key) {
        const int c = history->model()->column(key);
        return c >= 0 && history->table()->isColumnHidden(c);
      };
      QVERIFY(history->model()->column("status") >= 0);
      QVERIFY(hidden("status"));
      QVERIFY(!hidden("experiment"));
      // The machine's figures are hidden until asked for; the model's metrics are shown.
      const QString rss = "metric:system/rss_mib:last";
      QVERIFY(history->model()->column(rss) >= 0);
      QVERIFY(hidden(rss));
      QVERIFY(!hidden("metric:test/kl:last"));
      history->setColumnShown("status", true);
      history->setColumnShown(rss, true);
      QVERIFY(!hidden("status"));
      QVERIFY(!hidden(rss));
      // Ticked on, a machine figure stays shown in the next session.
      QSettings settings("FourierLab", "FourierLab");
      history->saveSettings(settings);
      history->setColumnShown(rss, false);
      QVERIFY(hidden(rss));
      history->restoreSettings(settings);
      history->refresh();
      QVERIFY(!hidden(rss));
    }
    QSettings("FourierLab", "FourierLab").clear();  // the other tests start from nothing
  }

  // Each experiment's form comes back in the next window as it was left, its preset and edits:
  // a FoPE form shrunk for the CPU came back at the preset's d_model 128 and an empty corpus.
  void formsComeBackInTheNextWindowAsTheyWereLeft() {
    QSettings("FourierLab", "FourierLab").clear();
    {
      auto store =
          std::make_unique<fl::store::RunStore>((m_dir.path() + "/forms.db").toStdString());
      MainWindow first(m_registry, std::move(store));
      QVERIFY(first.launchPanel()->selectExperiment("fope"));
      QVERIFY(first.launchPanel()->selectPreset("tiny"));
      spin(first, "d_model")->setValue(32);
      QVERIFY(first.launchPanel()->selectExperiment("fourier-head"));
      spin(first, "epochs")->setValue(7);
      first.show();
      QVERIFY(QTest::qWaitForWindowExposed(&first));
      QVERIFY(first.close());
    }
    auto store = std::make_unique<fl::store::RunStore>((m_dir.path() + "/forms.db").toStdString());
    MainWindow again(m_registry, std::move(store));
    QCOMPARE(again.launchPanel()->experiment()->name(), std::string("fourier-head"));
    QCOMPARE(spin(again, "epochs")->value(), 7);
    QVERIFY(again.launchPanel()->presetModified());
    QVERIFY(again.launchPanel()->selectExperiment("fope"));
    QCOMPARE(again.launchPanel()->presetName(), QString("tiny"));
    QCOMPARE(spin(again, "d_model")->value(), 32);
    QSettings("FourierLab", "FourierLab").clear();  // the other tests start from nothing
  }

  // On a laptop's screen the first window takes the whole screen (at 90% of 1280x720 the
  // study's table showed one row); a window opened before keeps the state it was closed in.
  void theFirstWindowOnASmallScreenIsMaximized() {
    QSettings("FourierLab", "FourierLab").clear();
    const QSize screen = QGuiApplication::primaryScreen()->availableGeometry().size();
    QVERIFY2(screen.width() < 1600 || screen.height() < 900,
             qPrintable(QString("this test needs a small screen, not %1x%2")
                            .arg(screen.width())
                            .arg(screen.height())));
    {
      auto store =
          std::make_unique<fl::store::RunStore>((m_dir.path() + "/first-window.db").toStdString());
      MainWindow first(m_registry, std::move(store));
      QVERIFY(first.windowState() & Qt::WindowMaximized);
      first.setWindowState(Qt::WindowNoState);
      first.resize(700, 500);
      first.show();
      QVERIFY(QTest::qWaitForWindowExposed(&first));
      QVERIFY(first.close());  // saves a normal window
    }
    auto store =
        std::make_unique<fl::store::RunStore>((m_dir.path() + "/first-window.db").toStdString());
    {
      MainWindow again(m_registry, std::move(store));
      QVERIFY(!(again.windowState() & Qt::WindowMaximized));
      // Kept from a larger screen (1500x950, this one is smaller): it opens as a first window,
      // taking the screen, where it was shrunk to a small window on a small screen.
      again.setWindowState(Qt::WindowNoState);
      again.resize(1500, 950);
      again.show();
      QVERIFY(QTest::qWaitForWindowExposed(&again));
      QVERIFY(again.close());
    }
    auto smaller =
        std::make_unique<fl::store::RunStore>((m_dir.path() + "/first-window.db").toStdString());
    MainWindow onSmallerScreen(m_registry, std::move(smaller));
    QVERIFY(onSmallerScreen.windowState() & Qt::WindowMaximized);
    QCOMPARE(onSmallerScreen.size(), screen);
    QSettings("FourierLab", "FourierLab").clear();  // the other tests start from nothing
  }

  // A first window gives the Runs dock its few rows once it is shown: asked for before, the
  // first layout left the dock at its minimum, one row and a half at 1280x720.
  void aFirstWindowGivesTheRunsDockItsRowsAndColumnsTheirWidths() {
    QSettings("FourierLab", "FourierLab").clear();
    auto w = makeWindow("first-rows.db");
    w->resize(1280, 720);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    QTRY_COMPARE(w->runsDock()->height(), w->runsDock()->sizeHint().height());
    QVERIFY(w->runsDock()->height() > w->runsDock()->minimumSizeHint().height());
    // Its columns are as wide as what they hold, the name's the widest but the verdict's: at
    // 100 px each, a name of an edited preset wrapped after its first two words.
    QTableView* table = w->runsTable();
    const QFontMetrics metrics(table->font());
    using Model = fl::gui::RunsTableModel;
    const std::pair<int, QString> holds[] = {
        {Model::kRun, "#12345"},         {Model::kName, "demo, edited: epochs 600"},
        {Model::kStatus, "interrupted"}, {Model::kProgress, "step 250000/250000"},
        {Model::kEta, "12:34:56"},       {Model::kDevice, "cuda:0"}};
    for (const auto& [column, text] : holds)
      QVERIFY2(table->columnWidth(column) >= metrics.horizontalAdvance(text) + 8, qPrintable(text));
    for (int column : {Model::kStatus, Model::kEta, Model::kThreads, Model::kDevice})
      QVERIFY(table->columnWidth(Model::kName) > table->columnWidth(column));
    QVERIFY(table->columnWidth(Model::kVerdict) > table->columnWidth(Model::kName));
    // Rows of one line (a longer text ends in "…"): three runs took the height of two lines
    // each, two of them cut in half.
    QVERIFY(!table->wordWrap());
    QVERIFY(table->verticalHeader()->defaultSectionSize() < 2 * metrics.height());
    QSettings("FourierLab", "FourierLab").clear();  // the other tests start from nothing
  }

  // At 1280 x 720 the plots get the window: with both docks rolled up to their bars the Live
  // tab holds most of the width and height, and each dock comes back at the size it had.
  void docksRollUpToTheirBarsAndThePlotsGetTheRoom() {
    auto w = makeWindow("docks.db");
    w->resize(1280, 720);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    // Every tab fits the window: none holds it wider than the screen.
    for (int i = 0; i < w->tabs()->count(); ++i)
      QVERIFY2(w->tabs()->widget(i)->minimumSizeHint().width() <= 900,
               qPrintable(w->tabs()->tabText(i)));
    QCOMPARE(w->width(), 1280);
    auto* runs = titleBar(w->runsDock());
    auto* configure = titleBar(w->configureDock());
    QVERIFY(runs && configure);
    QTRY_VERIFY(w->runsDock()->widget()->isVisible());
    const int runsHeight = w->runsDock()->height();
    const int configureWidth = w->configureDock()->width();
    QTest::mouseDClick(runs, Qt::LeftButton, {}, QPoint(runs->width() / 2, runs->height() / 2));
    QVERIFY(runs->collapsed());
    configure->collapseButton()->click();
    QVERIFY(configure->collapsed());
    QVERIFY(!w->runsDock()->widget()->isVisible() && !w->configureDock()->widget()->isVisible());
    // The Configure dock is a strip along the edge, the Runs dock one bar.
    QTRY_VERIFY(w->configureDock()->width() <= 40);
    QTRY_VERIFY(w->runsDock()->height() <= 40);
    QTRY_VERIFY2(w->tabs()->width() >= 1200 && w->tabs()->height() >= 600,
                 qPrintable(QString("%1 x %2").arg(w->tabs()->width()).arg(w->tabs()->height())));
    runs->collapseButton()->click();
    configure->setCollapsed(false);
    QTRY_COMPARE(w->runsDock()->height(), runsHeight);
    QTRY_COMPARE(w->configureDock()->width(), configureWidth);
    QVERIFY(w->runsDock()->widget()->isVisible() && w->configureDock()->widget()->isVisible());
  }

  // A first start sizes the window to the screen it opens on; Parallel runs starts at auto,
  // which the budget fills in (2 runs x 1 thread on 2 cores for the Fourier head, not 4).
  void aFirstWindowFitsItsScreenAndParallelRunsIsAuto() {
    QSettings("FourierLab", "FourierLab").clear();
    auto w = makeWindow("first.db");
    const QRect screen = w->screen()->availableGeometry();
    QVERIFY(w->width() <= screen.width() && w->height() <= screen.height());
    QCOMPARE(w->launchPanel()->parallelRuns(), 0);
    auto* parallel = w->launchPanel()->findChildren<QSpinBox*>().front();
    QVERIFY2(parallel->specialValueText().startsWith("auto ("),
             qPrintable(parallel->specialValueText()));
    QCOMPARE(w->queue()->requestedParallel(), 0);
  }

  void stopCancelsTheRunAndResumeKeepsItsRow() {
    auto w = makeWindow("stop.db");
    spin(*w, "epochs")->setValue(6);
    spin(*w, "checkpoint_every")->setValue(1);
    spin(*w, "samples")->setValue(20000);  // 500 steps an epoch
    const int64_t id = w->launch();
    fl::store::RunStore store((m_dir.path() + "/stop.db").toStdString());
    QTRY_VERIFY_WITH_TIMEOUT(!store.checkpoints(id).empty(), 60000);
    w->stopFocused();
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id), 10000);
    if (w->views().find(id)->status() == fl::RunStatus::Finished)
      QSKIP("it finished before the stop");
    QCOMPARE(fl::toString(w->views().find(id)->status()), fl::toString(fl::RunStatus::Cancelled));
    QTRY_COMPARE_WITH_TIMEOUT(fl::toString(store.run(id)->status),
                              fl::toString(fl::RunStatus::Cancelled), 5000);
    // Cancelling keeps the work: a checkpoint where it stopped, so it resumes from there.
    const auto message = store.run(id)->message;
    QVERIFY2(message.find("; checkpoint saved") != std::string::npos, message.c_str());
    const int64_t stoppedAt = std::stoll(message.substr(std::string("cancelled after ").size()));
    QTRY_VERIFY_WITH_TIMEOUT(
        !store.checkpoints(id).empty() && store.checkpoints(id).back().step == stoppedAt, 5000);
    // Resumed from the run's row in the Runs dock, as from History, once the queue has heard
    // the run end (its store writer closed).
    QTRY_VERIFY_WITH_TIMEOUT(!w->runsModel()->isLive(id), 10000);
    auto* dock = w->findChild<fl::gui::RunsDock*>();
    QVERIFY(dock);
    QMenu* menu = dock->menuForRow(w->runsModel()->rowOf(id));
    QVERIFY(menu);
    const auto actions = menu->actions();
    auto action = [&](const QString& start) {
      auto it = std::find_if(actions.begin(), actions.end(),
                             [&](QAction* a) { return a->text().startsWith(start); });
      return it == actions.end() ? nullptr : *it;
    };
    QVERIFY(action("Resume") && action("Resume")->isEnabled());
    QVERIFY(action("Stop") && !action("Stop")->isEnabled());
    action("Resume")->trigger();
    delete menu;
    QVERIFY(w->runsModel()->isLive(id));
    // Where it continues is said (a killed run's later steps are dropped and trained again).
    QVERIFY2(w->statusBar()->currentMessage().startsWith(
                 QString("Resumed run #%1 from its checkpoint at step %2").arg(id).arg(stoppedAt)),
             qPrintable(w->statusBar()->currentMessage()));
    QCOMPARE(w->runsModel()->rowCount(), 1);  // resuming adds no second row
    // Until its first evaluation after the resume, the panels show what the run had drawn at
    // its checkpoint: the learned PDF is kept at its latest step only, and that step stays.
    auto* pdf = qobject_cast<fl::widgets::SnapshotPlot*>(w->display()->dashboard()->panel("pdf"));
    QVERIFY(pdf);
    QVERIFY2(pdf->caption().startsWith("step "), qPrintable(pdf->caption()));
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id), 60000);
    QTRY_COMPARE_WITH_TIMEOUT(fl::toString(store.run(id)->status),
                              fl::toString(fl::RunStatus::Finished), 5000);
    const auto kl = store.metric(id, "test/kl");
    QCOMPARE(kl.size(), size_t(6));  // one per epoch, none twice
    for (size_t i = 0; i < kl.size(); ++i) QCOMPARE(kl[i].step, int64_t(500 * (i + 1)));
    // Shown, the run is drawn whole: its past from the store, the rest from the resumed session.
    QCOMPARE(pointsIn(*w->display()->dashboard(), "kl", id), size_t(6));
    w->openStoredRun(id);
    QCOMPARE(pointsIn(*w->display()->dashboard(), "kl", id), size_t(6));
  }

  // Resuming one arm of a comparison keeps the comparison, that arm focused: it had been shown
  // alone, the others unticked. Until it starts, its row says what comes, not how its last
  // attempt ended ("cancelled after 32202 steps; checkpoint saved" beside "waiting").
  void resumingOneArmKeepsTheComparison() {
    auto w = makeWindow("resume-arm.db");
    spin(*w, "epochs")->setValue(100000);
    spin(*w, "checkpoint_every")->setValue(1);
    w->launchPanel()->chooseVariants({"linear", "fourier N=12"});
    const auto ids = w->launchComparison();
    QCOMPARE(ids.size(), size_t(2));
    fl::store::RunStore store((m_dir.path() + "/resume-arm.db").toStdString());
    QTRY_VERIFY_WITH_TIMEOUT(
        !store.checkpoints(ids[0]).empty() && !store.checkpoints(ids[1]).empty(), 60000);
    w->queue()->cancelAll();
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(!w->runsModel()->isLive(ids[1]), 10000);
    QCOMPARE(w->display()->shown().size(), size_t(2));
    // One slot: the first resumed trains, the second waits for it.
    w->queue()->setRequestedParallel(1);
    QVERIFY(w->resumeRun(ids[0]));
    w->display()->focusRun(ids[1]);  // focused while stopped, as after Ctrl+.
    QTRY_VERIFY(!w->runsDock()->stopButton()->isEnabled());
    QVERIFY(w->resumeRun(ids[1]));
    QVERIFY(w->queue()->isWaiting(ids[1]));
    QCOMPARE(w->display()->focused(), ids[1]);
    QCOMPARE(std::set<int64_t>(w->display()->shown().begin(), w->display()->shown().end()),
             std::set<int64_t>(ids.begin(), ids.end()));
    QVERIFY2(
        w->views().find(ids[1])->message().rfind("resumes from its checkpoint at step ", 0) == 0,
        w->views().find(ids[1])->message().c_str());
    // Waiting, it can be stopped: Stop had stayed grey, "nothing to stop". Stopped so, it says
    // it had trained: "cancelled before it started" read as a run that never had.
    QVERIFY(w->runsDock()->stopButton()->isEnabled());
    w->runsDock()->stopButton()->click();
    QTRY_VERIFY(!w->queue()->isLive(ids[1]));
    QVERIFY2(
        w->views().find(ids[1])->message().rfind("cancelled before its resume from step ", 0) == 0,
        w->views().find(ids[1])->message().c_str());
    QVERIFY(!store.checkpoints(ids[1]).empty());
    w->queue()->cancelAll();
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 30000);
  }

  // A crashed window (kill -9) left its run `running`; the next window marked it interrupted
  // and opened on an empty dock without a word of it. It shows it, and says how to resume it;
  // a run resumed or deleted since is not shown.
  void runsACrashLeftAreShownByTheNextWindow() {
    const std::string db = (m_dir.path() + "/crashed.db").toStdString();
    int64_t crashed = 0, other = 0;
    {
      fl::store::RunStore store(db);
      crashed = store.createRun({"fourier-head", "killed", nlohmann::json::object(), {}, {}});
      other = store.createRun({"fourier-head", "also killed", nlohmann::json::object(), {}, {}});
      store.markRunning(crashed, "cpu", 100, fl::testing::deadProcess());
      store.markRunning(other, "cpu", 100, fl::testing::deadProcess());
    }
    auto w = makeWindow("crashed.db");
    QCOMPARE(w->store().interruptedAtOpen(), (std::vector<int64_t>{crashed, other}));
    w->store().deleteRuns({other});
    QVERIFY(w->reopenStoppedAtClose());
    QCOMPARE(w->runsModel()->rowCount(), 1);
    QCOMPARE(w->display()->focused(), crashed);
    QCOMPARE(w->statusBar()->currentMessage(),
             QString("Run #%1 was interrupted: the process training it ended without finishing (a "
                     "crash or a kill). Resume in its row's menu continues it from its last "
                     "checkpoint")
                 .arg(crashed));
    auto again = makeWindow("crashed.db");  // found once: the next open finds it marked already
    QVERIFY(again->store().interruptedAtOpen().empty());
    QVERIFY(!again->reopenStoppedAtClose());
    // A long queue's runs are History's to list, not one crowded comparison.
    std::vector<int64_t> many;
    {
      fl::store::RunStore store((m_dir.path() + "/crashed-many.db").toStdString());
      for (int i = 0; i < 10; ++i) {
        many.push_back(
            store.createRun({"fourier-head", "queued", nlohmann::json::object(), {}, {}}));
        store.markRunning(many.back(), "cpu", 0, fl::testing::deadProcess());
      }
    }
    auto crowded = makeWindow("crashed-many.db");
    QVERIFY(crowded->reopenStoppedAtClose());
    QCOMPARE(crowded->tabs()->currentWidget(), static_cast<QWidget*>(crowded->history()));
    QCOMPARE(crowded->history()->filterText()->text(), QString("interrupted"));
    QCOMPARE(crowded->runsModel()->rowCount(), 0);
    QVERIFY2(crowded->statusBar()->currentMessage().startsWith(
                 QString("Runs #%1, #%2, #%3, #%4 and 6 more were interrupted: ")
                     .arg(many[0])
                     .arg(many[1])
                     .arg(many[2])
                     .arg(many[3])),
             qPrintable(crowded->statusBar()->currentMessage()));
  }

  // Closing with runs training cancels them to a checkpoint; the next window on that store
  // opened with an empty Runs dock and no word of them. It shows them again, each with its
  // row (whose menu resumes it), and says so; only once, and only while they are stopped.
  void runsStoppedByClosingAreShownByTheNextWindow() {
    int64_t id = 0;
    {
      auto w = makeWindow("stopped-at-close.db");
      spin(*w, "epochs")->setValue(100000);
      id = w->launch();
      QTRY_VERIFY_WITH_TIMEOUT(w->queue()->trainingCount() == 1, 60000);
      w->closeCancellingRuns();
    }
    {
      auto other = makeWindow("another-store.db");  // another store's window finds nothing
      QVERIFY(!other->reopenStoppedAtClose());
    }
    auto w = makeWindow("stopped-at-close.db");
    QVERIFY(w->reopenStoppedAtClose());
    QCOMPARE(w->runsModel()->rowCount(), 1);
    QVERIFY(w->runsModel()->rowOf(id) >= 0);
    QCOMPARE(w->display()->focused(), id);
    QCOMPARE(w->statusBar()->currentMessage(),
             QString("Run #%1 was stopped when the window last closed: Resume in its row's menu "
                     "continues it")
                 .arg(id));
    auto again = makeWindow("stopped-at-close.db");
    QVERIFY(!again->reopenStoppedAtClose());  // said once
    QCOMPARE(fl::gui::describeStoppedAtClose({3, 4, 5}, 2),
             QString("Runs #3, #4 and #5 were stopped when the window last closed: Resume study "
                     "(the Study tab) trains study 2 on"));
    QCOMPARE(fl::gui::describeStoppedAtClose({3, 4}, 0),
             QString("Runs #3 and #4 were stopped when the window last closed: Resume in each "
                     "row's menu continues them"));
    // Another window on the store that closes with nothing training keeps the list.
    fl::gui::rememberStoppedAtClose(w->store().path(), {id}, 0);
    fl::gui::rememberStoppedAtClose(w->store().path(), {}, 0);
    QCOMPARE(fl::gui::takeStoppedAtClose(w->store().path()).runs, std::vector<int64_t>{id});
  }

  // A close waits, in sight, until the runs it stopped are over and the store holds their
  // ends: the window had gone at once while its process waited unseen, up to two minutes where
  // another process held the store's lock. The wait says what the store says, and its one
  // button gives up a wait on the store.
  void closingWaitsInSightUntilTheStoreHoldsTheStoppedRuns() {
    const std::string db = (m_dir.path() + "/closing-wait.db").toStdString();
    {
      auto w = makeWindow("closing-wait.db");
      w->show();
      spin(*w, "epochs")->setValue(100000);
      const int64_t id = w->launch();
      QTRY_VERIFY_WITH_TIMEOUT(w->queue()->trainingCount() == 1, 60000);
      w->closeCancellingRuns();
      QTRY_VERIFY_WITH_TIMEOUT(!w->isVisible(), 60000);
      // Closed only once the store says how the run ended.
      QCOMPARE(fl::toString(fl::store::RunStore(db, true).run(id)->status),
               std::string("cancelled"));
    }
    auto w = makeWindow("closing-wait.db");
    w->show();
    spin(*w, "epochs")->setValue(100000);
    const int64_t id = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(w->queue()->trainingCount() == 1, 60000);
    sqlite3* holder = nullptr;
    QCOMPARE(sqlite3_open(db.c_str(), &holder), SQLITE_OK);
    sqlite3_busy_timeout(holder, 10000);
    QCOMPARE(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
    const auto release = qScopeGuard([&] {
      sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
      sqlite3_close(holder);
    });
    w->closeCancellingRuns();
    auto* wait = w->findChild<QProgressDialog*>("closingWait");
    QVERIFY(wait);
    QVERIFY(wait->labelText().startsWith("Stopping 1 run(s): each ends its step"));
    // Nothing new is queued meanwhile (the close waits for an idle queue), and Escape does not
    // give the wait up while no button offers it.
    std::string refusal;
    QCOMPARE(w->queue()->add(w->launchPanel()->experiment(), w->launchPanel()->config().values,
                             "late", &refusal),
             int64_t(0));
    QCOMPARE(refusal, std::string("the window is closing: its runs are stopping"));
    QTRY_VERIFY_WITH_TIMEOUT(wait->isVisible(), 10000);  // shown once the close takes a while
    qobject_cast<fl::gui::ClosingWait*>(wait)->reject();
    QVERIFY(wait->isVisible() && w->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(
        wait->labelText().contains(QString("Store: not taking the writes of run %1 (").arg(id)),
        60000);
    QVERIFY2(wait->labelText().contains("Quit without waiting loses what the store has not "
                                        "taken"),
             qPrintable(wait->labelText()));
    QVERIFY(w->isVisible());
    QCOMPARE(w->queue()->trainingCount(), 0);  // stopped: its writes wait for the lock
    const auto buttons = wait->findChildren<QPushButton*>();
    auto quit = std::find_if(buttons.begin(), buttons.end(),
                             [](QPushButton* b) { return b->text() == "Quit without waiting"; });
    QVERIFY(quit != buttons.end());
    (*quit)->click();
    QTRY_VERIFY_WITH_TIMEOUT(!w->isVisible(), 60000);  // busy timeouts, not the two minutes
    QVERIFY(!w->queue()->isTraining(id));
  }

  // The store refusing a training run's writes (another process's lock here, a full disk
  // alike) is said in the status bar while it lasts, in words the run's end would otherwise be
  // the first to say; once the writes are taken it goes, and the bar says so.
  void aStoreRefusingWritesIsSaidWhileTheRunTrains() {
    auto w = makeWindow("refusing.db");
    spin(*w, "epochs")->setValue(100000);
    const int64_t id = w->launch();
    const std::string db = (m_dir.path() + "/refusing.db").toStdString();
    fl::store::RunStore store(db, /*readOnly=*/true);
    QTRY_VERIFY_WITH_TIMEOUT(!store.metric(id, "test/kl").empty(), 60000);
    auto* label = w->findChild<QLabel*>("storeWriteTrouble");
    QVERIFY(label);
    QVERIFY(label->isHidden());
    sqlite3* holder = nullptr;
    QCOMPARE(sqlite3_open(db.c_str(), &holder), SQLITE_OK);
    sqlite3_busy_timeout(holder, 10000);
    QCOMPARE(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
    const QString failing = QString("Store: not taking the writes of run %1 (").arg(id);
    QTRY_VERIFY_WITH_TIMEOUT(!label->isHidden() && label->text().startsWith(failing), 60000);
    const QString shown = label->text();
    sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(holder);
    QVERIFY2(shown.contains("another process holds the write lock"), qPrintable(shown));
    QCOMPARE(label->toolTip(), shown);
    QTRY_VERIFY_WITH_TIMEOUT(label->isHidden(), 60000);
    QCOMPARE(w->statusBar()->currentMessage(),
             QString("Store: taking the writes of run %1 again: nothing of it was lost").arg(id));
    // Refused again, and the run ends while it lasts (its last writes lost, which its end
    // says): the label goes with it rather than stay up naming a run no longer training.
    QCOMPARE(sqlite3_open(db.c_str(), &holder), SQLITE_OK);
    sqlite3_busy_timeout(holder, 10000);
    QCOMPARE(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
    QTRY_VERIFY_WITH_TIMEOUT(!label->isHidden(), 60000);
    // No patience: an ended run's writes are otherwise tried again for two minutes
    // (test_store_sink checks that wait).
    qputenv("FOURIERLAB_STORE_PATIENCE_MS", "0");
    const auto restore = qScopeGuard([] { qunsetenv("FOURIERLAB_STORE_PATIENCE_MS"); });
    w->stopFocused();
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id) && !w->runsModel()->isLive(id), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(label->isHidden(), 10000);
    sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(holder);
  }

  void exportWritesPlotsMetricsAndConfig() {
    auto w = makeWindow("export.db");
    spin(*w, "epochs")->setValue(2);
    w->resize(1400, 900);
    const int64_t id = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id), 60000);
    fl::store::RunStore store((m_dir.path() + "/export.db").toStdString());
    QTRY_VERIFY_WITH_TIMEOUT(store.metric(id, "test/kl").size() == 2, 5000);
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
    QFile csv(m_dir.path() + QString("/export/run-%1-metrics.csv").arg(id));
    QVERIFY(csv.open(QIODevice::ReadOnly) && csv.readAll().contains("test/kl"));

    // A comparison's plots hold every run: so do their names and the data beside them (they
    // were named after the first run alone, with its metrics and config only).
    spin(*w, "epochs")->setValue(3);
    const int64_t other = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, other), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(store.metric(other, "test/kl").size() == 3, 5000);
    w->compareRuns({id, other});
    const QString both = m_dir.path() + QString("/both/runs-%1-%2").arg(id).arg(other);
    const auto compared = w->exportShownRun(m_dir.path() + "/both");
    QVERIFY2(compared.contains(both + "-kl.png"), qPrintable(compared.join(", ")));
    QFile bothCsv(both + "-metrics.csv");
    QVERIFY(bothCsv.open(QIODevice::ReadOnly));
    const QString rows = QString::fromUtf8(bothCsv.readAll());
    QVERIFY(rows.contains(QString("\n%1,fourier-head,").arg(id)));
    QVERIFY(rows.contains(QString("\n%1,fourier-head,").arg(other)));
    for (auto run : {id, other}) {
      QFile runConfig(m_dir.path() + QString("/both/run-%1-config.json").arg(run));
      QVERIFY(runConfig.open(QIODevice::ReadOnly));
      QCOMPARE(nlohmann::json::parse(runConfig.readAll().toStdString())["epochs"].get<int>(),
               run == id ? 2 : 3);
    }
  }

  void probeReturnsTheDensityForChosenInputs() {
    auto w = makeWindow("probe.db");
    spin(*w, "epochs")->setValue(100000);
    const int64_t id = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(w->views().find(id)->progress().step > 0, 30000);
    auto* probe = w->display()->probePanel();
    QVERIFY(probe);
    // Before its first answer it says so, not "no data for this run yet" (its answers come
    // from a checkpoint, not from the run's records).
    if (!probe->plot()->latest("probe/pred_grid"))
      QCOMPARE(probe->plot()->caption(), QString("no answer yet"));
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
    QCOMPARE(fl::toString(truth->role), fl::toString(fl::SnapshotRole::Truth));
    // The true gmm2 density at (0.5, -0.25) peaks near z = 0.5 and z = -0.25.
    const auto& ticks = truth->axes.back().ticks;
    const auto peak =
        std::max_element(truth->data.begin(), truth->data.end()) - truth->data.begin();
    QVERIFY(std::abs(ticks[peak] - 0.5) < 0.05 || std::abs(ticks[peak] + 0.25) < 0.05);
    w->stopFocused();
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id), 10000);
  }

  // A run queued for a slot has no checkpoint yet: its probe says it waits, not "start or
  // resume it" of a run that starts by itself.
  void theProbeOfAWaitingRunSaysItWaits() {
    auto w = makeWindow("probe-waiting.db");
    spin(*w, "epochs")->setValue(100000);
    w->queue()->setRequestedParallel(1);
    w->launch();
    const int64_t waiting = w->launch();
    QVERIFY(w->queue()->isWaiting(waiting));
    QCOMPARE(w->display()->focused(), waiting);
    auto* probe = w->display()->probePanel();
    QVERIFY(probe);
    QTRY_COMPARE(probe->note(),
                 QString("This run waits for a free slot; the probe answers once it trains."));
    w->queue()->cancelAll();
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 30000);
  }

  void theProbeFollowsTheShownRunAndNeverShowsAnotherRunsCurve() {
    auto w = makeWindow("probe-switch.db");
    spin(*w, "epochs")->setValue(1);
    spin(*w, "samples")->setValue(200);
    auto* dataset = qobject_cast<QComboBox*>(w->launchPanel()->form()->field("dataset"));
    QVERIFY(dataset);
    dataset->setCurrentText("gaussian");
    const int64_t gaussian = w->launch();
    dataset->setCurrentText("beta");
    const int64_t beta = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, gaussian) && isOver(*w, beta), 60000);
    auto* probe = w->display()->probePanel();
    auto truthPeak = [&]() -> double {
      auto* truth = probe->plot()->latest("probe/true_grid");
      if (!truth) return NAN;
      const auto peak =
          std::max_element(truth->data.begin(), truth->data.end()) - truth->data.begin();
      return static_cast<double>(truth->axes.back().ticks[peak]);
    };
    w->display()->showRun(gaussian);
    probe->setInput("x", 0.5);
    probe->setInput("y", -0.25);
    // gaussian: z ~ N(y, 0.01) peaks at y = -0.25.
    QTRY_VERIFY_WITH_TIMEOUT(std::abs(truthPeak() + 0.25) < 0.05, 15000);
    w->display()->showRun(beta);
    QVERIFY(!probe->plot()->latest("probe/pred_grid"));  // cleared at once, then asked again
    // beta: z = +-Beta(100|x|, 100|y|) = +-Beta(50, 25), whose mode is 49/73 = 0.67.
    QTRY_VERIFY_WITH_TIMEOUT(std::abs(std::abs(truthPeak()) - 0.67) < 0.05, 15000);
    QVERIFY(probe->plot()->latest("probe/pred_grid"));
    // Two runs compared: the probe asks the first, and its curve says which run it is.
    w->display()->compare({beta, gaussian});
    const QString first = w->display()->labelOf(beta);
    auto names = [&]() {
      QStringList all;
      auto* plot = probe->plot()->plot();
      for (int i = 0; i < plot->graphCount(); ++i) all << plot->graph(i)->name();
      return all;
    };
    QTRY_VERIFY_WITH_TIMEOUT(names().contains(first), 15000);
    QVERIFY2(!names().join("|").contains("predicted"), qPrintable(names().join("|")));
  }

  void invalidConfigDisablesRunWithTheReason() {
    auto w = makeWindow("invalid.db");
    auto* lr = qobject_cast<QLineEdit*>(w->launchPanel()->form()->field("lr"));
    lr->setText("-1");
    QVERIFY(!w->launchPanel()->runButton()->isEnabled());
    QVERIFY(!w->launchPanel()->config().ok());
    QVERIFY(w->launchPanel()->config().summary().find("'lr'") != std::string::npos);
    QVERIFY(w->launchPanel()->problemLine()->text().startsWith("Cannot run: "));
    QCOMPARE(w->launch(), int64_t(0));
    lr->setText("0.001");
    QVERIFY(w->launchPanel()->runButton()->isEnabled());

    // A corpus that is not there: a problem of the whole config, marked at its field too (the
    // field stayed white while the line under the form said what was wrong).
    QVERIFY(w->launchPanel()->selectExperiment("fope"));
    auto* corpus = qobject_cast<QLineEdit*>(w->launchPanel()->form()->field("corpus"));
    QVERIFY(corpus);
    corpus->setText(m_dir.path() + "/no-such-corpus.txt");
    QVERIFY(!w->launchPanel()->runButton()->isEnabled());
    QVERIFY(!corpus->styleSheet().isEmpty());
    QVERIFY2(corpus->toolTip().contains("no-such-corpus.txt"), qPrintable(corpus->toolTip()));
    corpus->clear();  // the built-in text
    QVERIFY(corpus->styleSheet().isEmpty());
  }

  void comparisonLaunchesOnlyTheChosenArmsOnTheSameDataAndSeed() {
    auto w = makeWindow("arms.db");
    spin(*w, "epochs")->setValue(2);
    QVERIFY(!w->launchPanel()->chooseVariants({"no such arm"}));
    QVERIFY(w->launchPanel()->chooseVariants({"linear", "fourier N=20"}));
    const auto ids = w->launchComparison();
    QCOMPARE(ids.size(), size_t(2));
    QCOMPARE(fl::withoutEdits(w->views().find(ids[0])->name()), std::string("linear"));
    QCOMPARE(fl::withoutEdits(w->views().find(ids[1])->name()), std::string("fourier N=20"));
    // Nothing ticked: the button says why it is off.
    QVERIFY(w->launchPanel()->chooseVariants({}));
    QVERIFY(!w->launchPanel()->compareButton()->isEnabled());
    QVERIFY(w->launchPanel()->compareButton()->toolTip().contains("No arm is ticked"));
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 60000);
    fl::store::RunStore store((m_dir.path() + "/arms.db").toStdString());
    QCOMPARE(store.run(ids[1])->config["seed"], store.run(ids[0])->config["seed"]);
    QCOMPARE(store.run(ids[1])->config["dataset"], store.run(ids[0])->config["dataset"]);
    // The KL panel overlays one curve per arm and KL definition (test/kl, test/kl_exact), the
    // PDF panel the other arm's prediction.
    QCOMPARE(pointsIn(*w->display()->dashboard(), "kl", ids[0]), size_t(2));
    QCOMPARE(pointsIn(*w->display()->dashboard(), "kl", ids[1]), size_t(2));
    QStringList klCurves;
    for (auto* plot : w->display()->dashboard()->metricPlots())
      if (plot->objectName() == "kl") klCurves << plot->curveNames();
    QCOMPARE(klCurves.size(), 4);
    auto* pdf = qobject_cast<fl::widgets::SnapshotPlot*>(w->display()->dashboard()->panel("pdf"));
    QCOMPARE(pdf->overlayCount(), 1);
  }

  // Selecting runs in the Runs table overlays them; a click on one of them focuses it and keeps
  // the comparison; a click elsewhere shows that run alone, the comparison one click away.
  void theRunsTableOverlaysItsSelectionAndNeverLosesAComparisonInOneClick() {
    auto w = makeWindow("select.db");
    spin(*w, "epochs")->setValue(2);
    const int64_t a = w->launch(), b = w->launch(), c = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 60000);
    w->resize(1280, 720);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    clickRun(*w, a);
    clickRun(*w, c, Qt::ControlModifier);
    QCOMPARE(w->display()->shown(), (std::vector<int64_t>{c, a}));  // the last clicked focused
    QCOMPARE(pointsIn(*w->display()->dashboard(), "kl", a), size_t(2));
    clickRun(*w, a);  // one of the comparison: focused, the comparison kept
    QCOMPARE(w->display()->focused(), a);
    QCOMPARE(w->display()->shown().size(), size_t(2));
    clickRun(*w, b);  // another run: alone, with the way back
    QCOMPARE(w->display()->shown(), (std::vector<int64_t>{b}));
    QVERIFY(w->display()->canGoBack());
    QVERIFY(w->display()->backToComparison());
    QCOMPARE(std::set<int64_t>(w->display()->shown().begin(), w->display()->shown().end()),
             (std::set<int64_t>{a, c}));
  }

  // Configuring another experiment leaves the shown runs on screen with their own experiment's
  // panels (switching the form used to clear the plots being read); with nothing shown, the
  // Live tab takes the new experiment's panels, and no previous run's state stays.
  void switchingTheFormsExperimentKeepsTheShownRunsWithTheirPanels() {
    auto w = makeWindow("stale.db");
    spin(*w, "epochs")->setValue(2);
    const int64_t id = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id), 60000);
    const QString focus = w->display()->focusLine()->text();
    QVERIFY(!focus.isEmpty());
    QCOMPARE(w->display()->metricsModel()->rowCount(), 1);
    w->launchPanel()->selectExperiment("fope");
    QCOMPARE(w->display()->shown(), std::vector<int64_t>{id});
    QCOMPARE(w->display()->focusLine()->text(), focus);
    QCOMPARE(w->display()->metricsModel()->rowCount(), 1);
    QVERIFY(w->display()->dashboard()->panel("kl"));  // the Fourier head's, not FoPE's
    QVERIFY(!w->display()->dashboard()->panel("ppl_curves"));
    // Nothing shown: the form's experiment's panels, empty.
    auto fresh = makeWindow("stale-empty.db");
    fresh->launchPanel()->selectExperiment("fope");
    QVERIFY(fresh->display()->shown().empty());
    QVERIFY(fresh->display()->focusLine()->text().isEmpty());
    QVERIFY(fresh->display()->dashboard()->panel("ppl_curves"));
    for (auto* plot : fresh->display()->dashboard()->metricPlots())
      QVERIFY(plot->curveNames().isEmpty());
  }

  void comparingRunsOfDifferentExperimentsWarns() {
    const auto path = (m_dir.path() + "/mixed.db").toStdString();
    int64_t head = 0, fope = 0;
    {
      fl::store::RunStore store(path);
      // Whole configs (the defaults): what an epoch is depends on them.
      const auto config = [&](const char* name) {
        return fl::validateRunConfig(*m_registry.find(name), nlohmann::json::object()).values;
      };
      head = store.createRun({"fourier-head", "h", config("fourier-head"), {}, {}});
      fope = store.createRun({"fope", "f", config("fope"), {}, {}});
    }
    auto w = makeWindow("mixed.db");
    w->compareRuns({head, fope});
    QVERIFY(w->display()->warning()->isVisibleTo(w->display()));
    QVERIFY(w->display()->warning()->text().contains("different experiments"));
    QVERIFY(!w->display()->warning()->text().contains("Not drawn"));
    // Over epochs the FoPE run (random windows, no epochs) is left off the curves, and the line
    // says so rather than letting its curves vanish without a word.
    w->display()->setXAxis(fl::gui::XAxis::Epoch);
    const QString warning = w->display()->warning()->text();
    QVERIFY2(warning.contains(QString("Not drawn over epoch: #%1 (").arg(fope)),
             qPrintable(warning));
    QVERIFY(!warning.contains(QString("#%1 (").arg(head)));
    w->display()->setXAxis(fl::gui::XAxis::Step);
    QVERIFY(!w->display()->warning()->text().contains("Not drawn"));
    w->compareRuns({head});
    QVERIFY(!w->display()->warning()->isVisibleTo(w->display()));
    // Study runs of two experiments are labelled by their experiment and what sets them apart
    // among its runs: every parameter the other lacked had set them apart ("b…… v…=0.01").
    int64_t n4 = 0, n8 = 0, qk = 0;
    {
      fl::store::RunStore store(path);
      const auto config = [&](const char* name, const nlohmann::json& set) {
        return fl::validateRunConfig(*m_registry.find(name), set).values;
      };
      n4 = store.createRun({"fourier-head",
                            "s · frequencies=4 seed=1",
                            config("fourier-head", {{"frequencies", 4}}),
                            {},
                            {}});
      n8 = store.createRun({"fourier-head",
                            "s · frequencies=8 seed=1",
                            config("fourier-head", {{"frequencies", 8}}),
                            {},
                            {}});
      qk = store.createRun({"fourier-qk",
                            "q · variant=fourier seed=1",
                            config("fourier-qk", {{"variant", "fourier"}}),
                            {},
                            {}});
    }
    w->compareRuns({n4, n8, qk});
    QCOMPARE(w->display()->labelOf(n4), QString("fourier-head frequencies=4"));
    QCOMPARE(w->display()->labelOf(n8), QString("fourier-head frequencies=8"));
    QCOMPARE(w->display()->labelOf(qk), QString("fourier-qk"));
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
    const int64_t id = w->launch();
    QVERIFY(id > 0);
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id), 60000);
    auto* verdict =
        qobject_cast<fl::widgets::VerdictPanel*>(w->display()->dashboard()->panel("verdict"));
    QVERIFY(verdict);
    QCOMPARE(verdict->verdict(), QString("LEAKS"));
    QCOMPARE(verdict->ok(), std::optional<bool>(false));
    const QString message = runsCell(*w, id, RunsTableModel::kVerdict);
    QVERIFY2(message.startsWith("LEAKS (val/loss "), qPrintable(message));
    const QModelIndex cell = w->runsModel()->index(0, RunsTableModel::kVerdict);
    QCOMPARE(cell.data(Qt::ForegroundRole).value<QColor>(), QColor(170, 0, 0));
    // A step-based run counts steps, not "epoch 0/1".
    QCOMPARE(runsCell(*w, id, RunsTableModel::kProgress), QString("step 20/20"));
    // The stored run keeps its typed verdict: the history's verdict column shows it.
    fl::store::RunStore store((m_dir.path() + "/qk.db").toStdString());
    QTRY_VERIFY_WITH_TIMEOUT(!store.run(id)->verdicts.empty(), 5000);
    w->refreshHistory();
    auto* model = w->history()->model();
    QCOMPARE(model->rowCount(), 1);
    const QModelIndex stored = model->index(0, model->column("verdict"));
    QCOMPARE(stored.data().toString(), QString("LEAKS"));
    QVERIFY(stored.data(Qt::ToolTipRole).toString().startsWith("LEAKS -- "));
    // Where it trained, in the Runs table and the History alike (the form said "auto").
    const QString device = runsCell(*w, id, RunsTableModel::kDevice);
    const auto choices = fl::deviceChoices();  // auto, cpu, then the first GPU or greyed "cuda"
    QCOMPARE(device, QString::fromStdString(choices[2].unavailableReason.empty() ? choices[2].value
                                                                                 : "cpu"));
    QCOMPARE(model->index(0, model->column("device")).data().toString(), device);
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
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 120000);
    std::set<std::string> positions;
    fl::store::RunStore store((m_dir.path() + "/fope.db").toStdString());
    for (auto id : ids) {
      QTRY_COMPARE_WITH_TIMEOUT(fl::toString(store.run(id)->status),
                                fl::toString(fl::RunStatus::Finished), 5000);
      positions.insert(store.run(id)->config["position"].get<std::string>());
      QCOMPARE(store.metric(id, "val/ppl@64").size(), size_t(2));
    }
    QCOMPARE(positions, (std::set<std::string>{"rope", "fope", "alibi", "none"}));
    // Perplexity per length: one curve per run and length (prefix series "val/ppl@*").
    QStringList pplCurves;
    for (auto* plot : w->display()->dashboard()->metricPlots())
      if (plot->objectName() == "ppl_curves") pplCurves = plot->curveNames();
    QCOMPARE(pplCurves.size(), 8);
    auto* byLength =
        qobject_cast<fl::widgets::SnapshotPlot*>(w->display()->dashboard()->panel("ppl_vs_length"));
    QVERIFY(byLength);
    QCOMPARE(byLength->overlayCount(), 3);
  }

  void historyListsSortsByKeyAndOpensStoredRuns() {
    const auto path = (m_dir.path() + "/history.db").toStdString();
    {
      fl::store::RunStore store(path);
      for (int i = 0; i < 3; ++i) {
        const int64_t id =
            store.createRun({"fourier-head", "r" + std::to_string(i), {{"seed", i}}, {}, {}});
        store.writeEvents(id, {fl::MetricEvent{"test/kl", 10, 0.1, 0.5 - 0.1 * i},
                               fl::MetricEvent{"train/loss", 10, 0.1, 3.0},
                               fl::MetricEvent{"test/never", 10, 0.1, NAN}});
        store.finishRun(id, fl::RunStatus::Finished, "");
      }
    }
    auto w = makeWindow("history.db");
    w->refreshHistory();
    auto* history = w->history();
    auto* model = history->model();
    QCOMPARE(model->rowCount(), 3);
    // id and name stay in view while the other columns scroll.
    QCOMPARE(model->key(0), QString("id"));
    QCOMPARE(model->key(1), QString("name"));
    QCOMPARE(history->table()->frozenColumns(), 2);
    QVERIFY(model->column("config:seed") >= 0);             // seeds differ: a column
    QCOMPARE(model->column("metric:test/never:last"), -1);  // no value anywhere: left out
    QVERIFY(history->sortByKey("metric:test/kl:last", Qt::AscendingOrder));
    QCOMPARE(history->shownIds(), (std::vector<int64_t>{3, 2, 1}));  // lowest KL first
    // A run with another metric adds columns; the sort follows its key, not its old position.
    {
      fl::store::RunStore store(path);
      const int64_t id = store.createRun({"fourier-head", "r3", {{"seed", 3}}, {}, {}});
      store.writeEvents(id, {fl::MetricEvent{"a/first", 10, 0.1, 1.0},
                             fl::MetricEvent{"test/kl", 10, 0.1, 0.05}});
      store.finishRun(id, fl::RunStatus::Finished, "");
    }
    w->refreshHistory();
    QCOMPARE(history->shownIds(), (std::vector<int64_t>{4, 3, 2, 1}));
    QCOMPARE(history->sortKey(), QString("metric:test/kl:last"));
    history->filterText()->setText("r1");  // filtered once typing pauses
    QTRY_COMPARE(model->rowCount(), 1);
    history->filterText()->clear();
    QTRY_COMPARE(model->rowCount(), 4);
    // A filter (kept from the last session, say) is said in the title, which clears it.
    history->filterText()->setText("r1");
    QTRY_COMPARE(model->rowCount(), 1);
    auto* title = history->findChild<QLabel*>("runsTitle");
    QVERIFY(title);
    QVERIFY2(title->text().contains("filtered by text") && title->text().contains("show all"),
             qPrintable(title->text()));
    emit title->linkActivated("#all");
    QCOMPARE(model->rowCount(), 4);
    QVERIFY(history->filterText()->text().isEmpty());
    QVERIFY2(!title->text().contains("filtered"), qPrintable(title->text()));
    QCOMPARE(history->experimentFilter()->count(), 2);  // "any" + fourier-head
    w->openStoredRun(1);
    QCOMPARE(pointsIn(*w->display()->dashboard(), "kl", 1), size_t(1));
    QCOMPARE(pointsIn(*w->display()->dashboard(), "loss", 1), size_t(1));

    // Export writes valid files, and says which in the status bar.
    const QString csv = m_dir.path() + "/history-export.csv";
    QString error;
    QVERIFY(history->exportRuns({1, 2}, csv, &error));
    QCOMPARE(w->statusBar()->currentMessage(),
             QString("Exported 2 run(s) to %1, %2 and %3")
                 .arg(csv, m_dir.path() + "/history-export.snapshots.csv",
                      m_dir.path() + "/history-export.runs.csv"));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto lines = QString::fromUtf8(file.readAll()).trimmed().split('\n');
    QCOMPARE(lines.size(), 1 + 6);  // header + 2 runs x 3 points
    const QString json = m_dir.path() + "/history-export.json";
    QVERIFY(history->exportRuns({3}, json, &error));
    QFile jf(json);
    QVERIFY(jf.open(QIODevice::ReadOnly));
    QCOMPARE(
        nlohmann::json::parse(jf.readAll().toStdString())["runs"][0]["name"].get<std::string>(),
        std::string("r2"));
    // Export… suggests a file named by the selected runs, as the plots' files are: every
    // export was suggested "runs.csv", the next overwriting the last.
    {
      auto* table = history->table();
      table->clearSelection();
      // Without a selection it says what to select (it did nothing, silently).
      for (auto* b : history->findChildren<QPushButton*>())
        if (b->text() == "Export…") b->click();
      QCOMPARE(w->statusBar()->currentMessage(), QString("Export: select a run in the list first"));
      history->selectIds({1});
      for (auto* b : history->findChildren<QPushButton*>())
        if (b->text() == "Compare") b->click();
      QCOMPARE(w->statusBar()->currentMessage(),
               QString("Compare: select 2 or more runs in the list first"));
      table->clearSelection();
      const int idColumn = history->model()->column("id");
      for (int row = 0; row < table->model()->rowCount(); ++row) {
        const auto id = table->model()->index(row, idColumn).data().toLongLong();
        if (id == 1 || id == 2)
          table->selectionModel()->select(table->model()->index(row, 0),
                                          QItemSelectionModel::Select | QItemSelectionModel::Rows);
      }
      QString suggested;
      std::function<void()> readDialog = [&] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog) return QTimer::singleShot(50, readDialog);
        suggested = dialog->selectedFiles().value(0);
        dialog->reject();
      };
      QTimer::singleShot(50, readDialog);
      QPushButton* exportButton = nullptr;
      for (auto* b : history->findChildren<QPushButton*>())
        if (b->text() == "Export…") exportButton = b;
      QVERIFY(exportButton && exportButton->isEnabled());
      exportButton->click();
      QCOMPARE(QFileInfo(suggested).fileName(), QString("runs-1-2.csv"));
    }
    // Compare overlays the stored runs and lists only the config values that differ.
    w->compareRuns({1, 2, 3});
    QStringList klCurves;
    for (auto* plot : w->display()->dashboard()->metricPlots())
      if (plot->objectName() == "kl") klCurves = plot->curveNames();
    QCOMPARE(klCurves.size(), 3);
    auto* diff = w->display()->configDiffModel();
    QCOMPARE(diff->rowCount(), 3);
    QCOMPARE(diff->columnCount(), 2);  // run, seed
    QCOMPARE(diff->column("seed"), 1);
    // The compared runs have rows in the Runs table, whose eye takes one off the plots and
    // puts it back (a stored comparison's runs could not be hidden); opening other runs
    // replaces those rows.
    auto* rows = w->runsModel();
    QCOMPARE(rows->rowCount(), 3);
    const auto eye = [&](int64_t id) { return rows->index(rows->rowOf(id), RunsTableModel::kRun); };
    QCOMPARE(eye(2).data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QVERIFY(rows->setData(eye(2), Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(w->display()->shown(), (std::vector<int64_t>{1, 3}));
    QCOMPARE(rows->rowCount(), 3);  // its row stays, to put it back
    QCOMPARE(eye(2).data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    // History's rows carry the colour of the runs on the plots, as the Runs table's do.
    const auto swatch = [&](int64_t id) {
      return model->index(model->rowOf(id), model->column("id")).data(Qt::DecorationRole);
    };
    QCOMPARE(swatch(1).value<QColor>(), eye(1).data(Qt::DecorationRole).value<QColor>());
    QVERIFY(!swatch(2).isValid());  // off the plots
    QVERIFY(!swatch(4).isValid());
    QVERIFY(rows->setData(eye(2), Qt::Checked, Qt::CheckStateRole));
    QCOMPARE(w->display()->shown().size(), size_t(3));
    QVERIFY(swatch(2).isValid());
    w->openStoredRun(3);  // one of them, clicked: the comparison's rows stay
    QCOMPARE(rows->rowCount(), 3);
    w->openStoredRun(4);
    QCOMPARE(rows->rowCount(), 1);
    QCOMPARE(rows->runAt(0), int64_t(4));
    w->compareRuns({1, 2, 3});
    QCOMPARE(rows->rowCount(), 3);
    // Delete asks first, No by default; deleted runs leave no stale row.
    w->show();
    history->selectIds({2});
    QMessageBox::StandardButton defaultButton = QMessageBox::NoButton;
    QString asked;
    answerNextMessageBox(QMessageBox::No, &defaultButton, &asked);
    auto buttons = history->findChildren<QPushButton*>();
    auto remove = std::find_if(buttons.begin(), buttons.end(),
                               [](QPushButton* b) { return b->text() == "Delete…"; });
    QVERIFY(remove != buttons.end());
    (*remove)->click();
    QCOMPARE(defaultButton, QMessageBox::No);
    // The run it deletes, by id and name.
    QVERIFY2(asked.startsWith("Delete this run with its metrics") && asked.contains("\n#2"),
             qPrintable(asked));
    QCOMPARE(model->rowCount(), 4);
    QCOMPARE(history->deleteRuns({2}), 1);
    QCOMPARE(model->rowCount(), 3);
    QCOMPARE(model->rowOf(2), -1);
    // A comparison opened into a short Runs table shows its focused run's row: it ended
    // scrolled to the last run added (here #3, while #4 is focused).
    QTableView* runsTable = w->runsTable();
    runsTable->setFixedHeight(runsTable->horizontalHeader()->height() + 12);
    w->openStoredRun(4);
    w->compareRuns({4, 1, 3});
    QCOMPARE(w->display()->focused(), int64_t(4));
    // A panel saved from its menu is named by the shown runs, as the export of every panel is.
    QCOMPARE(w->display()->dashboard()->suggestedImageName("kl"), QString("runs-1-3-4-kl.png"));
    const auto shownRowOf = [&](int64_t id) {
      return qobject_cast<QSortFilterProxyModel*>(runsTable->model())
          ->mapFromSource(rows->index(rows->rowOf(id), 0));
    };
    QTRY_VERIFY(runsTable->viewport()->rect().intersects(runsTable->visualRect(shownRowOf(4))));
    // And it stays there once every queued scroll has run (zero-time timers, run here).
    for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
    QVERIFY(runsTable->viewport()->rect().intersects(runsTable->visualRect(shownRowOf(4))));
    QVERIFY(!runsTable->viewport()->rect().intersects(runsTable->visualRect(shownRowOf(1))));
  }

  // Runs deleted in History leave every part of the window: their rows in the Runs dock (the
  // others' selection kept), their curves on the dashboard, their views.
  void runsDeletedInHistoryLeaveTheRunsDockTheDashboardAndTheViews() {
    auto w = makeWindow("delete.db");
    spin(*w, "epochs")->setValue(1);
    spin(*w, "samples")->setValue(200);
    const int64_t kept = w->launch(), gone = w->launch();
    QVERIFY(kept > 0 && gone > 0);
    // Over, and each store writer closed: the runs are no longer the queue's.
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w) && w->queue()->closingCount() == 0, 60000);
    w->resize(1280, 720);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    clickRun(*w, kept);
    clickRun(*w, gone, Qt::ControlModifier);
    QCOMPARE(w->display()->shown(), (std::vector<int64_t>{gone, kept}));
    auto* dashboard = w->display()->dashboard();
    QVERIFY(pointsIn(*dashboard, "loss", gone) > 0);
    auto curvesOf = [&](int64_t id) {
      QStringList curves;
      for (auto* plot : dashboard->metricPlots())
        curves << plot->curveNames().filter(QString("#%1").arg(id));
      return curves;
    };
    w->refreshHistory();
    QCOMPARE(w->history()->deleteRuns({gone}), 1);

    QCOMPARE(w->runsModel()->rowCount(), 1);
    QCOMPARE(w->runsModel()->rowOf(gone), -1);
    QCOMPARE(w->runsModel()->runAt(0), kept);
    const auto selected = w->runsTable()->selectionModel()->selectedRows();
    QCOMPARE(selected.size(), 1);
    QCOMPARE(w->runsModel()->runAt(selected.front().row()), kept);
    QCOMPARE(w->display()->shown(), (std::vector<int64_t>{kept}));
    QCOMPARE(curvesOf(gone), QStringList());
    QVERIFY(pointsIn(*dashboard, "loss", kept) > 0);
    QCOMPARE(w->display()->metricsModel()->rowCount(), 1);
    QVERIFY(!w->display()->canGoBack());  // no way back to a comparison with a deleted run
    QVERIFY(!w->views().find(gone));
    QTest::qWait(100);  // a few ticks: nothing brings it back
    QCOMPARE(w->runsModel()->rowCount(), 1);
    QVERIFY(!w->views().find(gone));

    // The last shown run deleted: the display is empty, with what to do.
    QCOMPARE(w->history()->deleteRuns({kept}), 1);
    QCOMPARE(w->runsModel()->rowCount(), 0);
    QVERIFY(w->display()->shown().empty());
    QCOMPARE(curvesOf(kept), QStringList());
    QCOMPARE(w->display()->metricsModel()->rowCount(), 0);
    QVERIFY(w->display()->focusLine()->text().isEmpty());
    QCOMPARE(w->views().size(), size_t(0));
  }

  // A run waiting or training is not deleted from under the queue: History refuses, naming it,
  // and nothing is deleted; stopped, it can be deleted.
  void aRunWaitingOrTrainingIsNotDeleted() {
    auto w = makeWindow("delete-live.db");
    spin(*w, "epochs")->setValue(500);
    w->queue()->setRequestedParallel(1);
    const int64_t training = w->launch(), waiting = w->launch();
    QTRY_VERIFY_WITH_TIMEOUT(w->queue()->isTraining(training), 30000);
    QVERIFY(w->queue()->isWaiting(waiting));
    QSignalSpy errors(w->history(), &fl::gui::HistoryView::storeError);
    QCOMPARE(w->history()->deleteRuns({training, waiting}), 0);
    QCOMPARE(errors.count(), 1);
    const QString message = errors.front().front().toString();
    QVERIFY2(message.contains(QString("#%1").arg(training)) &&
                 message.contains(QString("#%1").arg(waiting)) && message.contains("Stop"),
             qPrintable(message));
    QVERIFY(w->store().run(training) && w->store().run(waiting));
    QCOMPARE(w->runsModel()->rowCount(), 2);
    QVERIFY(w->views().find(training) && w->views().find(waiting));
    w->queue()->cancelAll();
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w) && w->queue()->closingCount() == 0, 30000);
    QCOMPARE(w->history()->deleteRuns({training, waiting}), 2);
    QCOMPARE(w->runsModel()->rowCount(), 0);
  }

  // A comparison's legend names a study's runs by what differs between them (their names,
  // "table1 · dataset=gmm2 head=… seed=1", are cut before that part), a user's name as given;
  // the focus line keeps a row of its own above the controls in a narrow window.
  void aComparisonLabelsStudyRunsByWhatDiffers() {
    const auto path = (m_dir.path() + "/labels.db").toStdString();
    std::vector<int64_t> ids;
    {
      fl::store::RunStore store(path);
      for (const char* head : {"linear", "fourier"}) {
        auto config =
            fl::validateRunConfig(*m_registry.find("fourier-head"), {{"head", head}}).values;
        ids.push_back(
            store.createRun({"fourier-head",
                             std::string("table1 · dataset=gmm2 head=") + head + " seed=1",
                             config,
                             {},
                             {}}));
        store.writeEvents(ids.back(), {fl::MetricEvent{"test/kl", 10, 0.1, 0.5}});
        store.finishRun(ids.back(), fl::RunStatus::Finished, "");
      }
      auto config = fl::validateRunConfig(*m_registry.find("fourier-head"), {{"head", "gmm"}});
      ids.push_back(store.createRun({"fourier-head", "my gmm", config.values, {}, {}}));
      store.writeEvents(ids.back(), {fl::MetricEvent{"test/kl", 10, 0.1, 0.7}});
      store.finishRun(ids.back(), fl::RunStatus::Finished, "");
    }
    auto w = makeWindow("labels.db");
    w->resize(972, 720);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    w->compareRuns(ids);
    QStringList curves;
    for (auto* plot : w->display()->dashboard()->metricPlots())
      if (plot->objectName() == "kl") curves = plot->curveNames();
    curves.sort();
    QCOMPARE(curves,
             (QStringList{QString("#%1 linear").arg(ids[0]), QString("#%1 fourier").arg(ids[1]),
                          QString("#%1 my gmm").arg(ids[2])}));
    QLabel* focus = w->display()->focusLine();
    QTRY_VERIFY2(focus->width() > w->display()->width() / 2,
                 qPrintable(QString::number(focus->width())));
  }

  // A legend names what sets its run apart where the run's name leaves it to "and 1 more":
  // a legend reading "demo · dataset beta, head gmm" had hidden the lr 0.003 that told its run
  // from the others.
  void aLegendNamesWhatTheNameLeftToAndMore() {
    const auto path = (m_dir.path() + "/hidden-edit.db").toStdString();
    std::vector<int64_t> ids;
    {
      fl::store::RunStore store(path);
      const auto e = m_registry.find("fourier-head");
      const auto add = [&](const std::string& name, const nlohmann::json& set) {
        ids.push_back(
            store.createRun({"fourier-head", name, fl::validateRunConfig(*e, set).values, {}, {}}));
        store.writeEvents(ids.back(), {fl::MetricEvent{"test/kl", 10, 0.1, 0.5}});
        store.finishRun(ids.back(), fl::RunStatus::Finished, "");
      };
      add("demo, edited: dataset beta, head gmm, epochs 20 and 1 more",
          {{"dataset", "beta"}, {"head", "gmm"}, {"epochs", 20}, {"lr", 0.003}});
      add("demo, edited: dataset beta, head gmm, epochs 20",
          {{"dataset", "beta"}, {"head", "gmm"}, {"epochs", 20}});
    }
    auto w = makeWindow("hidden-edit.db");
    w->compareRuns(ids);
    QStringList curves;
    for (auto* plot : w->display()->dashboard()->metricPlots())
      if (plot->objectName() == "kl") curves = plot->curveNames();
    QVERIFY2(curves.contains(QString("#%1 demo · lr 0.003").arg(ids[0])),
             qPrintable(curves.join(" | ")));
  }

  // An unnamed run's focus line calls it what the legends do: what sets it apart.
  void theFocusLineLabelsAnUnnamedRunAsTheLegendsDo() {
    const auto path = (m_dir.path() + "/unnamed.db").toStdString();
    std::vector<int64_t> ids;
    {
      fl::store::RunStore store(path);
      for (const char* head : {"fourier", "linear"}) {
        auto config =
            fl::validateRunConfig(*m_registry.find("fourier-head"), {{"head", head}}).values;
        ids.push_back(store.createRun({"fourier-head", "", config, {}, {}}));
        store.writeEvents(ids.back(), {fl::MetricEvent{"test/kl", 10, 0.1, 0.5}});
        store.finishRun(ids.back(), fl::RunStatus::Finished, "");
      }
    }
    auto w = makeWindow("unnamed.db");
    w->compareRuns(ids);
    const QString line = w->display()->focusLine()->text();
    QVERIFY2(line.contains(QString("run %1</b> fourier &mdash;").arg(ids[0])), qPrintable(line));
  }

  // A panel the shown run never fills says "yet" while the run can still fill it, and that the
  // run recorded nothing once it is over (a linear head has no Fourier coefficients).
  void aPanelTheRunNeverFilledSaysSoOnceTheRunIsOver() {
    auto w = makeWindow("unfilled.db");
    auto* head = qobject_cast<QComboBox*>(w->launchPanel()->form()->field("head"));
    QVERIFY(head);
    head->setCurrentText("linear");
    spin(*w, "epochs")->setValue(2);
    const int64_t id = w->launch();
    auto* spectrum =
        qobject_cast<fl::widgets::SnapshotPlot*>(w->display()->dashboard()->panel("spectrum"));
    auto* pdf = qobject_cast<fl::widgets::SnapshotPlot*>(w->display()->dashboard()->panel("pdf"));
    QVERIFY(spectrum && pdf);
    QCOMPARE(w->display()->dashboard()->shownRun(), id);
    QCOMPARE(spectrum->caption(), QString("no data for this run yet"));
    QTRY_VERIFY_WITH_TIMEOUT(isOver(*w, id), 60000);
    QCOMPARE(spectrum->caption(), QString("this run recorded no data for this panel"));
    QVERIFY2(pdf->caption().startsWith("step "), qPrintable(pdf->caption()));
  }

  // History's studies pane shows its studies' rows (up to four) at 1280x720: a fixed share of
  // the tab left it one row high. A pane the researcher sized by hand keeps its size.
  void historysStudiesPaneShowsItsStudiesAt1280() {
    const QString path = m_dir.path() + "/studies-pane.db";
    {
      fl::store::RunStore store(path.toStdString());
      for (const char* name : {"a", "b", "c", "d"}) {
        auto spec = fl::study::StudySpec::fromText(
            QString(R"({"name": "%1", "grid": {"frequencies": [2, 4]}, "seeds": [1]})")
                .arg(name)
                .toStdString());
        spec.experiment = "fourier-head";
        const auto expansion = fl::study::expandStudy(*m_registry.find("fourier-head"), spec);
        QVERIFY(expansion.ok());
        fl::study::StudyStore(store).create(spec, expansion);
      }
    }
    auto w = makeWindow("studies-pane.db");
    w->resize(1280, 720);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    w->tabs()->setCurrentWidget(w->history());
    w->refreshHistory();
    QTableView* studies = w->history()->studiesTable();
    QCOMPARE(studies->model()->rowCount(), 4);
    QTRY_VERIFY2(
        studies->viewport()->rect().contains(studies->visualRect(studies->model()->index(3, 0))),
        qPrintable(QString("viewport %1 px high").arg(studies->viewport()->height())));
    // No taller than its rows (and a scroll bar): the runs below keep the rest.
    const int row = studies->verticalHeader()->defaultSectionSize();
    QVERIFY2(studies->viewport()->height() <=
                 4 * row + studies->style()->pixelMetric(QStyle::PM_ScrollBarExtent),
             qPrintable(QString("viewport %1 px high").arg(studies->viewport()->height())));
    QVERIFY(w->history()->table()->height() > studies->height());
  }

  // Opening a study of another experiment (from History, say) brings that experiment's form.
  void openingAStudySwitchesTheConfigurePanelToItsExperiment() {
    const QString path = m_dir.path() + "/open-study.db";
    int64_t studyId = 0;
    {
      fl::store::RunStore store(path.toStdString());
      auto spec = fl::study::StudySpec::fromText(R"({"name": "ranks", "grid": {"heads": [2, 4]},
                                                     "seeds": [1]})");
      spec.experiment = "fope";
      const auto expansion = fl::study::expandStudy(*m_registry.find("fope"), spec);
      QVERIFY(expansion.ok());
      studyId = fl::study::StudyStore(store).create(spec, expansion);
      spec.seeds = {2};  // a newer study: History lists it first, as it lists runs
      fl::study::StudyStore(store).create(spec,
                                          fl::study::expandStudy(*m_registry.find("fope"), spec));
    }
    auto w = makeWindow("open-study.db");
    w->refreshHistory();
    QCOMPARE(w->history()->studiesModel()->rowKey(0).toLongLong(), studyId + 1);
    QCOMPARE(QString::fromStdString(w->launchPanel()->experiment()->name()),
             QString("fourier-head"));
    QVERIFY(w->launchPanel()->selectPreset("paper-gmm"));
    spin(*w, "epochs")->setValue(7);  // an edit of the Fourier head's form
    const nlohmann::json edited = w->launchPanel()->form()->values();
    w->openStudy(studyId);
    QCOMPARE(w->studyView()->studyId(), studyId);
    QCOMPARE(QString::fromStdString(w->launchPanel()->experiment()->name()), QString("fope"));
    // Back to the Fourier head: its form as it was left, the preset and the edit kept (it came
    // back reset to the defaults).
    QVERIFY(w->launchPanel()->selectExperiment("fourier-head"));
    QCOMPARE(w->launchPanel()->presetName(), QString("paper-gmm"));
    QCOMPARE(w->launchPanel()->form()->values(), edited);
    QVERIFY(w->launchPanel()->presetModified());
    QCOMPARE(w->launchPanel()->runName(), std::string("paper-gmm, edited: epochs 7"));
  }

  // An open study view counts what the store holds once one of its runs is deleted: that cell
  // is not started again.
  void theStudyViewCountsTheRunsLeftAfterADeletion() {
    auto w = makeWindow("delete-study.db");
    spin(*w, "epochs")->setValue(1);
    spin(*w, "samples")->setValue(200);
    const int64_t studyId = launchStudyOver(*w, "frequencies", "4,8");
    QVERIFY(studyId > 0);
    // Named apart from the built-in `frequencies` study.
    QCOMPARE(fl::study::StudyStore(w->store()).study(studyId)->name,
             std::string("frequencies sweep"));
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w) && w->queue()->closingCount() == 0, 120000);
    QCOMPARE(w->queue()->runs().size(), size_t(2));
    auto* summary = w->studyView()->summary();
    QTRY_VERIFY_WITH_TIMEOUT(summary->text().contains("2 finished"), 5000);
    const int64_t gone = w->queue()->runs().front();
    // The question says what the study loses, and so does the status bar after.
    const QString missing = QString(
                                "Run #%1 is a run of study %2, which then misses it (its "
                                "Resume study trains it again).")
                                .arg(gone)
                                .arg(studyId);
    QCOMPARE(w->history()->studiesMissing({gone}), missing);
    QCOMPARE(w->history()->deleteRuns({gone}), 1);
    QCOMPARE(w->statusBar()->currentMessage(),
             QString("Deleted 1 run(s). Study %1 now misses run #%2 (its Resume study trains it "
                     "again).")
                 .arg(studyId)
                 .arg(gone));
    QVERIFY2(summary->text().contains("1 finished") && summary->text().contains("1 not started"),
             qPrintable(summary->text()));
    int notStarted = 0;
    for (const auto& row : w->studyView()->grid()->rows())
      for (const auto& cell : row.cells) {
        QVERIFY(cell.runId != gone);
        notStarted += cell.status == fl::study::CellStatus();
      }
    QCOMPARE(notStarted, 1);
    QCOMPARE(w->runsModel()->rowCount(), 1);
    QVERIFY(!w->views().find(gone));
  }

  // Stop the shown run follows a run that Resume study starts again: its row was there
  // before, so nothing told Stop, which stayed grey ("nothing to stop") beside "running on cpu".
  void stopFollowsTheShownRunOfAResumedStudy() {
    auto w = makeWindow("resumed-study.db");
    spin(*w, "samples")->setValue(400);
    spin(*w, "epochs")->setValue(100000);
    const int64_t studyId = launchStudyOver(*w, "seed", "1,2");
    QVERIFY(studyId > 0);
    QTRY_VERIFY_WITH_TIMEOUT(w->queue()->trainingCount() == 2, 60000);
    w->studyView()->stopButton()->click();
    QCOMPARE(w->statusBar()->currentMessage(),
             QString("Stopping study %1: its runs in training save a checkpoint and end "
                     "cancelled; Resume study goes on from there")
                 .arg(studyId));
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 60000);
    const int64_t shown = w->queue()->runs().front();
    w->display()->showSelection({shown});
    QCOMPARE(w->display()->focused(), shown);
    QTRY_VERIFY(!w->runsDock()->stopButton()->isEnabled());
    QTRY_VERIFY(w->studyView()->resumeButton()->isEnabled());
    w->studyView()->resumeButton()->click();
    // Said: the stop's message had stood over the resumed study until it finished.
    QCOMPARE(w->statusBar()->currentMessage(),
             QString("Resumed study %1: 2 unfinished runs train on, each from its last checkpoint "
                     "where it has one")
                 .arg(studyId));
    QTRY_VERIFY_WITH_TIMEOUT(w->queue()->isTraining(shown), 60000);
    QCOMPARE(w->display()->focused(), shown);
    QTRY_VERIFY(w->runsDock()->stopButton()->isEnabled());
    QVERIFY2(w->runsDock()->stopButton()->toolTip().contains("Cancel the shown run"),
             qPrintable(w->runsDock()->stopButton()->toolTip()));
    w->runsDock()->stopButton()->click();
    w->studyView()->stopButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 60000);
    // Once its last run ends, the study's end is said with its cells' counts.
    QTRY_COMPARE(
        w->statusBar()->currentMessage(),
        QString("Study %1 (%2) has no run left training: 2 cancelled of its 2 cells")
            .arg(studyId)
            .arg(QString::fromStdString(fl::study::StudyStore(w->store()).study(studyId)->name)));
  }

  // Studies in the window: parameters with lists of values and a seeds list make a study whose
  // size is shown before launching; it runs in the queue under the budget; its view fills in
  // as runs finish; it is listed in History. A built-in study shows its size too.
  // A built-in study whose claims read what the form turned off says so before it runs: the
  // encodings study without passkey trials would have trained its 12 runs and read two claims
  // "not measured".
  void aStudyWhoseMetricsTheFormTurnedOffSaysSo() {
    auto w = makeWindow("unrecorded.db");
    auto* launch = w->launchPanel();
    launch->selectExperiment("fope");
    QVERIFY(launch->selectStudy("encodings"));
    QVERIFY(launch->studyPlan().ok());
    QVERIFY(launch->studyPlan().unrecordedMetrics.empty());
    QVERIFY(!launch->studySummary()->text().contains("With these settings"));
    spin(*w, "passkey_samples")->setValue(0);
    const auto plan = launch->studyPlan();
    QVERIFY(plan.ok());  // said, not refused
    QVERIFY2(plan.unrecordedMetrics.size() >= 2,
             std::to_string(plan.unrecordedMetrics.size()).c_str());
    QCOMPARE(QString::fromStdString(plan.unrecordedMetrics.front().text()).section(" (", 0, 0),
             QString("claims[3].metric: no run of this study records passkey/acc@128"));
    // In the window's words, not the file's places: the claim by its text, the table's column.
    QTRY_VERIFY2(launch->studySummary()->text().contains(
                     "With these settings, no run records passkey/acc@128, so the claim “FoPE "
                     "retrieves the passkey more often than RoPE at 2x the training…” reads not "
                     "measured (and 6 more: hover)."),
                 qPrintable(launch->studySummary()->text()));
    QVERIFY2(launch->studySummary()->toolTip().contains(
                 "no run records passkey/acc@64, so the table's passkey/acc@64 column stays "
                 "empty\nno run records passkey/acc@128, so the table's"),
             qPrintable(launch->studySummary()->toolTip()));
    QVERIFY(launch->studySummary()->toolTip().contains(
        "no run records passkey/acc@*, so figure 1 draws no passkey/acc@*"));
    QVERIFY2(launch->studySummary()->toolTip().contains(
                 "The runs record train/loss, val/loss, val/ppl@64, @128, @256, @512, "
                 "spectrum/purity_L0, spectrum/purity_L1 and the system/ series"),
             qPrintable(launch->studySummary()->toolTip()));
    spin(*w, "passkey_samples")->setValue(32);
    QTRY_VERIFY(!launch->studySummary()->text().contains("With these settings"));
  }

  void aStudyIsLaunchedWatchedAndListed() {
    auto w = makeWindow("study.db");
    auto* launch = w->launchPanel();
    spin(*w, "epochs")->setValue(2);
    QVERIFY(launch->selectStudy("table1"));
    QVERIFY2(launch->studyPlan().ok(), (launch->studyPlan().errors.empty()
                                            ? std::string()
                                            : launch->studyPlan().errors.front() + " overrides " +
                                                  launch->studyPlan().spec.overrides.dump())
                                           .c_str());
    QCOMPARE(launch->studyPlan().runs, int64_t(36));
    // Before it runs, it says what departs from the paper's Table 1.
    QTRY_VERIFY2(launch->studySummary()->text().contains(
                     "Departs from the paper's settings: samples 400 (the paper's 5000), epochs 2 "
                     "(the paper's 500); evaluation: eval_every 1 (the paper's 10)."),
                 qPrintable(launch->studySummary()->text()));
    QVERIFY(launch->selectStudy(""));
    QVERIFY(!launch->studyPlan().ok());  // nothing varies yet
    // A refused value is named once, above the buttons; the study line points there.
    auto* lr = qobject_cast<QLineEdit*>(launch->form()->field("lr"));
    QVERIFY(lr);
    const QString goodLr = lr->text();
    lr->setText("-5");
    QTRY_VERIFY(launch->problemLine()->text().contains("'lr' must be"));
    QTRY_COMPARE(launch->studySummary()->text(),
                 QString("No study until the values above are valid."));
    lr->setText(goodLr);
    QTRY_VERIFY(!launch->problemLine()->text().contains("'lr'"));
    // A list of one value is that value: Run trains it, and nothing says it holds several.
    QVERIFY(launch->form()->setList("frequencies", "4"));
    QTRY_VERIFY(launch->runButton()->isEnabled());
    QVERIFY(launch->problemLine()->text().isEmpty());
    QVERIFY(launch->form()->setList("frequencies", "4,8"));
    QVERIFY(launch->form()->setList("seed", "1,2"));
    QVERIFY(!launch->runButton()->isEnabled());  // lists: Run study, not Run
    // And it says so under the buttons, naming the lists, not only in a tooltip.
    QCOMPARE(launch->problemLine()->text(),
             QString("Run and Run comparison train one config: frequencies, seed hold several "
                     "values, so Run study trains them."));
    const auto plan = launch->studyPlan();
    QVERIFY2(plan.ok(), plan.errors.empty() ? "" : plan.errors.front().c_str());
    QCOMPARE(plan.runs, int64_t(4));
    QTRY_VERIFY(launch->studySummary()->text().contains("4 runs"));
    QTRY_VERIFY(launch->studyButton()->isEnabled());
    const int64_t studyId = w->launchStudy();
    QVERIFY(studyId > 0);
    QCOMPARE(w->tabs()->currentWidget(), w->studyView());
    // Its cells of one shape train as batched groups: workers, not runs, fill the budget.
    QVERIFY(w->queue()->busyWorkers() <= w->queue()->budget().parallel);
    QVERIFY(w->queue()->trainingCount() >= w->queue()->busyWorkers());
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 120000);
    QCOMPARE(w->queue()->runs().size(), size_t(4));
    auto* table = w->studyView()->tableModel();
    QTRY_COMPARE_WITH_TIMEOUT(table->text(0, "runs"), QString("2/2"), 5000);
    QCOMPARE(table->rowCount(), 2);
    QVERIFY(table->text(0, "test/kl").contains("±"));
    QCOMPARE(w->studyView()->figure()->panelCount(), 1);
    for (const auto& row : w->studyView()->grid()->rows())
      for (const auto& cell : row.cells)
        QCOMPARE(cell.status, fl::study::CellStatus(fl::RunStatus::Finished));
    // Launched again, the same study is found, not stored twice; nothing is left to train.
    QCOMPARE(w->launchStudy(), studyId);
    QCOMPARE(w->queue()->runs().size(), size_t(4));
    // Listed in History, once the store writers have written the last statuses.
    QTRY_COMPARE_WITH_TIMEOUT(
        (w->refreshHistory(), w->history()->studiesModel()->text(0, "finished")), QString("4"),
        5000);
    QCOMPARE(w->history()->studiesModel()->rowCount(), 1);
  }

  // Every registered experiment gets its form, its panels and its studies' sizes: a new
  // experiment (its folder and its line in experiments/CMakeLists.txt) is covered here as is.
  void everyRegisteredExperimentGetsItsFormPanelsAndStudies() {
    auto w = makeWindow("every.db");
    for (const auto& e : m_registry.all()) {
      const QString name = QString::fromStdString(e->name());
      QVERIFY(w->launchPanel()->selectExperiment(name));
      for (const auto& p : e->allParams())
        QVERIFY2(
            p.name == "device" || w->launchPanel()->form()->field(QString::fromStdString(p.name)),
            qPrintable(name + ": " + QString::fromStdString(p.name)));
      for (const auto& panel : e->panels())
        QVERIFY2(w->display()->dashboard()->panel(QString::fromStdString(panel.id)),
                 qPrintable(name + ": " + QString::fromStdString(panel.id)));
      QVERIFY(w->display()->dashboard()->panel("metrics_table"));
      // The process's figures, declared once for every experiment.
      for (const auto& panel : fl::systemPanels(false))
        QVERIFY2(w->display()->dashboard()->panel(QString::fromStdString(panel.id)),
                 qPrintable(name + ": " + QString::fromStdString(panel.id)));
      for (const auto& study : e->studies()) {
        QVERIFY(w->launchPanel()->selectStudy(QString::fromStdString(study.name)));
        const auto plan = w->launchPanel()->studyPlan();
        QVERIFY2(plan.ok() && plan.runs > 0 &&
                     plan.runs <= static_cast<int64_t>(fl::study::countRuns(study)),
                 qPrintable(name + " " + QString::fromStdString(study.name)));
      }
      QVERIFY(w->launchPanel()->selectStudy(""));
    }
  }

  // An empty store says what to do, with the demo one click away.
  void anEmptyStoreOffersTheDemo() {
    auto w = makeWindow("empty.db");
    w->resize(1280, 720);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    const auto buttons = w->display()->findChildren<QPushButton*>();
    auto demo = std::find_if(buttons.begin(), buttons.end(),
                             [](QPushButton* b) { return b->text() == "Start the demo"; });
    QVERIFY(demo != buttons.end() && (*demo)->isVisible());
    spin(*w, "epochs")->setValue(100000);
    (*demo)->click();
    QCOMPARE(w->queue()->runs().size(), size_t(4));
    QCOMPARE(w->display()->shown().size(), size_t(4));
    QVERIFY(!(*demo)->isVisible());
    // Closing asks about the runs still training only, No by default.
    QMessageBox::StandardButton defaultButton = QMessageBox::NoButton;
    QString text;
    QTRY_VERIFY_WITH_TIMEOUT(w->queue()->trainingCount() > 0, 10000);
    answerNextMessageBox(QMessageBox::No, &defaultButton, &text);
    QVERIFY(!w->close());
    QCOMPARE(defaultButton, QMessageBox::No);
    QVERIFY2(
        text.startsWith(QString("%1 run(s) are still training").arg(w->queue()->trainingCount())),
        qPrintable(text));
    w->queue()->cancelAll();
    QTRY_VERIFY_WITH_TIMEOUT(allOver(*w), 20000);
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
