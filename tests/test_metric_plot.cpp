// Tests widgets/metric_plot.h as a reader meets it: hovering draws a crosshair and a
// readout of every curve's value inside the plot (the window keeps its size), a constant curve
// gets a readable range (not ±1e-12), a single evaluation is drawn as a point, whole-number
// values get whole-number ticks, a run's several series keep distinct pens and names in the
// legend, and while smoothing the legend shows the solid (smoothed) pen, not the faint raw one.
#include <QtTest>

#include <QHBoxLayout>

#include <qcustomplot.h>

#include <set>

#include "widgets/metric_plot.h"
#include "widgets/run_colors.h"
#include "widgets/step_ticker.h"

using fl::widgets::MetricPlot;

namespace {

QPoint insideAxes(MetricPlot& plot, double x, double y) {
  return QPoint(static_cast<int>(plot.plot()->xAxis->coordToPixel(x)),
                static_cast<int>(plot.plot()->yAxis->coordToPixel(y)));
}

QCPGraph* graphNamed(QCustomPlot* plot, const QString& name) {
  for (int i = 0; i < plot->graphCount(); ++i)
    if (plot->graph(i)->name() == name && plot->graph(i)->data()->size() > 0) return plot->graph(i);
  return nullptr;
}

}  // namespace

class TestMetricPlot : public QObject {
  Q_OBJECT

 private slots:
  void hoveringReadsEveryCurveInsideThePlotAndTheWindowKeepsItsWidth() {
    QWidget window;
    auto* layout = new QHBoxLayout(&window);
    auto* plot = new MetricPlot("loss", "step", "cross-entropy", &window);
    layout->addWidget(plot);
    window.resize(600, 400);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    plot->setCurve("#3 a run with a very long name indeed, longer than the plot is wide at all",
                   Qt::red, {1, 2, 3, 4}, {4.0, 3.0, 2.0, 1.0});
    plot->setCurve("#4 another", Qt::blue, {1, 2, 3, 4}, {5.0, 4.5, 4.0, 3.5});
    plot->refresh();
    plot->plot()->replot(QCustomPlot::rpImmediateRefresh);
    const int width = window.width();
    const QPoint at = insideAxes(*plot, 3.1, 3.0);
    const QString readout = plot->readoutAt(at);
    QVERIFY2(readout.contains("#4 another") && readout.contains(">4<") && readout.contains("@ 3"),
             qPrintable(readout));
    QVERIFY(readout.contains("a very long name"));
    QVERIFY(plot->readoutAt(QPoint(2, 2)).isEmpty());  // outside the axes: nothing
    QTest::mouseMove(plot->plot(), at);
    QTRY_VERIFY(plot->crosshairVisible());
    QCOMPARE(window.width(), width);  // the readout is a tooltip, not a label below the plot
    QCOMPARE(plot->plot()->width(), plot->width());
  }

  void aConstantCurveGetsAReadableRange() {
    MetricPlot plot("ppl", "step", "perplexity");
    plot.resize(400, 300);
    plot.setCurve("#1", Qt::blue, {1, 2, 3}, {0.5, 0.5, 0.5});
    plot.refresh();
    const QCPRange y = plot.plot()->yAxis->range();
    QVERIFY2(y.size() > 0.05 && y.contains(0.5),
             qPrintable(QString("%1..%2").arg(y.lower).arg(y.upper)));
    plot.setCurve("#1", Qt::blue, {1, 2}, {0.0, 0.0});
    plot.refresh();
    QVERIFY(plot.plot()->yAxis->range().size() >= 1.0);
  }

  void aSingleEvaluationIsDrawnAsAPoint() {
    MetricPlot plot("kl", "step", "KL");
    plot.resize(400, 300);
    plot.setCurve("#1", Qt::blue, {500}, {0.2});
    plot.refresh();
    QCPGraph* graph = graphNamed(plot.plot(), "#1");
    QVERIFY(graph);
    QCOMPARE(graph->scatterStyle().shape(), QCPScatterStyle::ssDisc);
    QVERIFY(plot.plot()->xAxis->range().contains(500) && plot.plot()->xAxis->range().lower < 500);
    plot.appendToCurve("#1", {1000}, {0.1});
    plot.refresh();
    QCOMPARE(graphNamed(plot.plot(), "#1")->scatterStyle().shape(), QCPScatterStyle::ssNone);
  }

  void wholeNumbersGetWholeTicks() {
    MetricPlot plot("periods", "step", "period");
    plot.resize(400, 300);
    plot.setCurve("#1 h0", Qt::blue, {1, 2, 3}, {2, 3, 3});
    plot.refresh();
    QVERIFY(plot.plot()->yAxis->ticker().dynamicCast<fl::widgets::IntegerTicker>());
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    for (double tick : plot.plot()->yAxis->tickVector()) QCOMPARE(tick, std::round(tick));
    for (double tick : plot.plot()->xAxis->tickVector()) QCOMPARE(tick, std::round(tick));  // steps
    plot.setCurve("#1 h0", Qt::blue, {1, 2, 3}, {2.5, 3, 3});
    plot.refresh();
    QVERIFY(!plot.plot()->yAxis->ticker().dynamicCast<fl::widgets::IntegerTicker>());
  }

  void aRunsSeriesDifferByPenAndAreNamedInTheLegend() {
    MetricPlot plot("ablations", "step", "accuracy");
    plot.resize(700, 420);
    const QColor run = fl::widgets::RunColors().of(1);
    for (int i = 0; i < 12; ++i)
      plot.setCurve(QString("#1 acc_%1").arg(i), fl::widgets::seriesPen(run, i), {1, 2},
                    {0.1 * i, 0.2});
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    std::set<std::pair<int, QRgb>> pens;
    for (const auto& name : plot.curveNames()) {
      const QPen pen = plot.curvePen(name);
      pens.insert({static_cast<int>(pen.style()), pen.color().rgb()});
    }
    QCOMPARE(pens.size(), size_t(12));  // twelve series, twelve pens
    QVERIFY(plot.plot()->legend->visible());
    QCOMPARE(plot.plot()->legend->itemCount(), 12);
    // The legend never takes more than its share of the width.
    QVERIFY(plot.plot()->legend->outerRect().width() <= plot.width() * 0.4);
  }

  void whileSmoothingTheLegendShowsTheSolidPen() {
    MetricPlot plot("loss", "step", "loss");
    plot.resize(400, 300);
    plot.setCurve("#1", QPen(Qt::red, 1.6), {1, 2, 3}, {3, 2, 1});
    plot.setSmoothing(0.6);
    auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.plot()->legend->item(0));
    QVERIFY(item);
    QCOMPARE(item->plottable()->pen().color().alpha(), 255);
    QCOMPARE(item->plottable()->pen().color().rgb(), QColor(Qt::red).rgb());
    plot.setSmoothing(0);
    item = qobject_cast<QCPPlottableLegendItem*>(plot.plot()->legend->item(0));
    QCOMPARE(plot.plot()->legend->itemCount(), 1);
    QCOMPARE(item->plottable()->pen().color().alpha(), 255);
  }
};

QTEST_MAIN(TestMetricPlot)
#include "test_metric_plot.moc"
