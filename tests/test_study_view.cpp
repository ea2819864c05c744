// Tests app/gui/study_view.h: a study's progress grid (a row per setting, a cell per seed with
// its run's status), its aggregated table (mean ± std over the finished seeds, the paper's value
// and the verdict, as `sweep table` computes them) and its figure, and that a click on a
// setting asks to compare that setting's runs; its parallel coordinates (an axis per swept
// parameter, the metric last, a line per started run) and their brushed runs compared. The runs
// are written straight into the store
// with known values, so every number is checked against a hand computation.
#include <QtTest>

#include <QStandardItemModel>

#include <QComboBox>
#include <QDialog>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>

#include <qcustomplot.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "app/gui/run_queue.h"
#include "app/gui/run_views.h"
#include "app/gui/study_view.h"
#include "core/store/process_identity.h"
#include "core/store/run_store.h"
#include "core/study/study_expansion.h"
#include "core/study/study_store.h"
#include "core/study/study_table.h"
#include "widgets/flow_layout.h"
#include "widgets/one_line_rows.h"
#include "widgets/parallel_coordinates.h"
#include "widgets/study_figure_plot.h"
#include "widgets/study_progress_grid.h"
#include "widgets/study_table_model.h"

namespace {

class KnownTrial : public fl::Trial {
 public:
  fl::TrialPlan plan() const override { return {1, 1, 1, 1}; }
  fl::StepLoss trainStep(int64_t) override { return 0.0; }
  void evaluate(int64_t, bool, fl::EvalReport&) override {}
};

// width 1, 2 x seeds 1, 2, 3, with the figures of a paper: declared by the experiment too.
fl::study::StudySpec knownStudy() {
  auto spec = fl::study::StudySpec::fromText(R"({"name": "known", "title": "Known values",
      "grid": {"width": [1, 2]}, "seeds": [1, 2, 3],
      "references": {"source": "hand", "rows": [
        {"where": {"width": 1}, "values": {"test/m": [12.5, 1.0]}},
        {"where": {"width": 2}, "values": {"test/m": [30.0, 1.0]}}]},
      "claims": [{"text": "width 1 below width 2", "metric": "test/m", "better": "lower",
                  "a": {"width": 1}, "b": {"width": 2}},
                 {"text": "a metric no run records", "metric": "test/none", "better": "lower",
                  "a": {"width": 1}, "b": {"width": 2}}],
      "figures": [{"x": "width", "metrics": ["test/m"], "band": "std"}]})");
  spec.experiment = "known";
  return spec;
}

class KnownExperiment : public fl::Experiment {
 public:
  std::string name() const override { return "known"; }
  std::string title() const override { return "known"; }
  std::string description() const override { return ""; }
  std::vector<fl::ParamSpec> params() const override {
    return {fl::ParamSpec::integer("width", 1, 1, 100, ""), fl::ParamSpec::text("label", "", "")};
  }
  std::vector<fl::PanelSpec> panels() const override { return {}; }
  std::vector<fl::Preset> presets() const override { return {}; }
  std::vector<fl::study::StudySpec> studies() const override { return {knownStudy()}; }
  std::unique_ptr<fl::Trial> createTrial(const fl::TrialContext&) const override {
    return std::make_unique<KnownTrial>();
  }
};

// A trial that would take minutes (a million 1 ms steps): a run of it is always stopped first.
class EndlessTrial : public fl::Trial {
 public:
  fl::TrialPlan plan() const override { return {1000000, 1000000, 1000000, 1000000}; }
  fl::StepLoss trainStep(int64_t) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return 0.0;
  }
  void evaluate(int64_t, bool, fl::EvalReport&) override {}
};

class EndlessExperiment : public KnownExperiment {
 public:
  std::string name() const override { return "endless"; }
  std::vector<fl::study::StudySpec> studies() const override { return {}; }
  int usefulThreads(const nlohmann::json&) const override { return 1; }
  std::unique_ptr<fl::Trial> createTrial(const fl::TrialContext&) const override {
    return std::make_unique<EndlessTrial>();
  }
};

// A study view over a store, as the window builds one: the live runs, the queue, the view.
struct StudyLab {
  fl::gui::RunViews views;
  fl::gui::RunQueue queue;
  fl::gui::StudyView view;
  StudyLab(const fl::ExperimentRegistry& registry, fl::store::RunStore& store)
      : views(store), queue(registry, store, views), view(store, views, queue) {}
};

}  // namespace

class TestStudyView : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fl::ExperimentRegistry m_registry;

  // The known study; test/m = 10 x width + seed; the cell width 2, seed 3 not run. `overrides`
  // as `sweep run --set` gives them.
  int64_t makeStudy(fl::store::RunStore& store,
                    const nlohmann::json& overrides = nlohmann::json::object()) {
    auto spec = knownStudy();
    spec.overrides.update(overrides);
    const auto expansion = fl::study::expandStudy(*m_registry.find("known"), spec);
    if (!expansion.ok()) qFatal("%s", expansion.errors.front().c_str());
    fl::study::StudyStore studies(store);
    const int64_t id = studies.create(spec, expansion);
    for (const auto& cell : expansion.cells) {
      const int width = cell.axes.at("width").get<int>();
      if (width == 2 && cell.seed == 3) continue;
      const auto claim = studies.claim(id, cell.index);
      store.writeEvents(
          claim.runId,
          {fl::MetricEvent{"test/m", 1, 0.1, 10.0 * width + static_cast<double>(cell.seed)}});
      store.finishRun(claim.runId, fl::RunStatus::Finished, "");
    }
    return id;
  }

  // A study of the known experiment from its spec's text, stored with no run started.
  int64_t storeStudy(fl::store::RunStore& store, const char* specText) {
    auto spec = fl::study::StudySpec::fromText(specText);
    spec.experiment = "known";
    const auto expansion = fl::study::expandStudy(*m_registry.find("known"), spec);
    if (!expansion.ok()) qFatal("%s", expansion.errors.front().c_str());
    return fl::study::StudyStore(store).create(spec, expansion);
  }

  // The lab's view at `size`, on screen, showing the study.
  static bool showStudy(StudyLab& lab, int64_t id, QSize size) {
    lab.view.resize(size);
    lab.view.show();
    return QTest::qWaitForWindowExposed(&lab.view) && lab.view.setStudy(id);
  }

  int rowWithWidth(const fl::widgets::StudyTableModel& model, const QString& width) {
    for (int r = 0; r < model.rowCount(); ++r)
      if (model.text(r, "width") == width) return r;
    return -1;
  }

 private slots:
  void initTestCase() {
    m_registry.add(std::make_shared<KnownExperiment>());
    m_registry.add(std::make_shared<EndlessExperiment>());
  }

  void theTableGridAndFigureSayWhatTheRunsGave() {
    fl::store::RunStore store((m_dir.path() + "/study.db").toStdString());
    const int64_t id = makeStudy(store);
    StudyLab lab(m_registry, store);
    lab.view.resize(1200, 800);
    lab.view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&lab.view));
    QVERIFY(lab.view.setStudy(id));
    QVERIFY(!lab.view.setStudy(999) && lab.view.studyId() == 0);
    QVERIFY(lab.view.setStudy(id));
    // No batch mode recorded (never trained here): nothing said; once recorded, said. Nothing
    // set beyond the experiment's defaults: no "set" either.
    QVERIFY2(!lab.view.summary()->text().contains("batch"), qPrintable(lab.view.summary()->text()));
    QVERIFY2(!lab.view.summary()->text().contains("<b>set</b>"),
             qPrintable(lab.view.summary()->text()));
    fl::study::StudyStore(store).recordFirstBatchMode(id, "off");
    lab.view.refresh();
    QVERIFY2(lab.view.summary()->text().contains("batch off, as it first trained"),
             qPrintable(lab.view.summary()->text()));

    auto* model = lab.view.tableModel();
    QCOMPARE(model->rowCount(), 2);
    const int one = rowWithWidth(*model, "1"), two = rowWithWidth(*model, "2");
    QVERIFY(one >= 0 && two >= 0);
    // width 1: 11, 12, 13 -> mean 12, sample std 1; width 2: 21, 22 -> 21.5 ± 0.707.
    QCOMPARE(model->text(one, "test/m"), QString("12.000 ± 1.000"));
    QCOMPARE(model->text(two, "test/m"), QString("21.500 ± 0.707"));
    QCOMPARE(model->text(one, "runs"), QString("3/3"));
    QCOMPARE(model->text(two, "runs"), QString("2/3"));
    QCOMPARE(model->text(one, "test/m paper"), QString("12.500 ± 1.000"));
    QCOMPARE(model->text(one, "test/m verdict"), QString("agrees"));
    // Where the paper's values come from is said where they are shown.
    QVERIFY2(lab.view.title()->text().contains("(hover for where the paper's values come from)"),
             qPrintable(lab.view.title()->text()));
    QCOMPARE(lab.view.title()->toolTip(), QString("The paper's values: hand"));
    QCOMPARE(model->headerData(model->column("test/m paper"), Qt::Horizontal, Qt::ToolTipRole),
             QVariant("The paper's values: hand"));
    QCOMPARE(model->text(two, "test/m verdict"), QString("DIFFERS"));  // as `sweep table` says
    // The claim: 12 against 21.5, SE = sqrt(1 / 3 + 0.5 / 2): beyond 2 SE the claimed way.
    QVERIFY2(lab.view.summary()->text().contains("1 holds"),
             qPrintable(lab.view.summary()->text()));
    // A claim not measured is no setting judged: one of the two claims was judged, once.
    QVERIFY2(lab.view.summary()->text().contains("1 not measured"),
             qPrintable(lab.view.summary()->text()));
    QVERIFY2(lab.view.summary()->text().contains("(2 claims, judged at 1 setting)"),
             qPrintable(lab.view.summary()->text()));
    QVERIFY2(lab.view.summary()->toolTip().contains("holds: width 1 below width 2"),
             qPrintable(lab.view.summary()->toolTip()));
    // Where they are judged, beside the outcomes: on the study's runs, not the paper's models.
    QVERIFY2(lab.view.summary()->text().contains(
                 "<b>Claims over seeds</b> <i>on this study's runs, not the paper's models</i>: "),
             qPrintable(lab.view.summary()->text()));
    QVERIFY2(lab.view.summary()->toolTip().contains(
                 "Judged on this study's runs, not the paper's models: each outcome says how the "
                 "paper's pattern reads at this study's scale"),
             qPrintable(lab.view.summary()->toolTip()));
    const QModelIndex outside = model->index(two, model->column("test/m verdict"));
    QCOMPARE(model->data(outside, Qt::ForegroundRole).value<QColor>(), QColor(170, 0, 0));
    // The green of "agrees" and of a claim that holds is History's and the Runs table's green,
    // not a third shade of its own.
    const QModelIndex agrees = model->index(one, model->column("test/m verdict"));
    QCOMPARE(model->data(agrees, Qt::ForegroundRole).value<QColor>(), QColor(0, 110, 0));
    QVERIFY2(lab.view.summary()->text().contains("color:#006e00"),
             qPrintable(lab.view.summary()->text()));
    // The claims read in a window of their own, not on hover alone: each with its numbers.
    QVERIFY(lab.view.summary()->text().contains("<a href='claims'>read them</a>"));
    emit lab.view.summary()->linkActivated("claims");
    auto* report = lab.view.findChild<QDialog*>("fourierlabReport");
    QVERIFY(report && report->isVisible());
    const QString claimsText = report->findChild<QTextBrowser*>()->toPlainText();
    QVERIFY2(claimsText.contains("holds: width 1 below width 2 (test/m: width 1 12.000 ± 1.000 (3) "
                                 "against width 2 21.500 ± 0.707 (2 of 3)"),
             qPrintable(claimsText));
    QVERIFY2(claimsText.contains("A claim holds when"), qPrintable(claimsText));
    report->close();

    const auto& rows = lab.view.grid()->rows();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0].cells.size(), 3);
    QCOMPARE(rows[0].label, QString("1"));  // the values; the header names them
    QCOMPARE(rows[0].description, QString("width=1"));
    QCOMPARE(rows[0].cells[0].status, fl::study::CellStatus(fl::RunStatus::Finished));
    QCOMPARE(rows[1].cells[2].status, fl::study::CellStatus());
    QCOMPARE(rows[1].cells[2].runId, int64_t(0));
    QVERIFY(rows[0].cells[1].toolTip.contains("test/m 12"));
    QVERIFY(lab.view.summary()->text().contains("5 finished") &&
            lab.view.summary()->text().contains("1 not started"));

    QCOMPARE(lab.view.figure()->panelCount(), 1);
    QVERIFY(lab.view.figure()->graphCount() >= 2);  // the mean line and its band at least
    // No figure title over the panels: the header above names the study, the choices beside
    // it what is drawn ("Known values: test/m against width" took a row of a small figure).
    for (auto* element : lab.view.figure()->plot()->plotLayout()->elements(true))
      if (auto* text = qobject_cast<QCPTextElement*>(element))
        QVERIFY2(!text->text().contains("Known values"), qPrintable(text->text()));
    QCOMPARE(lab.view.metricChoice()->currentText(), QString("test/m"));
    QCOMPARE(lab.view.xChoice()->currentText(), QString("width"));

    // A click on a setting's label asks to compare its runs (its three seeds).
    QSignalSpy compare(&lab.view, &fl::gui::StudyView::compareRequested);
    lab.view.grid()->resize(lab.view.grid()->sizeHint());
    const QRect firstCell = lab.view.grid()->cellRect(0, 0);
    QTest::mouseClick(lab.view.grid(), Qt::LeftButton, {}, QPoint(5, firstCell.center().y()));
    QCOMPARE(compare.count(), 1);
    QCOMPARE(compare.front().front().value<std::vector<int64_t>>().size(), size_t(3));
  }

  // A study that declares two figures offers each in the view box, and choosing one draws it as
  // declared: its x, lines, band and its selection of settings. Its second had been reachable
  // only by setting the boxes by hand, without its `where`.
  void eachDeclaredFigureIsAViewOfItsOwn() {
    fl::store::RunStore store((m_dir.path() + "/figures.db").toStdString());
    auto spec = fl::study::StudySpec::fromText(R"({"name": "two figures",
        "grid": {"width": [1, 2], "label": ["a", "b"]}, "seeds": [1, 2],
        "figures": [{"x": "width", "metrics": ["test/m"], "group": "label", "band": "std"},
                    {"name": "labels at width 1", "x": "label", "metrics": ["test/m"],
                     "band": "none", "where": {"width": 1}}]})");
    spec.experiment = "known";
    const auto expansion = fl::study::expandStudy(*m_registry.find("known"), spec);
    QVERIFY2(expansion.ok(), expansion.errors.empty() ? "" : expansion.errors.front().c_str());
    fl::study::StudyStore studies(store);
    const int64_t id = studies.create(spec, expansion);
    for (const auto& cell : expansion.cells) {
      const auto claim = studies.claim(id, cell.index);
      store.writeEvents(claim.runId, {fl::MetricEvent{"test/m", 1, 0.1,
                                                      10.0 * cell.axes.at("width").get<int>() +
                                                          static_cast<double>(cell.seed)}});
      store.finishRun(claim.runId, fl::RunStatus::Finished, "");
    }
    StudyLab lab(m_registry, store);
    QVERIFY(showStudy(lab, id, {1200, 800}));
    auto* views = lab.view.viewChoice();
    QCOMPARE(views->count(), 3);
    QCOMPARE(views->itemText(0), QString("figure 1: test/m against width"));
    QCOMPARE(views->itemText(1), QString("figure 2: labels at width 1 (width = 1)"));
    QCOMPARE(views->itemText(2), QString("parallel coordinates"));
    QCOMPARE(lab.view.xChoice()->currentData().toString(), QString("width"));
    QCOMPARE(lab.view.groupChoice()->currentData().toString(), QString("label"));
    // Two lines (a, b), each a mean and its band's two edges.
    const int firstGraphs = lab.view.figure()->graphCount();
    QCOMPARE(firstGraphs, 6);

    views->setCurrentIndex(1);
    QCOMPARE(lab.view.xChoice()->currentData().toString(), QString("label"));
    QCOMPARE(lab.view.bandChoice()->currentText(), QString("none"));
    // Width 1 alone: one line, no band; without the figure's `where`, widths 1 and 2 were two.
    QCOMPARE(lab.view.figure()->graphCount(), 1);
    views->setCurrentIndex(0);
    QCOMPARE(lab.view.xChoice()->currentData().toString(), QString("width"));
    QCOMPARE(lab.view.figure()->graphCount(), firstGraphs);
    views->setCurrentIndex(2);
    QVERIFY(lab.view.parallel()->isVisibleTo(&lab.view));

    // One declared figure of a study file with no paper's numbers reads "study figure" (a
    // paper's, "paper figure"), with its name and its selection of settings.
    const int64_t one = storeStudy(store, R"({"name": "one figure",
        "grid": {"width": [1, 2], "label": ["a", "b"]}, "seeds": [1],
        "figures": [{"name": "at b", "x": "width", "metrics": ["test/m"],
                     "where": {"label": "b"}}]})");
    QVERIFY(lab.view.setStudy(one));
    QCOMPARE(views->count(), 2);
    QCOMPARE(views->itemText(0), QString("study figure: at b (label = b)"));
  }

  void theParallelViewDrawsTheStudysAxesAndStartedRunsAndComparesTheBrushedOnes() {
    fl::store::RunStore store((m_dir.path() + "/parallel.db").toStdString());
    const int64_t id = makeStudy(store);  // 5 runs of 6; test/m = 10 x width + seed
    StudyLab lab(m_registry, store);
    lab.view.resize(1200, 800);
    lab.view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&lab.view));
    QVERIFY(lab.view.setStudy(id));
    QVERIFY(!lab.view.parallel()->isVisibleTo(&lab.view));
    lab.view.viewChoice()->setCurrentIndex(1);
    auto* plot = lab.view.parallel();
    QVERIFY(plot->isVisibleTo(&lab.view));
    QVERIFY(!lab.view.xChoice()->isEnabled());  // the figure's choices wait
    QVERIFY(lab.view.metricChoice()->isEnabled());

    QCOMPARE(plot->axisCount(), 2);
    QCOMPARE(plot->axisName(0), QString("width"));
    QCOMPARE(plot->axisName(1), QString("test/m"));
    std::set<int64_t> started;
    for (const auto& r : lab.view.results())
      if (r.runId) started.insert(r.runId);
    QCOMPARE(started.size(), size_t(5));
    std::set<int64_t> drawn;
    for (const auto& run : plot->data().runs) drawn.insert(run.runId);
    QCOMPARE(drawn, started);
    QVERIFY2(lab.view.parallelNote()->text().contains("1 run not started yet is not drawn"),
             qPrintable(lab.view.parallelNote()->text()));
    // width 1 at the bottom, 2 at the top; test/m from 11 (width 1, seed 1) to 22.
    QCOMPARE(plot->fractionOf(0, {1.0, "1"}), 0.0);
    QCOMPARE(plot->fractionOf(0, {2.0, "2"}), 1.0);
    QCOMPARE(plot->fractionOf(1, {11.0, {}}), 0.0);
    QCOMPARE(plot->fractionOf(1, {22.0, {}}), 1.0);

    // Brushing width 2 and comparing: its two runs.
    plot->setBrush(0, 0.9, 1.0);
    std::vector<int64_t> widthTwo;
    for (const auto& r : lab.view.results())
      if (r.runId && r.axes.at("width") == 2) widthTwo.push_back(r.runId);
    QCOMPARE(plot->brushedRuns(), widthTwo);
    QCOMPARE(lab.view.compareBrushedButton()->text(), QString("Compare brushed runs (2)"));
    QSignalSpy compare(&lab.view, &fl::gui::StudyView::compareRequested);
    QTest::mouseClick(lab.view.compareBrushedButton(), Qt::LeftButton);
    QCOMPARE(compare.count(), 1);
    QCOMPARE(compare.front().front().value<std::vector<int64_t>>(), widthTwo);
    // A double-clicked line's run comes first, the brushed runs after it.
    const int64_t widthOne = plot->data().runs.front().runId;
    emit plot->runDoubleClicked(widthOne);
    QCOMPARE(compare.count(), 2);
    QCOMPARE(compare.last().front().value<std::vector<int64_t>>(),
             (std::vector<int64_t>{widthOne, widthTwo[0], widthTwo[1]}));
    // A refresh (a run ending) keeps the range.
    lab.view.refresh();
    QCOMPARE(plot->brushedRuns(), widthTwo);
  }

  void aStudyRunOtherwiseThanThePapersShowsItsFiguresButNoVerdict() {
    fl::store::RunStore store((m_dir.path() + "/departs.db").toStdString());
    const int64_t id = makeStudy(store, {{"label", "quick"}});
    StudyLab lab(m_registry, store);
    QVERIFY(lab.view.setStudy(id));
    auto* model = lab.view.tableModel();
    const int one = rowWithWidth(*model, "1"), two = rowWithWidth(*model, "2");
    QCOMPARE(model->text(one, "test/m paper"), QString("12.500 ± 1.000"));
    QCOMPARE(model->text(one, "test/m verdict"), QString("not compared"));
    QCOMPARE(model->text(two, "test/m verdict"), QString("not compared"));
    const QModelIndex verdict = model->index(two, model->column("test/m verdict"));
    QVERIFY(model->data(verdict, Qt::ForegroundRole).value<QColor>() != QColor(170, 0, 0));
    QCOMPARE(model->data(verdict, Qt::ToolTipRole).toString(),
             QString("Departs from the paper's experiment: label quick (the paper's \"\")"));
    // Above the figure, with the departure: the paper's points there are not a comparison.
    QVERIFY2(
        lab.view.title()->text().contains("The paper's points are drawn to read, not compared."),
        qPrintable(lab.view.title()->text()));
    // What every run was set to is said with the counts (a study at epochs 10 read as one at
    // the Configure form's 500).
    QVERIFY2(lab.view.summary()->text().contains("<b>set</b>: label quick"),
             qPrintable(lab.view.summary()->text()));
  }

  // A study of fewer settings, each at the paper's: it departs in its count of runs alone, so
  // its settings are compared and nothing says they are not (it said "drawn to read, not
  // compared" above a table of verdicts).
  void aStudyOfFewerPaperSettingsIsComparedAndSaysSo() {
    fl::store::RunStore store((m_dir.path() + "/fewer.db").toStdString());
    auto spec = fl::study::StudySpec::fromText(QString::fromStdString(knownStudy().toJson().dump())
                                                   .replace("\"width\":[1,2]", "\"width\":[1]")
                                                   .toStdString());
    spec.experiment = "known";
    const auto expansion = fl::study::expandStudy(*m_registry.find("known"), spec);
    QCOMPARE(expansion.cells.size(), size_t(3));
    fl::study::StudyStore studies(store);
    const int64_t id = studies.create(spec, expansion);
    for (const auto& cell : expansion.cells) {
      const auto claim = studies.claim(id, cell.index);
      store.writeEvents(claim.runId, {fl::MetricEvent{"test/m", 1, 0.1, 12.0}});
      store.finishRun(claim.runId, fl::RunStatus::Finished, "");
    }
    StudyLab lab(m_registry, store);
    QVERIFY(lab.view.setStudy(id));
    const QString title = lab.view.title()->text();
    QVERIFY2(title.contains("3 runs (the paper's 6)"), qPrintable(title));
    QVERIFY2(!title.contains("not compared"), qPrintable(title));
    QCOMPARE(
        lab.view.tableModel()->text(rowWithWidth(*lab.view.tableModel(), "1"), "test/m verdict"),
        QString("agrees"));
  }

  void resumeAndStopAreEnabledOnlyWhenTheyHaveWork() {
    fl::store::RunStore store((m_dir.path() + "/buttons.db").toStdString());
    const int64_t id = makeStudy(store);  // one cell not run
    StudyLab lab(m_registry, store);
    QVERIFY(!lab.view.resumeButton()->isEnabled() &&
            !lab.view.stopButton()->isEnabled());  // no study
    QVERIFY(lab.view.setStudy(id));
    QVERIFY(lab.view.resumeButton()->isEnabled());
    QVERIFY(!lab.view.stopButton()->isEnabled());  // nothing of it is queued

    connect(&lab.view, &fl::gui::StudyView::resumeRequested, &lab.queue,
            [&](int64_t study) { QCOMPARE(lab.queue.addStudy(study, nullptr), int64_t(1)); });
    QTest::mouseClick(lab.view.resumeButton(), Qt::LeftButton);
    // The cell is queued (or trains, or its writer closes: the store has no final status yet):
    // nothing left to resume, and Stop has work. The lab.queue is not drained in between, so the
    // run's end cannot have been stored yet.
    QVERIFY(lab.queue.hasStudyWork(id));
    QVERIFY(!lab.view.resumeButton()->isEnabled());
    QVERIFY(lab.view.stopButton()->isEnabled());

    QTRY_VERIFY_WITH_TIMEOUT(
        (lab.queue.drain(), !lab.queue.hasStudyWork(id) && lab.queue.closingCount() == 0), 20000);
    lab.view.refresh();
    QVERIFY(lab.view.summary()->text().contains("6 finished"));
    QVERIFY(!lab.view.resumeButton()->isEnabled());
    QVERIFY(!lab.view.stopButton()->isEnabled());
    QCOMPARE(lab.view.resumeButton()->toolTip(), QString("Every run of the study finished"));
  }

  // A study another process trains (`sweep run` in a terminal) has nothing to resume here: Resume
  // only added workers beside that process. Once its run is no longer training there, it can.
  void resumeWaitsWhileAnotherProcessTrainsTheStudy() {
    fl::store::RunStore store((m_dir.path() + "/other-process.db").toStdString());
    const int64_t id = makeStudy(store);  // one cell not run: width 2, seed 3
    const auto expansion = fl::study::expandStudy(*m_registry.find("known"), knownStudy());
    int64_t cell = -1;
    for (const auto& c : expansion.cells)
      if (c.axes.at("width").get<int>() == 2 && c.seed == 3) cell = c.index;
    const int64_t run = fl::study::StudyStore(store).claim(id, cell).runId;
    store.markRunning(run, "cpu", 10, fl::store::currentProcess());  // not this window's queue
    StudyLab lab(m_registry, store);
    QVERIFY(lab.view.setStudy(id));
    QVERIFY(!lab.view.resumeButton()->isEnabled());
    QVERIFY2(lab.view.resumeButton()->toolTip().startsWith(
                 QString("Another process trains this study (run %1 running there").arg(run)),
             qPrintable(lab.view.resumeButton()->toolTip()));
    // Stop is grey too, and says why and what stops that process's runs.
    QVERIFY(!lab.view.stopButton()->isEnabled());
    QCOMPARE(lab.view.stopButton()->toolTip(),
             QString("This window trains none of the study: another process does (run %1). With "
                     "one of them shown, Stop the shown run asks that process to stop")
                 .arg(run));
    store.finishRun(run, fl::RunStatus::Interrupted, "killed");
    lab.view.refresh();
    QVERIFY(lab.view.resumeButton()->isEnabled());
  }

  // The window stopped the study; another process (`sweep resume`) then finished its runs. The
  // study shown again (Resume's refusal, or opened from History) reads as the store says, and
  // the window's views of those runs are read again, so the Runs dock follows: before, the
  // window's own "cancelled" stood over the store until it restarted.
  void aStudyFinishedByAnotherProcessReadsAsTheStoreSays() {
    const std::string path = (m_dir.path() + "/elsewhere.db").toStdString();
    fl::store::RunStore store(path);
    auto spec = fl::study::StudySpec::fromText(
        R"({"name": "endless", "grid": {"width": [1, 2]}, "seeds": [1]})");
    spec.experiment = "endless";
    const auto expansion = fl::study::expandStudy(*m_registry.find("endless"), spec);
    QVERIFY(expansion.ok());
    const int64_t id = fl::study::StudyStore(store).create(spec, expansion);
    StudyLab lab(m_registry, store);
    lab.queue.setCores(1);
    QVERIFY(lab.view.setStudy(id));
    QCOMPARE(lab.queue.addStudy(id, nullptr), int64_t(2));
    lab.queue.cancelStudy(id);  // the Study tab's Stop
    QTRY_VERIFY_WITH_TIMEOUT(
        (lab.queue.drain(), !lab.queue.hasStudyWork(id) && lab.queue.closingCount() == 0), 20000);
    // The run that started is cancelled; the one still queued was never started.
    std::vector<int64_t> runs;
    for (auto run : lab.queue.runs())
      if (lab.views.find(run)) runs.push_back(run);
    std::sort(runs.begin(), runs.end());
    QVERIFY(!runs.empty());
    for (auto run : runs) QVERIFY(lab.views.find(run)->status() == fl::RunStatus::Cancelled);
    lab.view.refresh();
    QVERIFY2(lab.view.summary()->text().contains("cancelled"),
             qPrintable(lab.view.summary()->text()));

    {  // Another process resumes the study and finishes every run, on its own connection.
      fl::store::RunStore other(path);
      fl::study::StudyStore studies(other);
      for (const auto& r : studies.results(id)) {
        const int64_t run = r.runId ? r.runId : studies.claim(id, r.cell).runId;
        other.writeEvents(run, {fl::MetricEvent{"test/m", 1, 0.1, 7.0}});
        other.finishRun(run, fl::RunStatus::Finished, "");
      }
    }
    QSignalSpy reloaded(&lab.view, &fl::gui::StudyView::runsReloaded);
    QVERIFY(lab.view.setStudy(id));  // shown again
    QVERIFY2(lab.view.summary()->text().contains("2 finished") &&
                 !lab.view.summary()->text().contains("cancelled"),
             qPrintable(lab.view.summary()->text()));
    QVERIFY(!lab.view.resumeButton()->isEnabled());
    QCOMPARE(reloaded.count(), 1);
    auto ids = reloaded.front().front().value<std::vector<int64_t>>();
    std::sort(ids.begin(), ids.end());
    QCOMPARE(ids, runs);
    for (auto run : runs) {
      QVERIFY(lab.views.find(run)->status() == fl::RunStatus::Finished);
      QCOMPARE(lab.views.find(run)->metrics().at("test/m").values.back(), 7.0);
    }
    lab.view.refresh();  // in step with the store now: nothing more to read again
    QCOMPARE(reloaded.count(), 1);
  }

  // A setting whose runs the experiment judged failing (a FourierQK filter that leaks) is named
  // above the table and figure that rank it, and under `sweep table`: a leaking filter's low
  // loss had stood among the others' without a mark.
  void settingsJudgedFailingAreNamedBesideTheTable() {
    fl::store::RunStore store((m_dir.path() + "/judged.db").toStdString());
    const int64_t id = makeStudy(store);
    fl::Verdict leaks;
    leaks.source = fl::VerdictSource::Experiment;
    leaks.subject = "leak/verdict";
    leaks.label = "LEAKS";
    leaks.passed = false;
    fl::Verdict fine = leaks;
    fine.label = "no leak";
    fine.passed = true;
    int judged = 0;
    for (const auto& r : fl::study::StudyStore(store).results(id)) {
      if (!r.runId || r.axes.at("width") != 1) continue;
      fl::StatusEvent finished{fl::RunStatus::Finished, "", "cpu", 1, 0.1, {}};
      finished.verdicts = {judged++ < 2 ? leaks : fine};
      store.writeEvents(r.runId, {finished});
    }
    QCOMPARE(judged, 3);
    StudyLab lab(m_registry, store);
    QVERIFY(showStudy(lab, id, {1200, 800}));
    const QString said =
        "Judged by the experiment: LEAKS in width=1 (2 of 3 runs); their values "
        "are not what the study compares";
    QVERIFY2(lab.view.summary()->text().contains(said), qPrintable(lab.view.summary()->text()));
    // The table the CLI prints says it too, and its JSON names the setting's count.
    fl::study::StudyTableInput input;
    input.title = "judged";
    input.axisOrder = {"width"};
    input.cells = fl::study::aggregate(fl::study::StudyStore(store).results(id));
    fl::study::TableRequest request;
    request.metrics = {"test/m"};
    QVERIFY(QString::fromStdString(fl::study::renderStudyTable(input, request)).contains(said));
    request.format = "json";
    const auto json = nlohmann::json::parse(fl::study::renderStudyTable(input, request));
    int flagged = 0;
    for (const auto& cell : json["cells"])
      if (cell.contains("failed_judgements")) {
        QCOMPARE(cell["failed_judgements"]["LEAKS"].get<int>(), 2);
        ++flagged;
      }
    QCOMPARE(flagged, 1);
  }

  // A long description is shown by its first sentence, the whole in the tooltip: a study's
  // description of a thousand characters took the tab's height at 1280 x 720.
  void aLongDescriptionShowsItsFirstSentence() {
    fl::store::RunStore store((m_dir.path() + "/described.db").toStdString());
    const nlohmann::json spec = {
        {"name", "described"},
        {"title", "Widths"},
        {"grid", {{"width", {1, 2}}}},
        {"seeds", {1}},
        {"description",
         "Two widths, one seed: 2 runs. " + QString("More detail. ").repeated(40).toStdString()},
        {"references",
         {{"source", "Paper A, table 2. Its spreads are computed from saved predictions."},
          {"rows", {{{"where", {{"width", 1}}}, {"values", {{"test/m", {1.0, 0.1}}}}}}}}}};
    const std::string text = spec.dump();
    const int64_t id = storeStudy(store, text.c_str());
    StudyLab lab(m_registry, store);
    QVERIFY(lab.view.setStudy(id));
    const QString shown = lab.view.title()->text();
    // Named as History names it, its title beside: a study named otherwise than its title read
    // by its title alone.
    QVERIFY2(shown.startsWith(QString("<h3>Study %1 described — Widths</h3>").arg(id)),
             qPrintable(shown));
    QVERIFY2(shown.contains("Two widths, one seed: 2 runs. <i>(hover for the whole "
                            "description and where the paper's values come from)</i>") &&
                 !shown.contains("More detail"),
             qPrintable(shown));
    QVERIFY(lab.view.title()->toolTip().contains("More detail. More detail."));
    QVERIFY(lab.view.title()->toolTip().contains(
        "The paper's values: Paper A, table 2. Its spreads are computed from saved predictions."));
    const nlohmann::json bare = {{"name", "bare"}, {"grid", {{"width", {1, 2}}}}, {"seeds", {1}}};
    QVERIFY(lab.view.setStudy(storeStudy(store, bare.dump().c_str())));
    QVERIFY(!lab.view.title()->text().contains("hover"));  // nothing to hover for
    QVERIFY(lab.view.title()->toolTip().isEmpty());
  }

  void aNarrowGridKeepsEverySeedColumnInView() {
    // Long labels in a pane narrower than they are: the labels give way, not the seed columns.
    fl::widgets::StudyProgressGrid grid;
    QVector<fl::widgets::GridRow> rows(3);
    for (auto& row : rows) {
      row.label = "Fourier head: dataset=gaussian frequencies=12 gamma=1e-06";
      row.cells.resize(4);
    }
    grid.setRows(rows, {"1", "2", "3", "42"});
    const int natural = grid.sizeHint().width();
    grid.resize(natural, grid.sizeHint().height());
    QCOMPARE(grid.cellRect(0, 3).right(), natural - 8 - 3 - 1);  // room for the whole label
    for (int width : {260, 200, grid.minimumSizeHint().width()}) {
      grid.resize(width, grid.sizeHint().height());
      const QRect last = grid.cellRect(2, 3);
      QVERIFY2(last.right() < width, qPrintable(QString("%1 at %2").arg(last.right()).arg(width)));
      QCOMPARE(grid.cellAt(last.center()), std::make_pair(2, 3));
      QCOMPARE(grid.cellAt(QPoint(5, last.center().y())), std::make_pair(2, -1));  // its label
    }
    QVERIFY(grid.minimumSizeHint().width() < 200);
  }

  // The grid's legend of states wraps only between states, never between a swatch and its
  // word (each colour sat beside the next state's name): every swatch and its word are joined
  // by a non-breaking space, and so is every word and the space after it.
  void theStatusLegendKeepsEachSwatchWithItsWord() {
    fl::store::RunStore store((m_dir.path() + "/legend.db").toStdString());
    StudyLab lab(m_registry, store);
    QLabel* legend = nullptr;
    for (auto* label : lab.view.findChildren<QLabel*>())
      if (label->text().contains("Click a setting")) legend = label;
    QVERIFY(legend);
    const QString text = legend->text();
    int swatches = 0;
    // Named as the header counts them: interrupted runs were drawn in "cancelled"'s colour.
    for (const QString state : {"finished", "running", "waiting&nbsp;or&nbsp;not&nbsp;started",
                                "failed", "cancelled&nbsp;or&nbsp;interrupted"}) {
      QVERIFY2(text.contains("</span>&nbsp;" + state + "&nbsp; "), qPrintable(text));
      ++swatches;
    }
    QCOMPARE(text.count("&#9632;"), swatches);
  }

  void aStudyShownWidensTheGridsPaneToItsLabels() {
    fl::store::RunStore store((m_dir.path() + "/wide.db").toStdString());
    const int64_t id = storeStudy(store, R"({"name": "wide", "grid": {"label":
        ["a setting with a rather long descriptive value", "another long descriptive value"]},
        "seeds": [1, 2, 3, 42]})");
    StudyLab lab(m_registry, store);
    QVERIFY(showStudy(lab, id, QSize(1600, 800)));
    // Room enough (2/5 of 1600): the grid is shown whole, its labels and all four seed columns.
    QTRY_VERIFY2(lab.view.grid()->width() >= lab.view.grid()->sizeHint().width(),
                 qPrintable(QString("%1 < %2")
                                .arg(lab.view.grid()->width())
                                .arg(lab.view.grid()->sizeHint().width())));
  }

  // At 1280 x 720 (the study's pane about 930 x 520, the Runs dock open) the grid's pane gets
  // what its labels need up to 2/5 of the width: it was held to 60 px, its labels "gaus…".
  void aStudyAt1280GivesTheGridItsWidth() {
    fl::store::RunStore store((m_dir.path() + "/narrow.db").toStdString());
    const int64_t id = storeStudy(store, R"({"name": "narrow", "grid": {"label":
        ["gaussian · linear", "gmm2 · fourier"]}, "seeds": [1, 2, 3, 42]})");
    StudyLab lab(m_registry, store);
    QVERIFY(showStudy(lab, id, QSize(930, 520)));
    const int wanted = std::min(lab.view.grid()->sizeHint().width(), 930 * 2 / 5 - 30);
    QTRY_VERIFY2(lab.view.grid()->width() >= wanted,
                 qPrintable(QString("%1 < %2").arg(lab.view.grid()->width()).arg(wanted)));
    // The table keeps the study's order, and no header claims a sort.
    QCOMPARE(lab.view.table()->horizontalHeader()->sortIndicatorSection(), -1);
  }

  // In a window of 1280 x 720 the study's pane is about 930 x 520: the figure and the table
  // split 3:1 left the table one row. Shown, a study's table gets several of its rows while the
  // figure keeps most of the height.
  // A cell of one-line rows that cuts its text shows it whole on hover, unless the model gives
  // the cell a tooltip of its own.
  void aCutCellShowsItsWholeTextOnHover() {
    QStandardItemModel model(1, 2);
    const QString longText = QString("Fourier head · dataset=gaussian · a long setting name");
    model.setItem(0, 0, new QStandardItem(longText));
    model.setItem(0, 1, new QStandardItem("short"));
    QTableView table;
    table.setModel(&model);
    fl::widgets::setOneLineRows(&table);
    table.setColumnWidth(0, 60);
    table.setColumnWidth(1, 200);
    table.resize(400, 200);
    table.show();
    QVERIFY(QTest::qWaitForWindowExposed(&table));
    QCOMPARE(fl::widgets::cutCellTip(table, model.index(0, 0)), longText);
    QVERIFY(fl::widgets::cutCellTip(table, model.index(0, 1)).isEmpty());  // whole already
    model.item(0, 0)->setToolTip("its own");
    QVERIFY(fl::widgets::cutCellTip(table, model.index(0, 0)).isEmpty());
    table.setColumnWidth(0, 1000);
    model.item(0, 0)->setData(QVariant(), Qt::ToolTipRole);
    QVERIFY(fl::widgets::cutCellTip(table, model.index(0, 0)).isEmpty());
  }

  void aStudyShownGivesItsTableRowsAndTheFigureItsHeight() {
    fl::store::RunStore store((m_dir.path() + "/tall.db").toStdString());
    const int64_t id = storeStudy(
        store, R"({"name": "tall", "grid": {"label": ["a", "b", "c", "d", "e", "f", "g", "h"]},
                   "seeds": [1]})");
    StudyLab lab(m_registry, store);
    QVERIFY(showStudy(lab, id, QSize(930, 520)));
    QTableView* table = lab.view.table();
    QCOMPARE(table->model()->rowCount(), 8);
    const int row = table->verticalHeader()->defaultSectionSize();
    QVERIFY(row < 2 * table->fontMetrics().height() && !table->wordWrap());  // one line a row
    QTRY_VERIFY2(
        table->viewport()->height() >= 3 * row,
        qPrintable(QString("%1 px for rows of %2").arg(table->viewport()->height()).arg(row)));
    auto* split = qobject_cast<QSplitter*>(table->parentWidget());
    QVERIFY(split);
    QVERIFY2(split->sizes()[0] >= 250, qPrintable(QString::number(split->sizes()[0])));
    QVERIFY(split->sizes()[0] > split->sizes()[1]);
  }

  // At 1920 x 1080 (the study's pane about 1400 x 760) the table took eight rows and the
  // figure's three rows of panels 60 px of curves each. Now the figure gets its rows at a
  // readable height and the table keeps at least three rows; the choices over the figure wrap
  // in a narrow pane rather than squeeze their combos to a few letters.
  void theFigureGetsItsReadableHeightAndItsChoicesWrap() {
    fl::store::RunStore store((m_dir.path() + "/rows.db").toStdString());
    const int64_t id = storeStudy(store, R"({"name": "rows",
        "grid": {"width": [1, 2], "label": ["a", "b", "c"]}, "seeds": [1],
        "figures": [{"x": "width", "metrics": ["test/m"], "panel": "label"}]})");
    fl::study::StudyStore studies(store);
    const auto record = studies.study(id);
    QVERIFY(record);
    for (size_t cell = 0; cell < 6; ++cell) {
      const auto claim = studies.claim(id, static_cast<int64_t>(cell));
      store.writeEvents(claim.runId, {fl::MetricEvent{"test/m", 1, 0.1, double(cell)}});
      store.finishRun(claim.runId, fl::RunStatus::Finished, "");
    }
    StudyLab lab(m_registry, store);
    QVERIFY(showStudy(lab, id, QSize(1400, 900)));
    QCOMPARE(lab.view.figure()->panelCount(), 3);
    QTableView* table = lab.view.table();
    const int row = table->verticalHeader()->defaultSectionSize();
    auto* scroll = qobject_cast<QScrollArea*>(lab.view.figure()->parentWidget()->parentWidget());
    QVERIFY(scroll);
    QTRY_VERIFY2(scroll->viewport()->height() >= lab.view.figure()->readableHeight(),
                 qPrintable(QString("%1 < %2")
                                .arg(scroll->viewport()->height())
                                .arg(lab.view.figure()->readableHeight())));
    QVERIFY2(table->viewport()->height() >= 3 * row,
             qPrintable(QString("%1 px for rows of %2").arg(table->viewport()->height()).arg(row)));
    // The figure's choices: one row when wide, wrapped when narrow, no combo below its width.
    auto* choices = static_cast<fl::widgets::FlowLayout*>(lab.view.figureChoices()->layout());
    QCOMPARE(choices->rows(), 1);
    lab.view.resize(700, 900);
    QTRY_VERIFY(choices->rows() > 1);
    for (QComboBox* box : {lab.view.viewChoice(), lab.view.metricChoice(), lab.view.xChoice(),
                           lab.view.groupChoice(), lab.view.panelChoice(), lab.view.bandChoice()})
      QVERIFY2(box->width() >= box->sizeHint().width(),
               qPrintable(QString("%1 < %2").arg(box->width()).arg(box->sizeHint().width())));
  }

  // An axis takes one role: the x axis, the lines or the panels. The figure drops a second
  // role, and so do the boxes, which had gone on naming it ("lines: label" over a figure whose
  // lines were not the labels).
  void anAxisTakesOneRoleInTheFiguresChoices() {
    fl::store::RunStore store((m_dir.path() + "/roles.db").toStdString());
    auto spec = fl::study::StudySpec::fromText(
        R"({"name": "roles", "grid": {"width": [1, 2], "label": ["a", "b"]}})");
    spec.experiment = "known";
    const int64_t id = fl::study::StudyStore(store).create(
        spec, fl::study::expandStudy(*m_registry.find("known"), spec));
    StudyLab lab(m_registry, store);
    QVERIFY(lab.view.setStudy(id));
    QComboBox* x = lab.view.xChoice();
    QComboBox* lines = lab.view.groupChoice();
    QComboBox* panels = lab.view.panelChoice();
    x->setCurrentIndex(x->findData("width"));
    lines->setCurrentIndex(lines->findData("label"));
    QCOMPARE(lines->currentData().toString(), QString("label"));
    x->setCurrentIndex(x->findData("label"));  // the x axis takes the lines' axis
    QCOMPARE(lines->currentText(), QString("(auto)"));
    panels->setCurrentIndex(panels->findData("label"));  // nor can the panels take it
    QCOMPARE(panels->currentText(), QString("(none)"));
    panels->setCurrentIndex(panels->findData("width"));
    QCOMPARE(panels->currentData().toString(), QString("width"));
  }

  void beforeAnyRunFinishesTheFigureSaysItWillAppear() {
    fl::store::RunStore store((m_dir.path() + "/fresh.db").toStdString());
    auto spec = fl::study::StudySpec::fromText(R"({"name": "fresh", "grid": {"width": [1, 2]},
        "figures": [{"x": "width", "metrics": ["test/m"]}]})");
    spec.experiment = "known";
    const auto expansion = fl::study::expandStudy(*m_registry.find("known"), spec);
    const int64_t id = fl::study::StudyStore(store).create(spec, expansion);
    StudyLab lab(m_registry, store);
    QVERIFY(lab.view.setStudy(id));
    QCOMPARE(lab.view.grid()->rows().size(), 2);
    // The study declares its figure, but no run has finished: the note stands in its place.
    QVERIFY(lab.view.figureNote()->isVisibleTo(&lab.view));
    QVERIFY(!lab.view.figure()->isVisibleTo(&lab.view));
    QCOMPARE(lab.view.figureNote()->text(),
             QString("The figure appears as the first runs finish."));
    // A study that declares no figure knows its metrics from its finished runs: before the
    // first, it said "This study has no metric to draw" while its runs trained.
    auto plain = fl::study::StudySpec::fromText(
        R"({"name": "plain", "grid": {"width": [1, 2]}, "seeds": [1, 2]})");
    plain.experiment = "known";
    const int64_t plainId = fl::study::StudyStore(store).create(
        plain, fl::study::expandStudy(*m_registry.find("known"), plain));
    QVERIFY(lab.view.setStudy(plainId));
    QVERIFY(lab.view.figureNote()->isVisibleTo(&lab.view));
    QCOMPARE(lab.view.figureNote()->text(),
             QString("The figure appears as the first runs finish."));
  }
};

QTEST_MAIN(TestStudyView)
#include "test_study_view.moc"
