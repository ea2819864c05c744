// Tests widgets/dashboard.h with the panels transformer experiments declare: prefix metric
// series, row-labelled and generic snapshot curves (with overlays and log axes), labelled bars,
// matrix heatmaps with a slice selector, heatmaps over steps labelled with their ticks, and
// verdicts. Widgets only (no torch), so it builds and runs in seconds.
#include <QtTest>

#include <QClipboard>
#include <QSignalSpy>

#include <QComboBox>
#include <QLabel>
#include <QMenu>
#include <QRandomGenerator>
#include <QSpinBox>
#include <QTabWidget>

#include <set>

#include <qcustomplot.h>

#include "widgets/dashboard.h"
#include "widgets/heatmap_plot.h"
#include "widgets/matrix_heatmap_plot.h"
#include "widgets/metric_plot.h"
#include "widgets/plot_frame.h"
#include "widgets/run_colors.h"
#include "widgets/snapshot_plot.h"
#include "widgets/step_ticker.h"
#include "widgets/verdict_panel.h"

using fl::PanelKind;
using fl::PanelSpec;
using fl::Snapshot;
using fl::SnapshotAxis;
using namespace fl::widgets;

namespace {

PanelSpec panel(const std::string& id, PanelKind kind, std::vector<std::string> series,
                bool logY = false) {
  return {id, id, kind, std::move(series), "x", "y", logY, ""};
}

Snapshot snapshot(const std::string& name, std::vector<int64_t> shape, std::vector<float> data,
                  std::vector<SnapshotAxis> axes, nlohmann::json meta = nlohmann::json::object()) {
  Snapshot s;
  s.name = name;
  s.shape = std::move(shape);
  s.data = std::move(data);
  s.axes = std::move(axes);
  s.meta = std::move(meta);
  return s;
}

int finitePoints(const QCPGraph* graph) {
  int n = 0;
  for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
    n += std::isfinite(it->value);
  return n;
}

// The names a legend lists, in its order.
QStringList legendNames(QCustomPlot* plot) {
  QStringList names;
  for (int i = 0; i < plot->legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i)))
      names << item->plottable()->name();
  return names;
}

QList<QCPBars*> barsOf(QCustomPlot* plot) {
  QList<QCPBars*> out;
  for (int i = 0; i < plot->plottableCount(); ++i)
    if (auto* bars = qobject_cast<QCPBars*>(plot->plottable(i))) out << bars;
  return out;
}

}  // namespace

class TestDashboardPanels : public QObject {
  Q_OBJECT

 private slots:
  void stepAxesWriteShortLabels() {
    QCOMPARE(fl::widgets::compactCount(0), QString("0"));
    QCOMPARE(fl::widgets::compactCount(750), QString("750"));
    QCOMPARE(fl::widgets::compactCount(20000), QString("20k"));
    QCOMPARE(fl::widgets::compactCount(2500), QString("2.5k"));
    QCOMPARE(fl::widgets::compactCount(1500000), QString("1.5M"));
    QCOMPARE(fl::widgets::compactCount(-40000), QString("-40k"));
    // Zoomed in, neighbouring ticks never share a label.
    QCOMPARE(fl::widgets::compactCount(10025), QString("10025"));
    QCOMPARE(fl::widgets::compactCount(10050), QString("10050"));
    QCOMPARE(fl::widgets::compactCount(1025), QString("1025"));
    // One axis in one form: a run evaluated once at step 1250 was labelled 1249, 1.25k, 1251.
    QCOMPARE(fl::widgets::compactCounts({1249, 1250, 1251}),
             (QVector<QString>{"1249", "1250", "1251"}));
    QCOMPARE(fl::widgets::compactCounts({500, 1000, 1500, 2000}),
             (QVector<QString>{"500", "1k", "1.5k", "2k"}));
    QCOMPARE(fl::widgets::compactCounts({}), QVector<QString>{});
    fl::widgets::MetricPlot plot("loss", "step", "cross-entropy");
    QVERIFY(plot.plot()->xAxis->ticker().dynamicCast<fl::widgets::StepTicker>());
  }

  // Legends sit right of the axes, one entry per row while the height holds them, then in two
  // columns, and step aside (hover names the curves) when even that does not fit or when the
  // plot asks for a compact legend of a few entries.
  void legendsNameEveryEntryTheyHaveRoomFor() {
    QCustomPlot plot;
    fl::widgets::setUpPlotFrame(&plot, "pdf", "z", "density", /*legend=*/true);
    plot.resize(500, 300);
    plot.show();  // laid out: the legend fits the plot's real height
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    auto addCurves = [&](int from, int to) {
      for (int i = from; i < to; ++i) plot.addGraph()->setName(QString("#%1 a run").arg(i));
    };
    addCurves(0, 10);
    QVERIFY(fl::widgets::fitLegend(&plot));
    QCOMPARE(plot.legend->itemCount(), 10);
    QCOMPARE(plot.legend->columnCount(), 1);
    QVERIFY(!fl::widgets::fitLegend(&plot, 6));  // a compact legend: at most six
    QVERIFY(!plot.legend->visible());
    addCurves(10, 30);
    QVERIFY(fl::widgets::fitLegend(&plot));
    QCOMPARE(plot.legend->columnCount(), 2);
    // Two columns of long names share the one column's width: the axes keep the rest.
    for (int i = 0; i < plot.graphCount(); ++i)
      plot.graph(i)->setName(
          QString("#%1 table1 dataset=gmm2 head=fourier seed=1 mse_argmax").arg(i));
    QVERIFY(fl::widgets::fitLegend(&plot));
    plot.replot();
    QCOMPARE(plot.legend->columnCount(), 2);
    QVERIFY2(plot.legend->outerRect().width() <= fl::widgets::kLegendWidthShare * plot.width() + 20,
             qPrintable(QString::number(plot.legend->outerRect().width())));
    QVERIFY(plot.axisRect()->width() > plot.width() / 2);
    addCurves(30, 80);
    QVERIFY(!fl::widgets::fitLegend(&plot));
    QVERIFY(!plot.legend->visible());
  }

  // A panel saved from its menu is the file its name says, and a folder that cannot be
  // written is said, not passed over.
  void aPlotIsSavedAsItsFileNameSays() {
    QCustomPlot plot;
    fl::widgets::setUpPlotFrame(&plot, "loss", "step", "cross-entropy", /*legend=*/false);
    plot.resize(400, 300);
    plot.addGraph()->setData({1, 2, 3}, {3, 2, 1.5});
    QTemporaryDir dir;
    const QString png = dir.path() + "/loss.png";
    QVERIFY(fl::widgets::savePlotImage(&plot, png));
    QImage image(png);
    QCOMPARE(image.width(), 800);  // twice the pixels
    const QString svg = dir.path() + "/loss.SVG";
    QVERIFY(fl::widgets::savePlotImage(&plot, svg));
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    QVERIFY(svgFile.readAll().contains("<svg"));
    const QString pdf = dir.path() + "/loss.pdf";
    QVERIFY(fl::widgets::savePlotImage(&plot, pdf));
    QFile pdfFile(pdf);
    QVERIFY(pdfFile.open(QIODevice::ReadOnly));
    QVERIFY(pdfFile.read(5) == "%PDF-");
    QVERIFY(!fl::widgets::savePlotImage(&plot, dir.path() + "/no such folder/loss.png"));
    QVERIFY(!fl::widgets::savePlotImage(&plot, dir.path() + "/no such folder/loss.svg"));
  }

  // A title longer than its panel is wide is cut at its end inside the panel (it ran past both
  // edges: "pectral purity: layer x dimension pai"), and keeps its whole text.
  void aLongTitleStaysInsideItsPanel() {
    const QString title = "Spectral purity: layer x dimension pair, every head of every layer";
    QCustomPlot plot;
    fl::widgets::setUpPlotFrame(&plot, title, "dimension pair j", "layer", /*legend=*/false);
    plot.resize(300, 220);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.replot();
    auto* element = fl::widgets::plotTitle(&plot);
    QVERIFY(element);
    QCOMPARE(element->text(), title);
    QVERIFY(QFontMetrics(element->font()).horizontalAdvance(title) > plot.width());
    QVERIFY2(element->outerRect().left() >= 0 && element->outerRect().right() <= plot.width(),
             qPrintable(QString("title from %1 to %2 in a plot %3 wide")
                            .arg(element->outerRect().left())
                            .arg(element->outerRect().right())
                            .arg(plot.width())));
    // Drawn inside it: no ink in the title's row at either edge of the panel (it was cut there).
    const QImage image = plot.toPixmap(plot.width(), plot.height()).toImage();
    const QRect row = element->outerRect();
    for (int y = row.top(); y <= row.bottom() && y < image.height(); ++y)
      for (int x :
           {0, 1, 2, 3, image.width() - 4, image.width() - 3, image.width() - 2, image.width() - 1})
        QVERIFY2(qGray(image.pixel(x, y)) > 200,
                 qPrintable(QString("ink at x %1, y %2 of the title's row").arg(x).arg(y)));
    // The axes keep the panel's width.
    QVERIFY(plot.axisRect()->outerRect().right() <= plot.width());
  }

  // A legend that says it names its entries shows each of them whole inside the plot, packed
  // under each other at its top, at any height: spread over the panel's height, the last of
  // four runs fell below a short panel's edge, unnamed, while its curve was drawn.
  void aShownLegendShowsEveryEntryInsideThePlot() {
    for (int height : {180, 200, 230, 260, 300, 400, 600}) {
      for (int curves : {1, 2, 4, 6, 9, 14, 20, 30}) {
        QCustomPlot plot;
        fl::widgets::setUpPlotFrame(&plot, "Test smoothness", "step", "s(q)", /*legend=*/true);
        plot.resize(560, height);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        for (int i = 0; i < curves; ++i)
          plot.addGraph()->setName(QString("#%1 demo · linear").arg(i));
        const bool named = fl::widgets::fitLegend(&plot);
        plot.replot();
        const QString where = QString("%1 curves at height %2").arg(curves).arg(height);
        if (!named) {
          QVERIFY2(!plot.legend->visible(), qPrintable(where));
          continue;
        }
        int lowestBottom = 0;
        for (int i = 0; i < plot.legend->itemCount(); ++i) {
          if (!plot.legend->item(i)) continue;  // an empty cell of the second column
          const QRect r = plot.legend->item(i)->outerRect();
          QVERIFY2(r.top() >= 0 && r.bottom() <= plot.height(),
                   qPrintable(where +
                              QString(": entry %1 at %2..%3").arg(i).arg(r.top()).arg(r.bottom())));
          lowestBottom = std::max(lowestBottom, r.bottom());
        }
        // Packed: the entries take their own height, not the panel's.
        const int rowHeight = plot.legend->item(0)->minimumOuterSizeHint().height();
        const int rows = plot.legend->rowCount();
        QVERIFY2(lowestBottom - plot.legend->item(0)->outerRect().top() <= rows * rowHeight + rows,
                 qPrintable(where));
      }
    }
    // Four runs in a short panel (a laptop's grid): named, all four.
    QCustomPlot plot;
    fl::widgets::setUpPlotFrame(&plot, "Test smoothness", "step", "s(q)", /*legend=*/true);
    plot.resize(560, 180);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    for (int i = 0; i < 4; ++i) plot.addGraph()->setName(QString("#%1 demo · linear").arg(i));
    QVERIFY(fl::widgets::fitLegend(&plot));
  }

  // Two metrics of several runs: the legend names each run once (its colour) and each metric
  // once (its line style), not a row per curve; one run alone gets a row per metric, named by
  // the metric and drawn in the run's colour; the hover still reads every curve by its whole
  // name.
  void severalMetricsOfSeveralRunsGetALegendOfRunsAndMetrics() {
    Dashboard d;
    d.setPanels({panel("mse", PanelKind::MetricLines, {"test/mse_argmax", "test/mse_expected"})});
    d.resize(900, 500);
    d.show();  // laid out: the legend and the axes have their real size
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    d.setRunLabel(9, "linear");
    d.setRunLabel(10, "fourier");
    d.setMetric(9, "test/mse_argmax", {1, 2}, {0.3, 0.2});
    d.setMetric(9, "test/mse_expected", {1, 2}, {0.2, 0.1});
    d.refresh();
    auto* plot = qobject_cast<MetricPlot*>(d.panel("mse"));
    // One run: its metrics alone, in its colour (the focus line names the run).
    QCOMPARE(legendNames(plot->plot()), (QStringList{"mse_argmax", "mse_expected"}));
    for (int i = 0; i < plot->plot()->legend->itemCount(); ++i) {
      auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->plot()->legend->item(i));
      QCOMPARE(qobject_cast<QCPGraph*>(item->plottable())->pen().color(), d.colors().of(9));
    }
    d.setShownRun(9);
    d.refresh();
    QCOMPARE(legendNames(plot->plot()), (QStringList{"mse_argmax", "mse_expected"}));
    // Focused on a run without these curves, the one run drawn is named: its styles alone read
    // as the focused run's (FourierQK's periods per head of #15 under #14 standard's name).
    d.setShownRun(10);
    d.refresh();
    QCOMPARE(legendNames(plot->plot()), (QStringList{"#9 linear", "mse_argmax", "mse_expected"}));
    d.setMetric(10, "test/mse_argmax", {1, 2}, {0.25, 0.15});
    d.setMetric(10, "test/mse_expected", {1, 2}, {0.15, 0.05});
    d.refresh();
    // The runs as they came, not by name ("#10" sorts before "#9").
    QCOMPARE(legendNames(plot->plot()),
             (QStringList{"#9 linear", "#10 fourier", "mse_argmax", "mse_expected"}));
    QCOMPARE(plot->curveNames().size(), 4);
    QVERIFY(plot->legendNote().isEmpty());
    // The keys draw nothing and are read by nothing: the hover names the four curves.
    plot->plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QString readout = plot->readoutAt(plot->plot()->axisRect()->center());
    QCOMPARE(readout.count("<tr>"), 4);
    QCOMPARE(readout.count("#10 fourier mse_expected"), 1);
    // The same keys while smoothing, after another refresh, and with a curve hidden and shown.
    const QStringList keys = legendNames(plot->plot());
    plot->setSmoothing(0.6);
    plot->refresh();
    plot->refresh();
    QCOMPARE(legendNames(plot->plot()), keys);
    plot->setSmoothing(0);
    // One curve hidden: three rows name the three shown curves better than four keys.
    plot->setCurveHidden("#9 linear mse_argmax", true);
    plot->refresh();
    QCOMPARE(legendNames(plot->plot()),
             (QStringList{"#9 linear mse_expected", "#10 fourier mse_argmax",
                          "#10 fourier mse_expected"}));
    plot->setCurveHidden("#9 linear mse_argmax", false);
    plot->refresh();
    QCOMPARE(legendNames(plot->plot()), keys);
    // Three more runs with one metric each (5 runs + 2 metrics for 7 curves, more than a
    // compact legend names): the metrics keyed, the runs read on hover.
    for (int64_t run : {11, 12, 13}) d.setMetric(run, "test/mse_argmax", {1, 2}, {0.3, 0.2});
    d.refresh();
    QCOMPARE(plot->curveNames().size(), 7);
    QCOMPARE(legendNames(plot->plot()), (QStringList{"mse_argmax", "mse_expected"}));
    QCOMPARE(plot->legendNote(), QString("5 runs: hover to read them"));
  }

  // A variant series (test/kl_exact beside test/kl) is drawn only when asked, for every run
  // shown then or later, and hidden again on request.
  void aSeriesOnRequestIsDrawnOnlyWhenAsked() {
    Dashboard d;
    PanelSpec kl = panel("kl", PanelKind::MetricLines, {"test/kl", "test/kl_exact"});
    kl.onRequest = {"test/kl_exact"};
    d.setPanels({kl});
    d.setRunLabel(1, "linear");
    d.setMetric(1, "test/kl", {1, 2}, {0.5, 0.4});
    d.setMetric(1, "test/kl_exact", {1, 2}, {0.6, 0.5});
    d.refresh();
    auto* plot = qobject_cast<MetricPlot*>(d.panel("kl"));
    QCOMPARE(plot->curveNames().size(), 2);  // kept, to be drawn on request
    QVERIFY(plot->isCurveHidden("#1 linear kl_exact"));
    // The key drawn alone needs no suffix; the one drawn on request keeps its own.
    QVERIFY(!plot->isCurveHidden("#1 linear"));
    QCOMPARE(legendNames(plot->plot()), QStringList{"#1 linear"});
    // A right-click on the plot opens the panel's menu (the window system's context menu
    // event reaches the plot, which passes it to its panel).
    {
      d.show();
      QVERIFY(QTest::qWaitForWindowExposed(&d));
      QSignalSpy asked(plot->plot(), &QWidget::customContextMenuRequested);
      bool opened = false;
      QTimer::singleShot(0, [&] {
        auto* popup = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        opened = popup && !popup->actions().isEmpty();
        if (popup) popup->close();
      });
      QContextMenuEvent rightClick(QContextMenuEvent::Mouse, QPoint(60, 60));
      QApplication::sendEvent(plot->plot(), &rightClick);
      QCOMPARE(asked.count(), 1);
      QVERIFY(opened);
    }
    // The panel's menu offers it, unchecked.
    QMenu* menu = d.contextMenuFor("kl");
    QAction* draw = nullptr;
    for (auto* a : menu->actions())
      if (a->text() == "Draw test/kl_exact") draw = a;
    QVERIFY(draw && draw->isCheckable() && !draw->isChecked());
    draw->trigger();
    QVERIFY(d.onRequestShown("test/kl_exact"));
    QVERIFY(!plot->isCurveHidden("#1 linear kl_exact"));
    // It sets the panel's y scale, and copies the panel as an image.
    QAction* log = nullptr;
    QAction* copy = nullptr;
    for (auto* a : menu->actions()) {
      if (a->text() == "Log y axis") log = a;
      if (a->text() == "Copy image") copy = a;
    }
    QVERIFY(log && log->isCheckable());
    QCOMPARE(log->isChecked(), plot->logY());
    const bool wasLog = plot->logY();
    log->trigger();
    QCOMPARE(plot->logY(), !wasLog);
    QCOMPARE(plot->plot()->yAxis->scaleType(), wasLog ? QCPAxis::stLinear : QCPAxis::stLogarithmic);
    log->trigger();
    QCOMPARE(plot->logY(), wasLog);
    QVERIFY(copy);
    // Save image… suggests a name by the shown runs where the window gives one.
    QCOMPARE(d.suggestedImageName("kl"), QString("kl.png"));
    d.setFileStem([] { return QString("runs-4-6-7"); });
    QCOMPARE(d.suggestedImageName("kl"), QString("runs-4-6-7-kl.png"));
    QApplication::clipboard()->clear();
    QTest::mouseMove(plot->plot(), plot->plot()->axisRect()->rect().center());
    QTRY_VERIFY(plot->crosshairVisible());  // the pointer was on the plot when it asked
    copy->trigger();
    QVERIFY(!plot->crosshairVisible());  // not drawn into the copy
    QVERIFY(!QApplication::clipboard()->pixmap().isNull());
    QCOMPARE(QApplication::clipboard()->pixmap().width(), 2 * plot->plot()->width());
    d.setMetric(2, "test/kl_exact", {1}, {0.7});  // a run shown later follows the choice
    QVERIFY(!plot->isCurveHidden("#2 kl_exact"));
    // Two runs of both keys: a legend of runs and of the keys' line styles, both named.
    d.setMetric(2, "test/kl", {1}, {0.65});
    d.refresh();
    QCOMPARE(legendNames(plot->plot()), (QStringList{"#1 linear", "#2", "kl", "kl_exact"}));
    d.setOnRequestShown("test/kl_exact", false);
    QVERIFY(plot->isCurveHidden("#1 linear kl_exact") && plot->isCurveHidden("#2 kl_exact"));
    // A panel without such series offers none.
    d.setPanels({panel("loss", PanelKind::MetricLines, {"train/loss"})});
    QMenu* plain = d.contextMenuFor("loss");
    for (auto* a : plain->actions()) QVERIFY(!a->text().startsWith("Draw "));
  }

  // One run's six series: a key per series in its colour and dashes, named by the series alone
  // (the six were named "#326 tiny, …removed_all", cut where the series differ).
  void oneRunsSixSeriesAreKeyedBySeries() {
    Dashboard d;
    d.setPanels({panel("ablated", PanelKind::MetricLines, {"test/acc_*"})});
    d.setRunLabel(326, "tiny, edited: embedding_init fourier, steps 300");
    const QStringList series{"highpass_removed_all", "highpass_removed_attn",
                             "highpass_removed_mlp", "lowpass_removed_all",
                             "lowpass_removed_attn", "lowpass_removed_mlp"};
    for (const auto& s : series)
      d.setMetric(326, "test/acc_" + s.toStdString(), {100, 200, 300}, {0.1, 0.2, 0.3});
    d.refresh();
    auto* plot = qobject_cast<MetricPlot*>(d.panel("ablated"));
    QCOMPARE(legendNames(plot->plot()), series);
    std::set<QString> styles;
    for (int i = 0; i < plot->plot()->graphCount(); ++i)
      if (plot->plot()->graph(i)->data()->isEmpty() &&
          plot->plot()->legend->hasItemWithPlottable(plot->plot()->graph(i))) {
        QCOMPARE(plot->plot()->graph(i)->pen().color(), d.colors().of(326));
        styles.insert(lineStyleOf(plot->plot()->graph(i)->pen()));
      }
    QCOMPARE(styles.size(), size_t(6));
    // Another run focused: the six styles and a key naming whose they are.
    d.setShownRun(327);
    d.refresh();
    QCOMPARE(legendNames(plot->plot()),
             QStringList{"#326 tiny, edited: embedding_init fourier, steps 300"} + series);
  }

  // Eight runs of two metrics: too many for a key per run, the two line styles are keyed and
  // the runs read on hover (it said "16 curves: hover to read them", nothing saying which
  // dashes were mse_argmax).
  void manyRunsOfTwoMetricsKeepTheirStylesKeyed() {
    Dashboard d;
    d.setPanels({panel("mse", PanelKind::MetricLines, {"test/mse_argmax", "test/mse_expected"})});
    for (int64_t run = 1; run <= 8; ++run) {
      d.setMetric(run, "test/mse_argmax", {1, 2}, {0.3, 0.2});
      d.setMetric(run, "test/mse_expected", {1, 2}, {0.2, 0.1});
    }
    d.refresh();
    auto* plot = qobject_cast<MetricPlot*>(d.panel("mse"));
    QCOMPARE(legendNames(plot->plot()), (QStringList{"mse_argmax", "mse_expected"}));
    QCOMPARE(plot->legendNote(), QString("8 runs: hover to read them"));
  }

  // An accuracy panel declares its bounds: a run that has retrieved nothing yet reads 0 on a
  // 0..1 axis, not the middle of -1..1.
  void declaredBoundsHoldTheValueAxis() {
    Dashboard d;
    PanelSpec passkey = panel("passkey", PanelKind::MetricLines, {"passkey/acc@*"});
    passkey.yFloor = 0;
    passkey.yCeiling = 1;
    d.setPanels({passkey});
    d.setMetric(1, "passkey/acc@64", {1, 2, 3}, {0, 0, 0});
    d.refresh();
    const QCPRange y = qobject_cast<MetricPlot*>(d.panel("passkey"))->plot()->yAxis->range();
    // A margin of 3% below 0 keeps the flat line at 0 above the axis line, in sight.
    QCOMPARE(y.lower, -0.03);
    QVERIFY(y.upper <= 1.03 && y.upper > 0);
    // A snapshot of accuracies (by length, by ablation) reads on the whole 0..1.
    PanelSpec bars = panel("ablation", PanelKind::SnapshotBars, {"ablation/acc"});
    bars.yFloor = 0;
    bars.yCeiling = 1;
    d.setPanels({bars});
    d.addSnapshot(snapshot("ablation/acc", {3}, {0.2f, 0.3f, 0.25f}, {{"ablation", "", {}}}), 10);
    d.refresh();
    const QCPRange b = qobject_cast<SnapshotPlot*>(d.panel("ablation"))->plot()->yAxis->range();
    QCOMPARE(b.lower, 0.0);  // bars rise from the axis
    QCOMPARE(b.upper, 1.0);
    // Curves of accuracies by length: 0..1 and the margin either side.
    PanelSpec byLength = panel("passkey_len", PanelKind::SnapshotCurves, {"passkey/by_length"});
    byLength.yFloor = 0;
    byLength.yCeiling = 1;
    d.setPanels({byLength});
    // Before its first snapshot too: QCustomPlot's 0..5 had stood until the first evaluation.
    d.refresh();
    const QCPRange empty =
        qobject_cast<SnapshotPlot*>(d.panel("passkey_len"))->plot()->yAxis->range();
    QCOMPARE(empty.lower, -0.03);
    QCOMPARE(empty.upper, 1.03);
    d.addSnapshot(snapshot("passkey/by_length", {3}, {0, 0, 0}, {{"length", "", {64, 128, 256}}}),
                  10);
    d.refresh();
    const QCPRange c = qobject_cast<SnapshotPlot*>(d.panel("passkey_len"))->plot()->yAxis->range();
    QCOMPARE(c.lower, -0.03);
    QCOMPARE(c.upper, 1.03);
  }

  // Two curves of one run in one panel (Test MSE: argmax and mean) share all but their ends: a
  // narrow legend must still tell them apart, and still start with the run's number.
  void aNarrowLegendKeepsWhatSetsItsCurvesApart() {
    const QFont font("sans", 8);
    const QString run = "#21 table1 \u00b7 dataset=gmm2 head=fourier seed=1 ";
    for (int width = 60; width <= 240; width += 20) {
      const QString argmax = fl::widgets::legendName(run + "mse_argmax", font, width);
      const QString mean = fl::widgets::legendName(run + "mse_mean", font, width);
      QVERIFY2(argmax != mean, qPrintable(QString("%1 px: %2").arg(width).arg(argmax)));
      QVERIFY(argmax.startsWith("#2") && mean.startsWith("#2"));
      QVERIFY(QFontMetrics(font).horizontalAdvance(argmax) <= width);
    }
    QCOMPARE(fl::widgets::legendName("#5 linear", font, 200), QString("#5 linear"));
    // A setting's name stays with its value where the width holds both.
    const auto metrics = [&](const QString& text) {
      return QFontMetrics(font).horizontalAdvance(text);
    };
    const QString edited = "#36 demo · epochs 600";
    const int room = metrics("#36 d… epochs 600") + 2;
    QVERIFY(metrics(edited) > room);
    QVERIFY2(fl::widgets::legendName(edited, font, room).endsWith(" epochs 600"),
             qPrintable(fl::widgets::legendName(edited, font, room)));
    // Groups by setting: the settings' names are cut, never their values ("frequenc…
    // head=fourier ×2" read the same for N = 4 and N = 12).
    for (int width = 60; width <= 240; width += 10) {
      const QString four = fl::widgets::legendName("frequencies=4 head=fourier ×2", font, width);
      const QString twelve = fl::widgets::legendName("frequencies=12 head=fourier ×2", font, width);
      QVERIFY(metrics(four) <= width && metrics(twelve) <= width);
      if (metrics("f…=12 h…=fourier ×2") <= width)
        QVERIFY2(four.contains("=4 ") && twelve.contains("=12 ") && four.endsWith("=fourier ×2"),
                 qPrintable(QString("%1 px: %2 | %3").arg(width).arg(four, twelve)));
    }
    QCOMPARE(fl::widgets::legendName("frequencies=4 head=fourier ×2", font,
                                     metrics("freq…=4 head=fourier ×2")),
             QString("freq…=4 head=fourier ×2"));
    // Narrower than the run's number and its last word: the number stays whole (ten study runs'
    // bars were listed as "#2…=1" twice).
    for (int width = 40; width <= 120; width += 5)
      for (int id : {23, 24, 31}) {
        const QString number = QString("#%1").arg(id);
        const QString name = number + " gmm2 fourier frequencies=4 gamma=0 seed=1";
        const QString shown = fl::widgets::legendName(name, font, width);
        QVERIFY(QFontMetrics(font).horizontalAdvance(shown) <= width);
        if (QFontMetrics(font).horizontalAdvance(number + "…=") <= width)
          QVERIFY2(shown.startsWith(number + " ") || shown.startsWith(number + "…"),
                   qPrintable(QString("%1 px: %2").arg(width).arg(shown)));
      }
  }

  void aLegendDrawnNarrowWidensWithItsPlot() {
    // A stored run's curves arrive once, while the window is still small: the names must not
    // stay elided to that first width once the plot is wide.
    fl::widgets::MetricPlot plot("loss", "step", "cross-entropy");
    plot.resize(280, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setCurve("#129 fourier kl_exact", Qt::red, {0, 1}, {1.0, 0.5});
    plot.refresh();
    auto nameWidth = [&] { return plot.plot()->legend->item(0)->minimumOuterSizeHint().width(); };
    const int narrow = nameWidth();
    plot.resize(900, 300);
    QTRY_VERIFY(nameWidth() > narrow);
  }

  void prefixSeriesGiveOneCurvePerKey() {
    Dashboard d;
    d.setPanels({panel("ppl", PanelKind::MetricLines, {"val/ppl@*"}, true),
                 panel("periods", PanelKind::MetricLines, {"qk/period_h*"}),
                 panel("long", PanelKind::MetricLines, {"val/ppl@1024"}),
                 panel("loss", PanelKind::MetricLines, {"train/loss"})});
    d.setRunLabel(1, "gpt");
    d.setMetric(1, "val/ppl@64", {1, 2}, {30, 20});
    d.setMetric(1, "val/ppl@128", {1, 2}, {32, 21});
    d.appendMetric(1, "val/ppl@512", {1}, {40});  // live: the first append creates the curve
    d.appendMetric(1, "val/ppl@512", {2}, {35});
    d.setMetric(1, "val/ppl@1024", {2}, {50});  // an exact key wins over a prefix
    d.setMetric(1, "qk/period_h3", {1}, {7});
    d.setMetric(1, "train/loss", {1}, {3});
    d.setMetric(1, "other/thing", {1}, {1});  // no panel: ignored
    d.setMetric(2, "val/ppl@64", {1}, {28});  // another run: its own curve

    auto* ppl = qobject_cast<MetricPlot*>(d.panel("ppl"));
    QVERIFY(ppl);
    const QStringList names = ppl->curveNames();
    QCOMPARE(names.size(), 4);
    QVERIFY(names.contains("#1 gpt @64"));
    QVERIFY(names.contains("#1 gpt @128"));
    QVERIFY(names.contains("#2 @64"));
    QCOMPARE(ppl->pointCount("#1 gpt @512"), size_t(2));
    QCOMPARE(qobject_cast<MetricPlot*>(d.panel("periods"))->curveNames(), QStringList{"#1 gpt h3"});
    QCOMPARE(qobject_cast<MetricPlot*>(d.panel("long"))->curveNames(), QStringList{"#1 gpt"});
    QCOMPARE(qobject_cast<MetricPlot*>(d.panel("loss"))->curveNames(), QStringList{"#1 gpt"});
    QCOMPARE(d.metricPlots().size(), 4);  // prefix-only panels are listed too (smoothing, export)
    d.clearData();
    QVERIFY(ppl->curveNames().isEmpty());
  }

  void rowLabelsDrawEveryRow() {
    Dashboard d;
    d.setPanels({panel("by_pos", PanelKind::SnapshotCurves, {"loss/by_position"})});
    d.addSnapshot(snapshot("loss/by_position", {3, 4}, {1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6},
                           {{"layer", "", {}}, {"position", "", {0, 10, 20, 30}}},
                           {{"row_labels", {"L0", "L1", "L2"}}}),
                  5);
    d.refresh();
    auto* plot = qobject_cast<SnapshotPlot*>(d.panel("by_pos"));
    QVERIFY(plot);
    QCOMPARE(plot->plot()->graphCount(), 3);
    for (int r = 0; r < 3; ++r) {
      QCOMPARE(plot->plot()->graph(r)->name(), QString("L%1").arg(r));
      QCOMPARE(plot->plot()->graph(r)->data()->size(), 4);
    }
    QCOMPARE(plot->plot()->graph(2)->data()->at(3)->value, 6.0);
    // One run's rows: its colour, told apart by line style.
    QCOMPARE(plot->plot()->graph(0)->pen().color(), plot->plot()->graph(1)->pen().color());
    QVERIFY(lineStyleOf(plot->plot()->graph(0)->pen()) !=
            lineStyleOf(plot->plot()->graph(1)->pen()));
    QVERIFY(lineStyleOf(plot->plot()->graph(1)->pen()) !=
            lineStyleOf(plot->plot()->graph(2)->pen()));
    QVERIFY(plot->rowSelector()->isHidden());  // every row is drawn: nothing to pick
    // x follows the data, not the PDFs' [-1, 1].
    QCOMPARE(plot->plot()->xAxis->range().lower, 0.0);
    QCOMPARE(plot->plot()->xAxis->range().upper, 30.0);
    // Compared with another run: each run named once, each row once (its line style).
    d.setShownRun(1);
    d.setRunLabel(1, "rope");
    d.setRunLabel(2, "fope");
    d.addOverlaySnapshot(2,
                         snapshot("loss/by_position", {3, 4}, std::vector<float>(12, 1.0f),
                                  {{"layer", "", {}}, {"position", "", {0, 10, 20, 30}}},
                                  {{"row_labels", {"L0", "L1", "L2"}}}),
                         10);
    d.refresh();
    QCOMPARE(legendNames(plot->plot()), (QStringList{"#1 rope", "#2 fope", "L0", "L1", "L2"}));
    // A third run of one row: its solid line is not "L0", so every curve is named.
    d.setRunLabel(3, "alibi");
    d.addOverlaySnapshot(3,
                         snapshot("loss/by_position", {4}, std::vector<float>(4, 2.0f),
                                  {{"position", "", {0, 10, 20, 30}}}),
                         10);
    d.refresh();
    QCOMPARE(legendNames(plot->plot()).size(), 7);
    QVERIFY(legendNames(plot->plot()).contains("#3 alibi"));
    QVERIFY(legendNames(plot->plot()).contains("#2 fope L1"));
    QVERIFY(legendNames(plot->plot()).contains("#1 rope L1"));
  }

  // Past five rows the line styles repeat (darker): keys would name two rows alike, so a
  // comparison of six-row snapshots names every curve.
  void sixRowsOfSeveralRunsAreNamedCurveByCurve() {
    Dashboard d;
    d.setPanels({panel("response", PanelKind::SnapshotCurves, {"qk/response"})});
    d.setShownRun(1);
    const QStringList heads{"head 0", "head 1", "head 2", "head 3", "head 4", "head 5"};
    nlohmann::json labels = nlohmann::json::array();
    for (const auto& h : heads) labels.push_back(h.toStdString());
    const std::vector<SnapshotAxis> axes{{"head", "", {}}, {"f", "", {0, 1, 2}}};
    d.addSnapshot(snapshot("qk/response", {6, 3}, std::vector<float>(18, 1.0f), axes,
                           {{"row_labels", labels}}),
                  1);
    d.addOverlaySnapshot(2,
                         snapshot("qk/response", {6, 3}, std::vector<float>(18, 0.5f), axes,
                                  {{"row_labels", labels}}),
                         10);
    d.refresh();
    auto* plot = qobject_cast<SnapshotPlot*>(d.panel("response"))->plot();
    QCOMPARE(legendNames(plot).size(), 12);
    QVERIFY(legendNames(plot).contains("#2 head 5"));
  }

  // Runs grouped by a setting (their metrics drawn as the group's mean): their predictions are
  // overlaid one by one in the group's colour and listed once, by the group's name without its
  // count (which named one drawn member "head=gmm ×4") and with the members drawn, so the
  // legend says whose prediction it is; its curves keep the count.
  void membersOfAGroupOverlayInItsColourListedOnce() {
    Dashboard d;
    d.setPanels({panel("pdf", PanelKind::SnapshotCurves, {"pdf/pred_grid"}),
                 panel("loss", PanelKind::MetricLines, {"train/loss"})});
    d.setShownRun(1);
    d.setGroupLabel(2, "head=fourier", 3);
    d.setMetric(2, "train/loss", {1, 2}, {0.5, 0.4});
    QCOMPARE(qobject_cast<MetricPlot*>(d.panel("loss"))->curveNames(),
             QStringList{"head=fourier ×3"});
    for (int64_t member : {2, 3, 4}) d.setGroupLeader(member, 2);
    d.setRunLabel(5, "linear");
    Snapshot pred = snapshot("pdf/pred_grid", {3}, {0.1f, 0.5f, 0.2f}, {{"z", "", {-1, 0, 1}}});
    pred.role = fl::SnapshotRole::Prediction;
    d.addSnapshot(pred, 10);
    for (int64_t run : {2, 3, 4, 5}) d.addOverlaySnapshot(run, pred, 10);
    d.refresh();
    QCustomPlot* plot = qobject_cast<SnapshotPlot*>(d.panel("pdf"))->plot();
    QCOMPARE(plot->graphCount(), 5);
    int members = 0;
    const QString group = "head=fourier #2, #3, #4";
    for (int i = 0; i < plot->graphCount(); ++i)
      if (plot->graph(i)->name() == group) {
        ++members;
        QCOMPARE(plot->graph(i)->pen().color(), d.colors().of(2));
      }
    QCOMPARE(members, 3);
    const QStringList names = legendNames(plot);
    QCOMPARE(names.size(), 3);
    QCOMPARE(names.count(group), 1);
    QVERIFY2(!names.join(" ").contains("×"), qPrintable(names.join(", ")));
    QVERIFY(names.contains("#5 linear"));
    // The shown run's prediction is named by its run, as the others' (not "predicted (density)").
    QVERIFY2(names.contains("#1"), qPrintable(names.join(", ")));
    // Ungrouped again, each run is its own curve, colour and row.
    for (int64_t member : {2, 3, 4}) d.setGroupLeader(member, member);
    d.clearGroupLabel(2);
    for (int64_t run : {2, 3, 4}) d.addOverlaySnapshot(run, pred, 10);
    d.refresh();
    QCOMPARE(legendNames(plot).size(), 5);
    QVERIFY(legendNames(plot).contains("#3"));
  }

  // The focused run a member of a group of five: its prediction and the others' are the group's,
  // named by a count past three members. At an input where two members predicted for another
  // point (another seed's test set), the three drawn are named.
  void aGroupsCurveNamesTheMembersDrawn() {
    Dashboard d;
    d.setPanels({panel("pdf", PanelKind::SnapshotCurves, {"pdf/pred_grid"})});
    d.setShownRun(3);
    d.setGroupLabel(2, "head=gmm", 5);
    for (int64_t member : {2, 3, 4, 5, 6}) d.setGroupLeader(member, 2);
    const std::vector<SnapshotAxis> axes{{"input", "", {}}, {"z", "", {-1, 0, 1}}};
    const nlohmann::json ours = {{0.2, -0.3}, {0.4, 0.1}};
    const nlohmann::json theirs = {{0.2, -0.3}, {0.9, 0.5}};  // the same first input only
    auto prediction = [&](const nlohmann::json& inputs) {
      Snapshot s = snapshot("pdf/pred_grid", {2, 3}, {0.1f, 0.5f, 0.2f, 0.3f, 0.4f, 0.3f}, axes,
                            {{"inputs", inputs}});
      s.role = fl::SnapshotRole::Prediction;
      return s;
    };
    d.addSnapshot(prediction(ours), 10);
    for (int64_t run : {2, 4}) d.addOverlaySnapshot(run, prediction(ours), 10);
    for (int64_t run : {5, 6}) d.addOverlaySnapshot(run, prediction(theirs), 10);
    d.refresh();
    auto* panel = qobject_cast<SnapshotPlot*>(d.panel("pdf"));
    QCOMPARE(legendNames(panel->plot()), QStringList{"head=gmm (5 runs)"});
    panel->rowSelector()->setValue(1);
    d.refresh();
    panel->refresh();
    QCOMPARE(legendNames(panel->plot()), QStringList{"head=gmm #2, #3, #4"});
  }

  // Runs of other seeds or datasets have another test input under the same input number: their
  // predicted density used to be drawn against the shown run's true one as if the input were
  // the same. Only runs with the shown run's true density at the chosen input are drawn; the
  // caption names the others. Without truths, the inputs themselves decide.
  void onlyRunsOfTheSameTrueDensityAreDrawnAgainstIt() {
    Dashboard d;
    d.setPanels({panel("pdf", PanelKind::SnapshotCurves, {"pdf/pred_grid", "pdf/true_grid"})});
    d.setShownRun(1);
    const std::vector<SnapshotAxis> axes{{"input", "", {}}, {"z", "", {-1, 0, 1}}};
    auto make = [&](const std::string& name, fl::SnapshotRole role, std::vector<float> data,
                    nlohmann::json inputs) {
      Snapshot s = snapshot(name, {2, 3}, std::move(data), axes, {{"inputs", inputs}});
      s.role = role;
      return s;
    };
    const nlohmann::json ours = {{0.2, -0.3}, {0.4, 0.1}};
    const nlohmann::json theirs = {{0.2, -0.3}, {0.9, 0.5}};  // the same first input only
    const std::vector<float> truth{0.1f, 0.8f, 0.1f, 0.3f, 0.4f, 0.3f};
    const std::vector<float> otherTruth{0.1f, 0.8f, 0.1f, 0.6f, 0.2f, 0.2f};
    d.addSnapshot(make("pdf/pred_grid", fl::SnapshotRole::Prediction, truth, ours), 10);
    d.addSnapshot(make("pdf/true_grid", fl::SnapshotRole::Truth, truth, ours), 10);
    for (int64_t run : {2, 3}) {  // 2: the same test set; 3: another, sharing input #0
      const bool same = run == 2;
      d.addOverlaySnapshot(
          run, make("pdf/pred_grid", fl::SnapshotRole::Prediction, truth, same ? ours : theirs),
          10);
      d.addOverlaySnapshot(run,
                           make("pdf/true_grid", fl::SnapshotRole::Truth, same ? truth : otherTruth,
                                same ? ours : theirs),
                           10);
    }
    // Run 4 has no truths: its inputs decide.
    d.addOverlaySnapshot(4, make("pdf/pred_grid", fl::SnapshotRole::Prediction, truth, theirs), 10);
    d.refresh();
    auto* plot = qobject_cast<SnapshotPlot*>(d.panel("pdf"));
    QCOMPARE(plot->plot()->graphCount(), 5);  // input #0: truth, prediction, and all three runs
    QCOMPARE(plot->caption(), QString("step 10"));
    plot->rowSelector()->setValue(1);
    d.refresh();
    plot->refresh();
    QCOMPARE(plot->plot()->graphCount(), 3);  // truth, prediction, run 2
    QCOMPARE(plot->caption(),
             QString("step 10 · not drawn, another true density at input #1: #3, #4"));
  }

  // A long caption (a seed group's runs left out of the PDF panel) used to widen its panel and
  // so its grid column: the columns stay equal, and many runs are counted, not listed.
  void aLongCaptionNeitherWidensItsColumnNorListsEveryRun() {
    Dashboard d;
    d.setPanels({panel("pdf", PanelKind::SnapshotCurves, {"pdf/pred_grid", "pdf/true_grid"}),
                 panel("loss", PanelKind::MetricLines, {"train/loss"})});
    d.setShownRun(1);
    const std::vector<SnapshotAxis> axes{{"input", "", {}}, {"z", "", {-1, 0, 1}}};
    auto make = [&](const std::string& name, fl::SnapshotRole role, std::vector<float> data) {
      Snapshot s = snapshot(name, {1, 3}, std::move(data), axes);
      s.role = role;
      return s;
    };
    d.addSnapshot(make("pdf/pred_grid", fl::SnapshotRole::Prediction, {0.1f, 0.8f, 0.1f}), 10);
    d.addSnapshot(make("pdf/true_grid", fl::SnapshotRole::Truth, {0.1f, 0.8f, 0.1f}), 10);
    for (int64_t run = 2; run <= 12; ++run) {
      d.addOverlaySnapshot(
          run, make("pdf/pred_grid", fl::SnapshotRole::Prediction, {0.2f, 0.6f, 0.2f}), 10);
      d.addOverlaySnapshot(run, make("pdf/true_grid", fl::SnapshotRole::Truth, {0.3f, 0.4f, 0.3f}),
                           10);
    }
    d.resize(2 * 380 + 20, 600);  // two columns at their narrowest
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    d.refresh();
    auto* pdf = qobject_cast<SnapshotPlot*>(d.panel("pdf"));
    QCOMPARE(pdf->caption(),
             QString("step 10 · not drawn, another true density at input #0: #2, #3, #4 and 8 "
                     "more"));
    // The caption asks for no width of its own: it wraps within what the panel has.
    for (auto* label : pdf->findChildren<QLabel*>())
      if (label->text() == pdf->caption())
        QVERIFY2(label->minimumSizeHint().width() < 150 &&
                     label->sizePolicy().horizontalPolicy() == QSizePolicy::Ignored,
                 qPrintable(QString::number(label->minimumSizeHint().width())));
    QTRY_VERIFY(d.columns() >= 2);
    QTRY_VERIFY2(qAbs(d.panel("pdf")->width() - d.panel("loss")->width()) <= 12,
                 qPrintable(QString("%1 against %2 px")
                                .arg(d.panel("pdf")->width())
                                .arg(d.panel("loss")->width())));
  }

  void genericCurvesOverlayOtherRunsOnALogAxis() {
    Dashboard d;
    d.setPanels({panel("ppl_len", PanelKind::SnapshotCurves, {"ppl/by_length"}, /*logY=*/true)});
    d.setShownRun(1);
    d.setRunLabel(2, "rope");
    const std::vector<SnapshotAxis> axes{{"length", "tokens", {64, 128, 256, 512}}};
    d.addSnapshot(snapshot("ppl/by_length", {4}, {20, 25, 0, 60}, axes), 100);
    d.addOverlaySnapshot(2, snapshot("ppl/by_length", {4}, {20, 22, 30, 40}, axes), 10);
    d.refresh();
    auto* plot = qobject_cast<SnapshotPlot*>(d.panel("ppl_len"));
    QVERIFY(plot);
    QCOMPARE(plot->overlayCount(), 1);
    QVERIFY(plot->rowSelector()->isHidden());  // one row: nothing to pick
    QCOMPARE(plot->plot()->graphCount(), 2);
    QCOMPARE(plot->plot()->graph(0)->name(), QString("#1"));  // named by run, as the other
    QCOMPARE(plot->plot()->graph(1)->name(), QString("#2 rope"));
    QCOMPARE(plot->plot()->graph(1)->pen().color(), d.colors().of(2));
    QVERIFY(d.colors().of(2) != plot->plot()->graph(0)->pen().color());
    QCOMPARE(plot->plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(finitePoints(plot->plot()->graph(0)), 3);  // the zero cannot sit on a log axis
    QVERIFY(plot->plot()->yAxis->range().lower > 0);
    QCOMPARE(plot->plot()->xAxis->range().lower, 64.0);
    QCOMPARE(plot->plot()->xAxis->range().upper, 512.0);
  }

  // A run's by-length curve is one labelled row: the shown run and the overlaid one are told
  // apart by their run colours, as in the metric panels, and named alike, by run.
  void singleLabelledRowsTakeRunColours() {
    Dashboard d;
    d.setPanels({panel("ppl_len", PanelKind::SnapshotCurves, {"ppl/by_length"}, /*logY=*/true)});
    d.setShownRun(5);
    d.setRunLabel(5, "RoPE");
    d.setRunLabel(6, "FoPE");
    const std::vector<SnapshotAxis> axes{{"run", "", {}},
                                         {"length", "tokens", {64, 128, 256, 512}}};
    d.addSnapshot(
        snapshot("ppl/by_length", {1, 4}, {20, 25, 40, 60}, axes, {{"row_labels", {"rope"}}}), 100);
    d.addOverlaySnapshot(
        6, snapshot("ppl/by_length", {1, 4}, {20, 21, 23, 25}, axes, {{"row_labels", {"fope"}}}),
        10);
    d.refresh();
    auto* plot = qobject_cast<SnapshotPlot*>(d.panel("ppl_len"));
    QCOMPARE(plot->plot()->graphCount(), 2);
    QCOMPARE(plot->plot()->graph(0)->name(), QString("#5 RoPE"));
    QCOMPARE(plot->plot()->graph(0)->pen().color(), d.colors().of(5));
    QCOMPARE(plot->plot()->graph(1)->name(), QString("#6 FoPE"));
    QCOMPARE(plot->plot()->graph(1)->pen().color(), d.colors().of(6));
    QVERIFY(d.colors().of(5) != d.colors().of(6));
    QCOMPARE(plot->plot()->graph(1)->pen().style(), Qt::SolidLine);
  }

  // Several series (a value and its interval's ends) of several runs: the legend names each run
  // once in its colour and each series once in its line style, by the panel's labels, instead
  // of a row per curve; one run alone keeps a row per series.
  void severalSeriesOfSeveralRunsGetALegendOfRunsAndSeries() {
    Dashboard d;
    PanelSpec spec = panel("passkey", PanelKind::SnapshotCurves, {"acc", "acc_lo", "acc_hi"});
    spec.seriesLabels = {"exact key", "95% low", "95% high"};
    d.setPanels({spec});
    d.setShownRun(1);
    d.setRunLabel(1, "rope");
    d.setRunLabel(2, "fope");
    d.setRunLabel(3, "alibi");
    const std::vector<SnapshotAxis> axes{{"length", "tokens", {64, 128, 256}}};
    for (const char* name : {"acc", "acc_lo", "acc_hi"})
      d.addSnapshot(snapshot(name, {3}, {0.9f, 0.5f, 0.1f}, axes), 100);
    d.refresh();
    auto* plot = qobject_cast<SnapshotPlot*>(d.panel("passkey"))->plot();
    QCOMPARE(legendNames(plot), (QStringList{"exact key", "95% low", "95% high"}));
    for (int64_t run : {2, 3})
      for (const char* name : {"acc", "acc_lo", "acc_hi"})
        d.addOverlaySnapshot(run, snapshot(name, {3}, {0.8f, 0.4f, 0.2f}, axes), 10);
    d.refresh();
    QCOMPARE(legendNames(plot),
             (QStringList{"#1 rope", "#2 fope", "#3 alibi", "exact key", "95% low", "95% high"}));
    int drawn = 0;
    for (int i = 0; i < plot->graphCount(); ++i) {
      auto* graph = plot->graph(i);
      const bool key = graph->data()->isEmpty();
      drawn += !key;
      QCOMPARE(plot->legend->hasItemWithPlottable(graph), key);  // keys only, no curve listed
    }
    QCOMPARE(drawn, 9);
    // A run's key in its colour, a series' key in its line style.
    auto keyNamed = [&](const QString& name) {
      for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->name() == name && plot->graph(i)->data()->isEmpty())
          return plot->graph(i);
      return static_cast<QCPGraph*>(nullptr);
    };
    QCOMPARE(keyNamed("#3 alibi")->pen().color(), d.colors().of(3));
    QCOMPARE(keyNamed("#3 alibi")->pen().style(), Qt::SolidLine);
    QCOMPARE(lineStyleOf(keyNamed("95% low")->pen()), lineStyleOf(seriesPen(Qt::black, 1)));
    QCOMPARE(lineStyleOf(keyNamed("95% high")->pen()), lineStyleOf(seriesPen(Qt::black, 2)));
  }

  // The Fourier head's PDF panel keeps its names, densities and range: the snapshots declare
  // their roles (truth, prediction), whatever their names.
  void pdfSnapshotsKeepTheirMeaning() {
    Dashboard d;
    d.setPanels({panel("pdf", PanelKind::SnapshotCurves, {"dist/a", "dist/b"})});
    const std::vector<SnapshotAxis> axes{{"input", "", {}},
                                         {"z", "", {-0.75f, -0.25f, 0.25f, 0.75f}}};
    auto truth = snapshot("dist/a", {2, 4}, {0.25f, 0.25f, 0.25f, 0.25f, 0, 0, 0.5f, 0.5f}, axes);
    truth.valueLabel = "probability";
    truth.role = fl::SnapshotRole::Truth;
    auto pred = truth;
    pred.name = "dist/b";
    pred.role = fl::SnapshotRole::Prediction;
    d.addSnapshot(truth, 3);
    d.addSnapshot(pred, 3);
    d.addOverlaySnapshot(2, pred, 10);  // bins do not overlay
    d.setRunLabel(0, "linear");
    d.refresh();
    auto* plot = qobject_cast<SnapshotPlot*>(d.panel("pdf"));
    QCOMPARE(plot->overlayCount(), 0);
    QCOMPARE(plot->plot()->graphCount(), 2);
    QCOMPARE(plot->plot()->graph(0)->name(), QString("true (bins)"));
    // Among several runs, the shown run's bins are named by it, as its legend label reads (its
    // number, then "linear"); the other's are not drawn.
    const QString bins = plot->plot()->graph(1)->name();
    QVERIFY2(bins.startsWith('#') && bins.endsWith(" linear (bins)"), qPrintable(bins));
    QCOMPARE(plot->plot()->graph(0)->pen().color(), fl::widgets::truthColor());
    QCOMPARE(plot->plot()->graph(0)->data()->at(0)->value, 0.5);  // 0.25 / bin width 0.5
    QCOMPARE(plot->plot()->xAxis->range().lower, -1.0);           // the outer half bins included
    QCOMPARE(plot->plot()->xAxis->range().upper, 1.0);
    QVERIFY(!plot->rowSelector()->isHidden());
    QCOMPARE(plot->rowSelector()->maximum(), 1);
    plot->rowSelector()->setValue(1);
    QCOMPARE(plot->plot()->graph(0)->data()->at(3)->value, 1.0);
  }

  void barsUseTextLabelsAndDistinctColours() {
    Dashboard d;
    d.setPanels({panel("ablation", PanelKind::SnapshotBars, {"ablation/ppl", "ablation/ppl_long"},
                       /*logY=*/true)});
    const nlohmann::json meta{{"labels", {"full", "-low MLP", "-high attn"}}};
    d.addSnapshot(snapshot("ablation/ppl", {3}, {10, 0, 15}, {{"variant", "", {}}}, meta), 9);
    d.addSnapshot(snapshot("ablation/ppl_long", {3}, {11, 13, 16}, {{"variant", "", {}}}, meta), 9);
    d.refresh();
    auto* plot = qobject_cast<SnapshotPlot*>(d.panel("ablation"));
    QVERIFY(plot);
    const auto bars = barsOf(plot->plot());
    QCOMPARE(bars.size(), 2);
    QCOMPARE(bars[0]->data()->size(), 2);  // the zero bar cannot sit on a log axis
    QCOMPARE(bars[1]->data()->size(), 3);
    // One run's two series: its colour, told apart by the fill.
    QVERIFY(bars[0]->brush().style() != bars[1]->brush().style());
    QVERIFY(plot->plot()->legend->visible());
    auto ticker = plot->plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().values(), (QList<QString>{"full", "-low MLP", "-high attn"}));
    QCOMPARE(ticker->ticks().keys(), (QList<double>{0, 1, 2}));
    QCOMPARE(plot->plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
  }

  // Each bar's label is drawn whole: the last one ("-high both" under the ablation's seventh
  // bar) ran past the plot's right edge, where no legend column leaves room.
  void everyBarLabelFitsInsideThePlot() {
    const QStringList labels{"full",       "-low MLP",  "-high MLP", "-low attn",
                             "-high attn", "-low both", "-high both"};
    for (int runs : {1, 2})
      for (int width : {320, 420, 600, 900}) {
        SnapshotPlot plot("ablation", SnapshotPlot::Mode::Bars, {"acc"}, "variant", "accuracy");
        plot.resize(width, 300);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        nlohmann::json names = nlohmann::json::array();
        for (const QString& label : labels) names.push_back(label.toStdString());
        const auto bars = snapshot("acc", {7}, {1, 0.9f, 0.2f, 0.95f, 0.5f, 0.8f, 0.1f},
                                   {{"ablation", "", {0, 1, 2, 3, 4, 5, 6}}}, {{"labels", names}});
        // Large labels: the font differs between platforms, and a small one fitted by chance.
        QFont font = plot.plot()->xAxis->tickLabelFont();
        font.setPointSize(13);
        plot.plot()->xAxis->setTickLabelFont(font);
        plot.setSnapshot(bars, 1);
        if (runs == 2) plot.setOverlaySnapshot(2, "#2", Qt::red, bars);
        plot.refresh();
        plot.plot()->replot();
        plot.plot()->replot();  // once more: a first layout may ask for another
        QCPAxis* x = plot.plot()->xAxis;
        const QFontMetrics metrics(x->tickLabelFont());
        const double slant = x->tickLabelRotation() * M_PI / 180;
        // Where the labels may go: to the plot's edge, or to the legend beside the axes.
        const double right = plot.plot()->legend->visible()
                                 ? plot.plot()->axisRect()->outerRect().right()
                                 : plot.plot()->width();
        const auto ticks = x->ticker().dynamicCast<QCPAxisTickerText>()->ticks();
        QCOMPARE(ticks.size(), labels.size());
        double previousEnd = -1;
        for (auto it = ticks.cbegin(); it != ticks.cend(); ++it) {
          QVERIFY(x->range().contains(it.key()));
          const double at = x->coordToPixel(it.key());
          const int w = metrics.horizontalAdvance(it.value());
          // Level: centred on its bar; slanted: from its bar down and to the right.
          const double start = slant ? at : at - w / 2.0;
          const double end = slant
                                 ? at + w * std::cos(slant) + metrics.height() * std::sin(slant) / 2
                                 : at + w / 2.0;
          QVERIFY2(start >= 0 && end <= right + 1,
                   qPrintable(QString("%1 from %2 to %3 in %4 px (runs %5, width %6)")
                                  .arg(it.value())
                                  .arg(start)
                                  .arg(end)
                                  .arg(right)
                                  .arg(runs)
                                  .arg(width)));
          if (!slant) QVERIFY2(start >= previousEnd, qPrintable(it.value() + " overlaps"));
          previousEnd = end;
        }
        // Level where there is room, slanted only where there is not.
        if (width == 320 || width == 900)
          QVERIFY2((slant != 0) == (width == 320),
                   qPrintable(QString("runs %1, width %2").arg(runs).arg(width)));
      }
  }

  // A plot with nothing in its legend (one run's bars) takes the height a listed one does: an
  // empty legend used to cap the plot's row at its margins (bars 50 px high in a 280 px plot).
  void anEmptyLegendLeavesThePlotItsHeight() {
    QList<int> heights;
    for (int runs : {1, 2}) {
      SnapshotPlot plot("spectrum", SnapshotPlot::Mode::Bars, {"s"}, "k", "|c_k|");
      plot.resize(450, 300);
      plot.show();
      QVERIFY(QTest::qWaitForWindowExposed(&plot));
      const std::vector<SnapshotAxis> k{{"k", "", {1, 2, 3}}};
      plot.setSnapshot(snapshot("s", {3}, {1.0f, 0.5f, 0.25f}, k), 1);
      if (runs == 2)
        plot.setOverlaySnapshot(2, "#2", Qt::red, snapshot("s", {3}, {1.0f, 0.5f, 0.25f}, k));
      plot.refresh();
      plot.plot()->replot();
      QCOMPARE(plot.plot()->legend->visible(), runs == 2);
      heights << plot.plot()->axisRect()->height();
    }
    QCOMPARE(heights[0], heights[1]);
    QVERIFY2(heights[0] > 150, qPrintable(QString::number(heights[0])));
  }

  // In a comparison each run's bars stand beside the shown run's, in the run's colour, named
  // in a legend; a run alone has no legend (nothing to tell apart).
  void comparedRunsBarsStandBesideTheShownRunsInTheirColours() {
    Dashboard d;
    d.setPanels({panel("spectrum", PanelKind::SnapshotBars, {"spectrum/abs_c"})});
    d.setRunLabel(1, "fourier");
    d.setRunLabel(2, "fourier reg");
    d.setShownRun(1);
    const std::vector<SnapshotAxis> k{{"k", "", {1, 2, 3}}};
    d.addSnapshot(snapshot("spectrum/abs_c", {3}, {1.0f, 0.5f, 0.25f}, k), 10);
    d.refresh();
    auto* plot = qobject_cast<SnapshotPlot*>(d.panel("spectrum"));
    QVERIFY(plot);
    QCOMPARE(barsOf(plot->plot()).size(), 1);
    QVERIFY(!plot->plot()->legend->visible());
    d.addOverlaySnapshot(2, snapshot("spectrum/abs_c", {3}, {0.9f, 0.1f, 0.01f}, k), 10);
    d.refresh();
    const auto bars = barsOf(plot->plot());
    QCOMPARE(bars.size(), 2);
    QCOMPARE(bars[0]->brush().color(), d.colors().of(1));
    QCOMPARE(bars[1]->brush().color(), d.colors().of(2));
    QCOMPARE(legendNames(plot->plot()), (QStringList{"#1 fourier", "#2 fourier reg"}));
    QVERIFY(plot->plot()->legend->visible());
    // Side by side at each frequency: the shown run's left of the compared run's, not on it.
    const double ownValues[] = {1.0, 0.5, 0.25};
    const float theirValues[] = {0.9f, 0.1f, 0.01f};
    for (int i = 0; i < 3; ++i) {
      const auto own = bars[0]->data()->at(i);
      const auto theirs = bars[1]->data()->at(i);
      QCOMPARE(own->mainValue(), ownValues[i]);
      QCOMPARE(theirs->mainValue(), double(theirValues[i]));
      QVERIFY(own->mainKey() < i + 1 && theirs->mainKey() > i + 1);
      QVERIFY(theirs->mainKey() - own->mainKey() >= bars[0]->width() - 1e-9);
    }
    QCOMPARE(plot->caption(), QString("step 10"));

    // Grouped by setting, the shown run a member: its bars and the other member's take the
    // group's colour and name, listed once (the shown one read "#1 fourier" beside the group).
    d.setGroupLabel(1, "head=fourier", 2);
    d.setGroupLeader(2, 1);
    d.addOverlaySnapshot(2, snapshot("spectrum/abs_c", {3}, {0.9f, 0.1f, 0.01f}, k), 10);
    d.refresh();
    QCOMPARE(legendNames(plot->plot()), QStringList{"head=fourier"});
    for (auto* set : barsOf(plot->plot())) QCOMPARE(set->brush().color(), d.colors().of(1));
  }

  // Two runs' several series of bars: a legend of runs (colours) and series (fills), not one
  // row per set whose names, cut in their middle, left "lowpass" and "highpass" alike.
  void severalSeriesOfSeveralRunsBarsGetALegendOfRunsAndSeries() {
    Dashboard d;
    PanelSpec errors = panel("errors", PanelKind::SnapshotBars,
                             {"errors/lowpass_removed_all", "errors/highpass_removed_all"});
    errors.seriesLabels = {"lowpass removed", "highpass removed"};
    d.setPanels({errors});
    d.setRunLabel(7, "add-random");
    d.setRunLabel(8, "add-fourier");
    d.setShownRun(7);
    const std::vector<SnapshotAxis> kind{{"error", "", {0, 1}}};
    for (const auto& name : errors.series) {
      d.addSnapshot(snapshot(name, {2}, {0.2f, 0.1f}, kind), 10);
      d.addOverlaySnapshot(8, snapshot(name, {2}, {0.4f, 0.3f}, kind), 10);
    }
    d.refresh();
    auto* plot = qobject_cast<SnapshotPlot*>(d.panel("errors"))->plot();
    int drawn = 0;
    for (auto* set : barsOf(plot)) drawn += set->data()->size() > 0;
    QCOMPARE(drawn, 4);
    QCOMPARE(legendNames(plot), (QStringList{"#7 add-random", "#8 add-fourier", "lowpass removed",
                                             "highpass removed"}));
  }

  // A linear head beside a Fourier head: the focused linear run has no spectrum, so each panel
  // draws the compared run's (bars: its latest; heatmaps: the first compared run that has some)
  // and says whose it is, until the focused run has its own.
  void aFocusedRunWithoutThePanelsDataShowsTheComparedRuns() {
    Dashboard d;
    d.setPanels({panel("bars", PanelKind::SnapshotBars, {"spectrum/abs_c"}),
                 panel("evolution", PanelKind::HeatmapOverSteps, {"spectrum/abs_c"}),
                 panel("matrix", PanelKind::SnapshotHeatmap, {"coeffs"})});
    d.setRunLabel(1, "linear");
    d.setRunLabel(2, "gmm");
    d.setRunLabel(3, "fourier");
    d.setShownRun(1);
    const std::vector<SnapshotAxis> k{{"k", "", {1, 2, 3}}};
    const std::vector<SnapshotAxis> rc{{"row", "", {}}, {"column", "", {}}};
    d.addOverlaySnapshot(2, snapshot("other", {1}, {1.0f}, {{"i", "", {}}}), 5);  // nothing here
    for (int step : {10, 20, 30}) {
      d.addOverlaySnapshot(3, snapshot("spectrum/abs_c", {3}, {1.0f, 0.5f, float(step)}, k), step);
      d.addOverlaySnapshot(3, snapshot("coeffs", {2, 2}, {1, 2, 3, float(step)}, rc), step);
    }
    d.refresh();
    auto* bars = qobject_cast<SnapshotPlot*>(d.panel("bars"));
    auto* evolution = qobject_cast<HeatmapPlot*>(d.panel("evolution"));
    auto* matrix = qobject_cast<MatrixHeatmapPlot*>(d.panel("matrix"));
    QVERIFY(bars && evolution && matrix);
    QCOMPARE(barsOf(bars->plot()).size(), 1);
    QCOMPARE(barsOf(bars->plot())[0]->data()->at(2)->mainValue(), 30.0);  // the latest
    QCOMPARE(barsOf(bars->plot())[0]->brush().color(), d.colors().of(3));
    QCOMPARE(legendNames(bars->plot()), QStringList{"#3 fourier"});  // whose they are
    QCOMPARE(bars->caption(),
             QString("#1 linear has none yet; the compared runs' latest are drawn"));
    QCOMPARE(evolution->columns(), size_t(3));
    QCOMPARE(evolution->drawnOtherRun(), QString("#3 fourier"));
    QCOMPARE(evolution->emptyNote(), QString());
    QCOMPARE(plotTitle(evolution->plot())->text(), QString("evolution · #3 fourier"));
    QCOMPARE(evolution->colorMap()->data()->cell(2, 2), 30.0);
    QCOMPARE(matrix->caption(), QString("#3 fourier's, step 30 (the focused run has none)"));
    QCOMPARE(matrix->colorMap()->data()->cell(1, 1), 30.0);
    d.setShownRunEnded(true);
    d.refresh();
    QCOMPARE(bars->caption(),
             QString("#1 linear recorded none; the compared runs' latest are drawn"));
    // The focused run's own, once it has some; beside the compared run the heatmaps say it is
    // the focused run's (one run of several is drawn, and nothing said which).
    d.addSnapshot(snapshot("spectrum/abs_c", {3}, {7, 7, 7}, k), 40);
    d.addSnapshot(snapshot("coeffs", {2, 2}, {7, 7, 7, 7}, rc), 40);
    d.refresh();
    QCOMPARE(evolution->columns(), size_t(1));
    QCOMPARE(evolution->drawnOtherRun(), QString());
    QCOMPARE(plotTitle(evolution->plot())->text(), QString("evolution · #1 linear"));
    QCOMPARE(evolution->colorMap()->data()->cell(0, 0), 7.0);
    QCOMPARE(matrix->caption(), QString("#1 linear's, step 40"));
    QCOMPARE(bars->caption(), QString("step 40"));
    QCOMPARE(barsOf(bars->plot()).size(), 2);
    // Another comparison starts clean: nothing of run 3 is left to draw.
    d.clearData();
    d.refresh();
    QCOMPARE(evolution->columns(), size_t(0));
    QVERIFY(!evolution->emptyNote().isEmpty());
    QVERIFY(!matrix->hasData());
    // A run alone: the titles and captions are the panels' own.
    d.addSnapshot(snapshot("spectrum/abs_c", {3}, {7, 7, 7}, k), 50);
    d.addSnapshot(snapshot("coeffs", {2, 2}, {7, 7, 7, 7}, rc), 50);
    d.refresh();
    QCOMPARE(plotTitle(evolution->plot())->text(), QString("evolution"));
    QCOMPARE(matrix->caption(), QString("step 50"));
  }

  // A snapshot's x_marks become a dashed line and a label each over curves, ticks on a top axis
  // over a heatmap; a mark outside the drawn x range is left out, and a snapshot without marks
  // clears them.
  void xMarksAreDrawnWhereTheSnapshotAsks() {
    const nlohmann::json marks = nlohmann::json::parse(
        R"([{"at": 2.5, "label": "period 4"}, {"at": 4, "label": "period 2.5"},
            {"at": 50, "label": "period 0.2"}])");
    const std::vector<SnapshotAxis> axes{{"module", "", {0, 1}}, {"k", "", {1, 2, 3, 4, 5}}};
    Dashboard d;
    d.setPanels({panel("curves", PanelKind::SnapshotCurves, {"lens/modules"}),
                 panel("map", PanelKind::SnapshotHeatmap, {"lens/mlp"})});
    d.addSnapshot(snapshot("lens/modules", {2, 5}, {1, 2, 3, 4, 5, 5, 4, 3, 2, 1}, axes,
                           {{"row_labels", {"attention", "MLP"}}, {"x_marks", marks}}),
                  3);
    d.addSnapshot(
        snapshot("lens/mlp", {2, 5}, {1, 2, 3, 4, 5, 5, 4, 3, 2, 1},
                 {{"layer", "", {1, 2}}, {"k", "", {1, 2, 3, 4, 5}}}, {{"x_marks", marks}}),
        3);
    d.refresh();
    const auto texts = [](QCustomPlot* plot) {
      QStringList out;
      for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(i))) out << text->text();
      return out;
    };
    const auto lines = [](QCustomPlot* plot) {
      QList<double> at;
      for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* line = qobject_cast<QCPItemStraightLine*>(plot->item(i)))
          at << line->point1->coords().x();
      return at;
    };
    auto* curves = qobject_cast<SnapshotPlot*>(d.panel("curves"))->plot();
    auto* map = qobject_cast<MatrixHeatmapPlot*>(d.panel("map"))->plot();
    QCOMPARE(texts(curves), (QStringList{"period 4", "period 2.5"}));
    QCOMPARE(lines(curves), (QList<double>{2.5, 4}));
    // Over the image: ticks on a top axis, no line through the cells.
    QCOMPARE(map->itemCount(), 0);
    QVERIFY(map->xAxis2->visible());
    auto top = map->xAxis2->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(top);
    QCOMPARE(top->ticks().keys(), (QList<double>{2.5, 4}));
    QCOMPARE(top->ticks().values(), (QStringList{"period 4", "period 2.5"}));
    QCOMPARE(map->xAxis2->range(), map->xAxis->range());
    // Redrawn, not stacked; gone with a snapshot that has none.
    d.addSnapshot(snapshot("lens/modules", {2, 5}, {1, 2, 3, 4, 5, 5, 4, 3, 2, 1}, axes,
                           {{"row_labels", {"attention", "MLP"}}}),
                  4);
    d.addSnapshot(snapshot("lens/mlp", {2, 5}, {1, 2, 3, 4, 5, 5, 4, 3, 2, 1},
                           {{"layer", "", {1, 2}}, {"k", "", {1, 2, 3, 4, 5}}}),
                  4);
    d.refresh();
    QCOMPARE(curves->itemCount(), 0);
    QVERIFY(!map->xAxis2->visible());
  }

  // Marks too close for their labels at the plot's width keep their tick without the label
  // ("period 2.5period 2" ran together over the logit lens); wider, every label is drawn.
  void marksTooCloseForTheirLabelsDrawOnlyThoseThatFit() {
    const nlohmann::json marks = nlohmann::json::parse(
        R"([{"at": 3.9, "label": "period 10"}, {"at": 7.8, "label": "period 5"},
            {"at": 15.6, "label": "period 2.5"}, {"at": 17.5, "label": "period 2"}])");
    std::vector<float> k;
    for (int i = 1; i <= 19; ++i) k.push_back(float(i));
    MatrixHeatmapPlot plot("lens", {"lens/mlp"}, "k", "layer");
    plot.resize(360, 260);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setSnapshot(snapshot("lens/mlp", {1, 19}, std::vector<float>(19, 1.0f),
                              {{"layer", "", {1}}, {"k", "", k}}, {{"x_marks", marks}}),
                     3);
    plot.refresh();
    plot.plot()->replot();
    auto labels = [&] {
      return plot.plot()->xAxis2->ticker().dynamicCast<QCPAxisTickerText>()->ticks().values();
    };
    QCOMPARE(labels(), (QStringList{"period 10", "period 5", "period 2.5", ""}));
    plot.resize(1400, 260);
    QTRY_COMPARE(labels(), (QStringList{"period 10", "period 5", "period 2.5", "period 2"}));
  }

  // Two rows at frequencies 1 and 0.316 (FoPE's kept frequencies): labelled at their rows only.
  // Numeric ticks over the rows' range read -0.25 .. 1.25, frequencies no row has.
  void fractionalRowsAreLabelledAtTheirCellsOnly() {
    MatrixHeatmapPlot plot("coef", {"fope/coef_cos"}, "dimension pair j", "frequency w_f");
    plot.resize(400, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setSnapshot(snapshot("fope/coef_cos", {2, 4}, {1, 2, 3, 4, 4, 3, 2, 1},
                              {{"w_f", "", {1.0f, 0.316f}}, {"j", "", {0, 1, 2, 3}}}),
                     3);
    plot.refresh();
    plot.plot()->replot();
    auto rows = plot.plot()->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(rows);
    QCOMPARE(rows->ticks().size(), 2);
    // Each row under its own label: the first row (w_f 1, values 1..4) had been drawn where
    // "0.316" is, the rows' labels swapped.
    const auto labelAtRow = [&](int row) {
      double key = 0, value = 0;
      plot.colorMap()->data()->cellToCoord(0, row, &key, &value);
      for (auto it = rows->ticks().begin(); it != rows->ticks().end(); ++it)
        if (std::abs(it.key() - value) < 1e-6) return it.value();
      return QString("(no label at %1)").arg(value);
    };
    QCOMPARE(labelAtRow(0), QString("1"));
    QCOMPARE(labelAtRow(1), QString("0.316"));
    QCOMPARE(plot.colorMap()->data()->cell(0, 0), 1.0);
    QCOMPARE(plot.colorMap()->data()->cell(0, 1), 4.0);
    // Ascending, the rows sit at their values.
    plot.setSnapshot(snapshot("fope/coef_cos", {2, 4}, {1, 2, 3, 4, 4, 3, 2, 1},
                              {{"w_f", "", {0.316f, 1.0f}}, {"j", "", {0, 1, 2, 3}}}),
                     4);
    plot.refresh();
    plot.plot()->replot();
    rows = plot.plot()->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(rows);
    QVERIFY(std::abs(rows->ticks().firstKey() - 0.316) < 1e-6);
    QCOMPARE(labelAtRow(0), QString("0.316"));
    // The whole-numbered columns keep their numeric ticks.
    QVERIFY(!plot.plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>());
  }

  void matrixHeatmapSliceSelectorSwitchesSlices() {
    Dashboard d;
    d.setPanels({panel("attn", PanelKind::SnapshotHeatmap, {"attn/pattern", "attn/scores"})});
    std::vector<float> data(12);
    for (int i = 0; i < 12; ++i) data[i] = static_cast<float>(i);
    d.addSnapshot(snapshot("attn/pattern", {2, 2, 3}, data,
                           {{"head", "", {}}, {"query", "tok", {}}, {"key", "tok", {}}}),
                  7);
    d.refresh();
    auto* plot = qobject_cast<MatrixHeatmapPlot*>(d.panel("attn"));
    QVERIFY(plot);
    auto* cells = plot->colorMap()->data();
    QCOMPARE(cells->keySize(), 3);    // columns: the last axis
    QCOMPARE(cells->valueSize(), 2);  // rows
    QCOMPARE(cells->cell(0, 0), 0.0);
    QCOMPARE(cells->cell(2, 1), 5.0);  // row 1, column 2 of head 0
    // Every cell whole, the outer ones too: half a cell beyond the first and last centres.
    QCOMPARE(plot->plot()->xAxis->range().lower, -0.5);
    QCOMPARE(plot->plot()->xAxis->range().upper, 2.5);
    QCOMPARE(plot->plot()->yAxis->range().lower, -0.5);
    QCOMPARE(plot->plot()->yAxis->range().upper, 1.5);
    auto* slice = plot->sliceSelector();
    QVERIFY(!slice->isHidden());
    QCOMPARE(slice->prefix(), QString("head "));
    QCOMPARE(slice->maximum(), 1);
    slice->setValue(1);
    QCOMPARE(cells->cell(0, 0), 6.0);
    QCOMPARE(cells->cell(2, 1), 11.0);
    QCOMPARE(plot->plot()->xAxis->label(), QString("key (tok)"));
    QCOMPARE(plot->plot()->yAxis->label(), QString("query (tok)"));
    QVERIFY(plot->colorMap()->gradient() == sequentialGradient());

    // A second series, with both signs: picked with the combo, diverging colours around zero.
    d.addSnapshot(
        snapshot("attn/scores", {2, 2}, {-1, 2, 0.5f, -3}, {{"query", "", {}}, {"key", "", {}}}),
        7);
    QVERIFY(!plot->seriesSelector()->isHidden());
    plot->seriesSelector()->setCurrentIndex(1);
    QCOMPARE(plot->colorMap()->data()->keySize(), 2);
    QCOMPARE(plot->colorMap()->data()->cell(1, 1), -3.0);
    QVERIFY(plot->sliceSelector()->isHidden());
    QVERIFY(plot->colorMap()->gradient() == QCPColorGradient(QCPColorGradient::gpPolar));
    QCOMPARE(plot->colorMap()->dataRange().lower, -3.0);
    QCOMPARE(plot->colorMap()->dataRange().upper, 3.0);

    d.clearData();
    QVERIFY(!plot->hasData());
    QVERIFY(!plot->colorMap()->visible());
  }

  // An empty panel says "yet" only while the shown run can still fill it; the state holds for
  // panels built after it was set, and a panel with data names its step whatever the state.
  void anEmptyPanelSaysWhetherTheRunCanStillFillIt() {
    Dashboard d;
    const std::vector<PanelSpec> panels{
        panel("response", PanelKind::SnapshotCurves, {"qk/response"}),
        panel("attn", PanelKind::SnapshotHeatmap, {"attn/pattern"}),
        panel("spectra", PanelKind::HeatmapOverSteps, {"spectrum/abs_c"})};
    d.setPanels(panels);
    d.setShownRun(3);
    d.refresh();
    auto captions = [&d] {
      return QStringList{qobject_cast<SnapshotPlot*>(d.panel("response"))->caption(),
                         qobject_cast<MatrixHeatmapPlot*>(d.panel("attn"))->caption(),
                         qobject_cast<HeatmapPlot*>(d.panel("spectra"))->emptyNote()};
    };
    const QString yet = "no data for this run yet";
    const QString never = "this run recorded no data for this panel";
    QCOMPARE(captions(), (QStringList{yet, yet, yet}));
    d.setShownRunEnded(true);
    d.refresh();
    QCOMPARE(captions(), (QStringList{never, never, never}));
    d.setPanels(panels);
    d.refresh();
    QCOMPARE(captions(), (QStringList{never, never, never}));
    d.addSnapshot(snapshot("qk/response", {3}, {1, 2, 3}, {{"k", "", {}}}), 40);
    d.addSnapshot(snapshot("spectrum/abs_c", {3}, {1, 2, 3}, {{"k", "", {}}}), 40);
    d.refresh();
    QCOMPARE(captions(), (QStringList{"step 40", never, ""}));  // a heatmap with data says nothing
    d.setShownRunEnded(false);
    d.refresh();
    QCOMPARE(captions(), (QStringList{"step 40", yet, ""}));
  }

  // Every colour a one-signed heatmap can give stands out from the white around it: the
  // thermal scale drew the largest cell (FourierQK's longest period) white, as if missing.
  void noHeatmapCellIsDrawnInTheBackgroundsWhite() {
    Dashboard d;
    d.setPanels({panel("steps", PanelKind::HeatmapOverSteps, {"spectrum/abs_c"}),
                 panel("matrix", PanelKind::SnapshotHeatmap, {"periods"})});
    d.addSnapshot(snapshot("spectrum/abs_c", {3}, {0.1f, 0.5f, 16}, {{"k", "", {1, 2, 3}}}), 10);
    d.addSnapshot(snapshot("periods", {2, 2}, {1, 2, 3, 16}, {{"layer", "", {}}, {"head", "", {}}}),
                  10);
    d.refresh();
    const QList<QCPColorMap*> maps{qobject_cast<HeatmapPlot*>(d.panel("steps"))->colorMap(),
                                   qobject_cast<MatrixHeatmapPlot*>(d.panel("matrix"))->colorMap()};
    for (QCPColorMap* map : maps) {
      const QCPRange range = map->dataRange();
      QCOMPARE(range.upper, 16.0);
      for (int i = 0; i <= 20; ++i) {
        const double v = range.lower + i * (range.upper - range.lower) / 20;
        const QColor c = QColor::fromRgb(map->gradient().color(v, range));
        QVERIFY2(std::min({c.red(), c.green(), c.blue()}) < 200,
                 qPrintable(QString("%1 at %2 of %3").arg(c.name()).arg(v).arg(range.upper)));
      }
    }
  }

  // A single layer is one row with one tick, at its own coordinate: it spanned ticks 0 to 1
  // (two layers, it read) without ticks, and -1, 0, 1 with them.
  void aSingleRowIsOneCellWithOneTick() {
    Dashboard d;
    d.setPanels({panel("periods", PanelKind::SnapshotHeatmap, {"periods"})});
    auto* plot = qobject_cast<MatrixHeatmapPlot*>(d.panel("periods"));
    plot->resize(400, 300);
    for (const auto& [layerTicks, centre] :
         {std::pair{std::vector<float>{}, 0.0}, std::pair{std::vector<float>{1}, 1.0},
          std::pair{std::vector<float>{0}, 0.0}}) {
      d.addSnapshot(
          snapshot("periods", {1, 3}, {4, 8, 16}, {{"layer", "", layerTicks}, {"head", "", {}}}),
          10);
      d.refresh();
      plot->plot()->replot();
      QCOMPARE(plot->plot()->yAxis->range().lower, centre - 0.5);
      QCOMPARE(plot->plot()->yAxis->range().upper, centre + 0.5);
      QCOMPARE(plot->plot()->yAxis->tickVector(), QVector<double>{centre});
      QCOMPARE(plot->colorMap()->data()->cell(2, 0), 16.0);
    }
  }

  void heatmapColumnsSitAtTheirSteps() {
    // A run whose length is no multiple of its evaluation interval evaluates last off the grid;
    // drawn as evenly spaced columns, 950 read as 900 and 900 as 855.
    QRandomGenerator random(7);
    for (int trial = 0; trial < 200; ++trial) {
      Dashboard d;
      d.setPanels({panel("steps", PanelKind::HeatmapOverSteps, {"spectrum/abs_c"})});
      const int64_t every = random.bounded(1, 51);
      const int evaluations = random.bounded(2, 31);
      std::vector<int64_t> steps;
      for (int i = 0; i < evaluations; ++i) steps.push_back(every * i);
      if (trial % 2) steps.push_back(steps.back() + random.bounded(1, int(every) + 1));
      for (size_t i = 0; i < steps.size(); ++i)
        d.addSnapshot(snapshot("spectrum/abs_c", {2}, {float(i + 1), 0}, {{"k", "", {1, 2}}}),
                      steps[i]);
      d.refresh();
      auto* plot = qobject_cast<HeatmapPlot*>(d.panel("steps"));
      QCOMPARE(plot->columns(), steps.size());
      QVERIFY(!plot->colorMap()->interpolate());  // four evaluations are four columns
      QCPColorMapData* cells = plot->colorMap()->data();
      for (size_t i = 0; i < steps.size(); ++i) {
        int key = -1, value = -1;
        cells->coordToCell(double(steps[i]), 1, &key, &value);
        QCOMPARE(cells->cell(key, value), double(i + 1));
        double at = 0, unused = 0;
        cells->cellToCoord(key, value, &at, &unused);
        QCOMPARE(at, double(steps[i]));
      }
      // The axis ends half a cell past the last evaluation, not past a column drawn too late.
      const double half = (steps.back() - steps.front()) / double(cells->keySize() - 1) / 2;
      QCOMPARE(plot->plot()->xAxis->range().upper, steps.back() + half);
      QVERIFY(half <= every / 2.0);
    }
  }

  void heatmapOverStepsLabelsTheYAxisWithTicks() {
    Dashboard d;
    d.setPanels({panel("ppl_steps", PanelKind::HeatmapOverSteps, {"ppl/by_length"}, /*logY=*/true),
                 panel("spectrum", PanelKind::HeatmapOverSteps, {"spectrum/abs_c"})});
    for (int step : {10, 20}) {
      d.addSnapshot(
          snapshot("ppl/by_length", {4}, {20, 25, 30, 60}, {{"length", "", {64, 128, 256, 512}}}),
          step);
      d.addSnapshot(
          snapshot("spectrum/abs_c", {4}, {1, 0.5f, 0.2f, 0.1f}, {{"k", "", {1, 2, 3, 4}}}), step);
    }
    d.refresh();
    auto* ppl = qobject_cast<HeatmapPlot*>(d.panel("ppl_steps"));
    QVERIFY(ppl);
    QCOMPARE(ppl->columns(), size_t(2));
    // Uneven lengths: cells by index, labelled with the lengths.
    auto ticker = ppl->plot()->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().values(), (QList<QString>{"64", "128", "256", "512"}));
    QCOMPARE(ticker->ticks().keys(), (QList<double>{0, 1, 2, 3}));
    QCOMPARE(ppl->colorMap()->dataScaleType(), QCPAxis::stLogarithmic);
    // Uneven fractions (FoPE's frequencies) to three significant digits; long lengths whole.
    d.addSnapshot(snapshot("ppl/by_length", {4}, {20, 25, 30, 60},
                           {{"length", "", {0.562341f, 0.0316228f, 8192, 131072}}}),
                  30);
    d.refresh();
    ticker = ppl->plot()->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().values(), (QList<QString>{"0.562", "0.0316", "8192", "131072"}));
    // Even ticks: the axis reads in their units.
    auto* spectrum = qobject_cast<HeatmapPlot*>(d.panel("spectrum"));
    QVERIFY(!spectrum->plot()->yAxis->ticker().dynamicCast<QCPAxisTickerText>());
    QCOMPARE(spectrum->colorMap()->data()->valueRange().lower, 1.0);
    QCOMPARE(spectrum->colorMap()->data()->valueRange().upper, 4.0);
    QCOMPARE(spectrum->colorMap()->dataScaleType(), QCPAxis::stLinear);
    // The colour scale says what the colours are, as the snapshot names its values.
    Snapshot labelled =
        snapshot("spectrum/abs_c", {4}, {1, 0.5f, 0.2f, 0.1f}, {{"k", "", {1, 2, 3, 4}}});
    labelled.valueLabel = "mean |c_k|";
    d.addSnapshot(labelled, 20);
    d.refresh();
    QCOMPARE(spectrum->colorMap()->colorScale()->axis()->label(), QString("mean |c_k|"));
    QVERIFY(spectrum->colorMap()->colorScale()->dataRange().upper > 0.9);
    // Cleared for another run with nothing to draw here: no scale of the run before.
    d.clearData();
    d.refresh();
    QCOMPARE(spectrum->colorMap()->colorScale()->axis()->label(), QString());
    QCOMPARE(spectrum->colorMap()->colorScale()->dataRange(), QCPRange(0, 1));
    d.addSnapshot(labelled, 10);
    d.addSnapshot(labelled, 20);
    d.refresh();
    // The outer cells whole: half a cell beyond the first and last centres (k 1..4, steps 10, 20).
    QCOMPARE(spectrum->plot()->yAxis->range().lower, 0.5);
    QCOMPARE(spectrum->plot()->yAxis->range().upper, 4.5);
    QCOMPARE(spectrum->plot()->xAxis->range().lower, 5.0);
    QCOMPARE(spectrum->plot()->xAxis->range().upper, 25.0);
  }

  void verdictShowsTheLatestJudgement() {
    Dashboard d;
    d.setPanels({panel("causality", PanelKind::Verdict, {"check/causality"})});
    d.setShownRun(6);
    d.setRunLabel(6, "leaky");
    auto* verdict = qobject_cast<VerdictPanel*>(d.panel("causality"));
    QVERIFY(verdict);
    QCOMPARE(verdict->verdict(), QString("no verdict yet"));
    QVERIFY(!verdict->ok().has_value());

    d.addSnapshot(snapshot("check/causality", {1}, {1}, {{"check", "", {}}},
                           {{"verdict", "LEAKS"},
                            {"ok", false},
                            {"detail", "Changing token 7 moved the logits at position 3."}}),
                  10);
    QCOMPARE(verdict->verdict(), QString("LEAKS"));
    QCOMPARE(verdict->ok(), std::optional<bool>(false));
    QVERIFY(verdict->detail().contains("Changing token 7 moved the logits at position 3."));
    // Whose it is, said under it.
    QVERIFY2(verdict->detail().endsWith("(#6 leaky, step 10)"), qPrintable(verdict->detail()));
    QVERIFY(verdict->verdictColor().red() > 2 * verdict->verdictColor().green());
    QVERIFY(verdict->otherVerdicts().isEmpty());

    // Compared runs' verdicts are listed under it, each run's latest, in the order they came.
    d.setRunLabel(7, "causal");
    d.setRunLabel(8, "rope");
    auto causality = [&](const char* word, bool ok) {
      return snapshot("check/causality", {1}, {0}, {{"check", "", {}}},
                      {{"verdict", word}, {"ok", ok}, {"detail", std::string(word) + " detail"}});
    };
    d.addOverlaySnapshot(7, causality("LEAKS", false), 10);
    d.addOverlaySnapshot(8, causality("causal", true), 10);
    d.addOverlaySnapshot(7, causality("causal", true), 20);
    d.addOverlaySnapshot(8, snapshot("other/thing", {1}, {0}, {{"x", "", {}}}, {{"verdict", "x"}}),
                         20);
    QCOMPARE(verdict->otherVerdicts(), QStringList({"#7 causal: causal", "#8 rope: causal"}));
    QCOMPARE(verdict->verdict(), QString("LEAKS"));  // the focused run's
    auto others = [&] { return verdict->findChild<QLabel*>("otherVerdicts"); };
    QVERIFY(others());
    // Beside them it is a line of their size, first, naming its run: a large green "causal"
    // over a small "#15 fourier: LEAKS" read as a causal comparison.
    auto labels = verdict->findChildren<QLabel*>();
    const auto focused = std::find_if(labels.begin(), labels.end(), [](QLabel* l) {
      return l->text().contains("#6 leaky: <b style='color:#aa0000'>LEAKS</b>");
    });
    QVERIFY(focused != labels.end());
    QCOMPARE((*focused)->font().pointSize(), others()->font().pointSize());
    QVERIFY(verdict->layout()->indexOf(*focused) < verdict->layout()->indexOf(others()));
    QVERIFY2(others()->text().contains("color:#006e00") && !others()->text().contains("#aa0000"),
             qPrintable(others()->text()));
    QVERIFY2(others()->toolTip().contains("causal detail"), qPrintable(others()->toolTip()));
    d.clearData();  // another set of runs
    QVERIFY(verdict->otherVerdicts().isEmpty());
    QVERIFY(!others()->isVisibleTo(verdict));
    d.addSnapshot(snapshot("check/causality", {1}, {1}, {{"check", "", {}}},
                           {{"verdict", "LEAKS"}, {"ok", false}}),
                  10);

    d.addSnapshot(snapshot("other/thing", {1}, {0}, {{"x", "", {}}}, {{"verdict", "nope"}}), 11);
    QCOMPARE(verdict->verdict(), QString("LEAKS"));  // not its series

    d.addSnapshot(
        snapshot("check/causality", {1}, {0}, {{"check", "", {}}},
                 {{"verdict", "causal"}, {"ok", true}, {"detail", "No position sees the future."}}),
        20);
    QCOMPARE(verdict->verdict(), QString("causal"));
    QCOMPARE(verdict->ok(), std::optional<bool>(true));
    QVERIFY(verdict->verdictColor().green() > 2 * verdict->verdictColor().red());

    d.clearData();
    QCOMPARE(verdict->verdict(), QString("no verdict yet"));
    // A run that ended without one (a setting that never gets a verdict) says so, not "yet";
    // a verdict it has stays, and panels built for an ended run start so.
    d.setShownRunEnded(true);
    QCOMPARE(verdict->verdict(), QString("no verdict"));
    QCOMPARE(verdict->detail(), QString("this run recorded none for this panel"));
    d.addSnapshot(snapshot("check/causality", {1}, {0}, {{"check", "", {}}},
                           {{"verdict", "causal"}, {"ok", true}}),
                  30);
    d.setShownRunEnded(false);
    d.setShownRunEnded(true);
    QCOMPARE(verdict->verdict(), QString("causal"));
    d.setPanels({panel("causality", PanelKind::Verdict, {"check/causality"})});
    verdict = qobject_cast<VerdictPanel*>(d.panel("causality"));
    QCOMPARE(verdict->verdict(), QString("no verdict"));
  }

  // A study run's long name ("#6 tiny, edited: corpus /work/.../tinyshakespeare.txt, variant
  // multi") ran off both edges of a heatmap's title and took three lines of a verdict panel: it
  // is cut as legends cut theirs, whole again in the detail.
  void aLongRunNameIsCutToItsPanel() {
    Dashboard d;
    d.setPanels({panel("evolution", PanelKind::HeatmapOverSteps, {"spectrum/abs_c"}),
                 panel("causality", PanelKind::Verdict, {"check/causality"})});
    d.resize(450, 400);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    const QString longName =
        "tiny, edited: corpus /work/shared/data/tinyshakespeare.txt, variant multi";
    d.setRunLabel(6, longName);
    d.setRunLabel(7, "causal");
    d.setShownRun(6);
    const std::vector<SnapshotAxis> k{{"k", "", {1, 2, 3}}};
    for (int step : {10, 20}) {
      d.addSnapshot(snapshot("spectrum/abs_c", {3}, {1, 2, 3}, k), step);
      d.addOverlaySnapshot(7, snapshot("spectrum/abs_c", {3}, {1, 2, 3}, k), step);
    }
    d.addSnapshot(snapshot("check/causality", {1}, {1}, {{"check", "", {}}},
                           {{"verdict", "LEAKS"}, {"ok", false}}),
                  20);
    d.addOverlaySnapshot(7,
                         snapshot("check/causality", {1}, {0}, {{"check", "", {}}},
                                  {{"verdict", "causal"}, {"ok", true}}),
                         20);
    d.refresh();
    auto* evolution = qobject_cast<HeatmapPlot*>(d.panel("evolution"));
    auto* title = plotTitle(evolution->plot());
    QVERIFY2(title->text().startsWith("evolution · #6 ") && title->text().contains("…") &&
                 title->text().endsWith(" multi"),
             qPrintable(title->text()));
    // Within its cell: the plot's column, beside the colour scale's.
    evolution->plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY2(
        QFontMetrics(title->font()).horizontalAdvance(title->text()) <= title->outerRect().width(),
        qPrintable(QString("%1 > %2: %3")
                       .arg(QFontMetrics(title->font()).horizontalAdvance(title->text()))
                       .arg(title->outerRect().width())
                       .arg(title->text())));
    auto* verdict = qobject_cast<VerdictPanel*>(d.panel("causality"));
    auto labels = verdict->findChildren<QLabel*>();
    const bool cut = std::any_of(labels.begin(), labels.end(), [](QLabel* l) {
      return l->text().contains("#6 ") && l->text().contains("…") && l->text().contains("LEAKS");
    });
    QVERIFY(cut);
    QVERIFY2(verdict->detail().contains("#6 " + longName + ", step 20"),
             qPrintable(verdict->detail()));
  }

  // Whole-number coordinates (frequencies k, heads) get whole-number ticks.
  void wholeNumberCoordinatesGetWholeTicks() {
    Dashboard d;
    d.setPanels({panel("spectrum", PanelKind::SnapshotBars, {"spectrum/abs_c"})});
    d.addSnapshot(
        snapshot("spectrum/abs_c", {4}, {1.0f, 0.5f, 0.25f, 0.1f}, {{"k", "", {0, 1, 2, 3}}}), 1);
    d.resize(500, 300);
    d.refresh();
    auto* plot = qobject_cast<SnapshotPlot*>(d.panel("spectrum"));
    plot->plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(!plot->plot()->xAxis->tickVector().isEmpty());
    for (double tick : plot->plot()->xAxis->tickVector()) QCOMPARE(tick, std::round(tick));
    // A matrix of 2 layers x 16 pairs: no tick at layer 0.2 or pair 2.5.
    d.setPanels({panel("purity", PanelKind::SnapshotHeatmap, {"spectrum/purity"})});
    std::vector<float> cells(32, 0.5f), layers{0, 1}, pairs;
    for (int j = 0; j < 16; ++j) pairs.push_back(static_cast<float>(j));
    d.addSnapshot(snapshot("spectrum/purity", {2, 16}, cells,
                           {{"layer", "", layers}, {"dimension pair j", "", pairs}}),
                  1);
    d.refresh();
    auto* matrix = d.panel("purity")->findChild<QCustomPlot*>();
    matrix->replot(QCustomPlot::rpImmediateRefresh);
    for (auto* axis : {matrix->xAxis, matrix->yAxis}) {
      QVERIFY(!axis->tickVector().isEmpty());
      for (double tick : axis->tickVector()) QCOMPARE(tick, std::round(tick));
    }
    // Axes that name no coordinates put their cells at their index: whole ticks too.
    d.setPanels({panel("periods", PanelKind::SnapshotHeatmap, {"qk/periods"})});
    d.addSnapshot(snapshot("qk/periods", {2, 16}, cells, {{"layer", "", {}}, {"head", "", {}}}), 1);
    d.refresh();
    matrix = d.panel("periods")->findChild<QCustomPlot*>();
    matrix->replot(QCustomPlot::rpImmediateRefresh);
    for (auto* axis : {matrix->xAxis, matrix->yAxis}) {
      QVERIFY(!axis->tickVector().isEmpty());
      for (double tick : axis->tickVector()) QCOMPARE(tick, std::round(tick));
    }
  }

  // Double-clicking a plot's title maximises its panel, Esc brings the others back.
  void doubleClickingATitleMaximisesAndEscRestores() {
    Dashboard d;
    d.setPanels(
        {panel("a", PanelKind::MetricLines, {"a"}), panel("b", PanelKind::SnapshotCurves, {"b"})});
    d.resize(1000, 600);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    for (const QString id : {"a", "b"}) {
      auto* plot = d.panel(id)->findChild<QCustomPlot*>();
      plot->replot(QCustomPlot::rpImmediateRefresh);
      auto* title = fl::widgets::plotTitle(plot);
      QVERIFY(title);
      QTest::mouseDClick(plot, Qt::LeftButton, {}, title->outerRect().center());
      QTRY_COMPARE(d.maximized(), id);
      QVERIFY(d.panel(id == "a" ? "b" : "a")->isHidden());
      QTest::keyClick(&d, Qt::Key_Escape);
      QTRY_COMPARE(d.maximized(), QString());
      QVERIFY(!d.panel("a")->isHidden() && !d.panel("b")->isHidden());
    }
  }

  // As tabs, every panel is one tab named by its title, its data kept; back to the grid, every
  // panel is shown again.
  void panelsLayOutAsTabsOrAsAGrid() {
    Dashboard d;
    d.setPanels({panel("a", PanelKind::MetricLines, {"a"}),
                 panel("b", PanelKind::MetricLines, {"b"}),
                 panel("c", PanelKind::SnapshotBars, {"c"})});
    d.addPanelWidget("table", new QLabel("metrics"), "Latest metrics");
    d.setMetric(1, "a", {1, 2}, {3, 4});
    d.resize(1000, 600);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    d.maximize("b");
    d.setLayoutMode(Dashboard::Layout::Tabs);
    QCOMPARE(d.tabs()->count(), 4);
    QStringList names;
    for (int i = 0; i < d.tabs()->count(); ++i) names << d.tabs()->tabText(i);
    QCOMPARE(names, (QStringList{"a", "b", "c", "Latest metrics"}));
    QCOMPARE(d.tabs()->currentWidget(), d.panel("b"));  // the maximised panel comes first
    d.maximize("c");                                    // with tabs: its tab forward
    QCOMPARE(d.tabs()->currentWidget(), d.panel("c"));
    // One panel fills the area: far more than a grid cell.
    QTRY_VERIFY(d.panel("c")->height() > 500);
    QCOMPARE(qobject_cast<MetricPlot*>(d.panel("a"))->pointCount("#1"), size_t(2));
    d.setLayoutMode(Dashboard::Layout::Grid);
    QVERIFY(d.tabs()->isHidden());
    for (const QString id : {"a", "b", "c", "table"}) {
      QVERIFY(!d.panel(id)->isHidden());
      QCOMPARE(d.panel(id)->parentWidget(), &d);
    }
    QCOMPARE(qobject_cast<MetricPlot*>(d.panel("a"))->pointCount("#1"), size_t(2));
  }

  // A panel maximised fills the dashboard; the others come back with it.
  void aPanelCanBeMaximisedAndRestored() {
    Dashboard d;
    d.setPanels({panel("a", PanelKind::MetricLines, {"a"}),
                 panel("b", PanelKind::MetricLines, {"b"}),
                 panel("c", PanelKind::MetricLines, {"c"})});
    d.resize(1200, 700);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    d.maximize("b");
    QCOMPARE(d.maximized(), QString("b"));
    QVERIFY(d.panel("a")->isHidden() && !d.panel("b")->isHidden());
    d.maximize(QString());
    QVERIFY(!d.panel("a")->isHidden() && !d.panel("c")->isHidden());
    d.resize(500, 700);  // room for one column only
    QTRY_COMPARE(d.columns(), 1);
  }

  // A maximised panel fills the dashboard, not the first column of the grid it was in (the
  // other columns kept their stretch, empty, and so two thirds of the width).
  void aMaximisedPanelFillsTheWidth() {
    Dashboard d;
    d.setPanels(
        {panel("a", PanelKind::MetricLines, {"a"}), panel("b", PanelKind::MetricLines, {"b"}),
         panel("c", PanelKind::SnapshotCurves, {"c"}), panel("d", PanelKind::MetricLines, {"d"}),
         panel("e", PanelKind::MetricLines, {"e"})});
    for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
      d.resize(size);
      d.show();
      QVERIFY(QTest::qWaitForWindowExposed(&d));
      QTRY_COMPARE(d.columns(), 3);
      for (const QString id : {"a", "c", "e"}) {
        d.maximize(id);
        QTRY_VERIFY(qAbs(d.panel(id)->width() - d.contentsRect().width()) <= 2);
        QTRY_VERIFY(qAbs(d.panel(id)->height() - d.contentsRect().height()) <= 2);
        d.maximize(QString());
        // Back in the grid: three panels a row, a third of the width each.
        QTRY_VERIFY(qAbs(d.panel("a")->width() - d.contentsRect().width() / 3) <= 12);
      }
    }
  }

  // MainWindow::exportShownRun writes every QCustomPlot whose parent is a named panel.
  void newPlotsAreFoundByTheExport() {
    Dashboard d;
    d.setPanels({panel("attn", PanelKind::SnapshotHeatmap, {"attn/pattern"}),
                 panel("ppl_steps", PanelKind::HeatmapOverSteps, {"ppl/by_length"}),
                 panel("ablation", PanelKind::SnapshotBars, {"ablation/ppl"})});
    QStringList panels;
    for (auto* plot : d.findChildren<QCustomPlot*>()) panels << plot->parentWidget()->objectName();
    panels.sort();
    QCOMPARE(panels, (QStringList{"ablation", "attn", "ppl_steps"}));
  }
};

QTEST_MAIN(TestDashboardPanels)
#include "test_dashboard_panels.moc"
