// Tests widgets/metric_plot.h as a reader meets it: hovering draws a crosshair and a
// readout of every curve's value inside the plot (the window keeps its size), a constant curve
// gets a readable range (not ±1e-12), a single evaluation is drawn as a point, whole-number
// values get whole-number ticks, a run's several series keep distinct pens, the legend names a
// few curves and steps aside for many (hover names them, highest value first), a hidden curve
// is neither drawn, read nor ranged over, bounded values keep their axis inside the bounds, and
// while smoothing the legend shows the solid (smoothed) pen, not the faint raw one.
#include <QtTest>

#include <QToolTip>

#include <QBuffer>
#include <QHBoxLayout>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSvgGenerator>
#include <QTextDocument>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <qcustomplot.h>

#include <map>
#include <set>

#include "widgets/log_ticker.h"
#include "widgets/metric_plot.h"
#include "widgets/plot_frame.h"
#include "widgets/readout_tip.h"
#include "widgets/run_colors.h"
#include "widgets/step_ticker.h"

using fl::widgets::MetricPlot;

namespace {

QPoint insideAxes(MetricPlot& plot, double x, double y) {
  return QPoint(static_cast<int>(plot.plot()->xAxis->coordToPixel(x)),
                static_cast<int>(plot.plot()->yAxis->coordToPixel(y)));
}

// The plot on screen at `size`, laid out as it would be drawn: what pixel positions need.
bool shownAt(MetricPlot& plot, QSize size) {
  plot.resize(size);
  plot.show();
  return QTest::qWaitForWindowExposed(&plot);
}

// How far apart the x axis's ticks are on screen, and what it shows, for a failure's message:
// 0 where it has fewer than two ticks.
std::pair<double, QString> tickSpacing(MetricPlot& plot) {
  const auto ticks = plot.plot()->xAxis->tickVector();
  const double width = plot.plot()->axisRect()->width();
  const double spacing =
      ticks.size() < 2 ? 0.0 : width * (ticks[1] - ticks[0]) / plot.plot()->xAxis->range().size();
  return {spacing, QString("%1 ticks (%2), %3 px apart on %4 px")
                       .arg(ticks.size())
                       .arg(plot.plot()->xAxis->tickVectorLabels().join(" "))
                       .arg(spacing)
                       .arg(width)};
}

// The plot drawn at its size on screen as an SVG's text: what each legend entry paints, as text.
QString drawnAsSvg(MetricPlot& plot) {
  QBuffer file;
  file.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&file);
  generator.setSize(plot.plot()->size());
  QCPPainter painter;
  if (!painter.begin(&generator)) return QString();
  plot.plot()->toPainter(&painter, plot.plot()->width(), plot.plot()->height());
  painter.end();
  return QString::fromUtf8(file.data());
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
  // Two curves of one run whose names end alike ("…lowpass_removed_all", "…highpass_removed_all")
  // keep their last words whole, the run's name cut instead: cut in the middle, both read
  // "#59 add-30…emoved_all". Each elided name fits its width and starts with the run's number.
  void aLegendNameKeepsItsLastWordWholeWhereItCan() {
    const QFont font("sans", 9);
    const QFontMetrics metrics(font);
    const QString run = "#59 add-30-operands-from-scratch-long-name";
    const QString low = run + " lowpass_removed_all", high = run + " highpass_removed_all";
    const int width = metrics.horizontalAdvance(" highpass_removed_all") + 60;
    const QString lowShown = fl::widgets::legendName(low, font, width);
    const QString highShown = fl::widgets::legendName(high, font, width);
    QVERIFY2(lowShown.endsWith(" lowpass_removed_all") && lowShown.startsWith("#59"),
             qPrintable(lowShown));
    QVERIFY2(highShown.endsWith(" highpass_removed_all") && highShown.contains("…"),
             qPrintable(highShown));
    QVERIFY(lowShown != highShown);
    for (const QString& shown : {lowShown, highShown})
      QVERIFY(metrics.horizontalAdvance(shown) <= width);
    // A name that fits is whole; a last word that leaves the run no room: start and end.
    QCOMPARE(fl::widgets::legendName("#1 linear", font, 500), QString("#1 linear"));
    const QString narrow = fl::widgets::legendName(high, font, 60);
    QVERIFY2(narrow.startsWith("#") && narrow.contains("…"), qPrintable(narrow));
    QVERIFY(metrics.horizontalAdvance(narrow) <= 60);
  }

  // Over another x the axis is named for it, counts keep their compact whole-number ticks while
  // epochs and seconds fall between, and the hover writes x in the axis' unit.
  void theXAxisReadsInItsUnit() {
    QWidget window;
    auto* layout = new QHBoxLayout(&window);
    auto* plot = new MetricPlot("loss", "step", "cross-entropy", &window);
    layout->addWidget(plot);
    window.resize(600, 400);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto stepTicks = [&] {
      return !plot->plot()->xAxis->ticker().dynamicCast<fl::widgets::StepTicker>().isNull();
    };
    QVERIFY(stepTicks());
    struct Case {
      QString label;
      MetricPlot::XKind kind;
      std::vector<double> x;
      QString at;  // the readout at x = 2
      bool stepTicks;
    };
    for (const auto& c :
         {Case{"epoch", MetricPlot::XKind::Fraction, {0.5, 1.25, 2}, "@ 2.00", false},
          Case{"wall time (s)", MetricPlot::XKind::Seconds, {0, 1.5, 2}, "@ 2.0 s", false},
          Case{"tokens seen", MetricPlot::XKind::Count, {0, 1, 2}, "@ 2<", true}}) {
      plot->setXAxis(c.label, c.kind);
      plot->setCurve("#1", Qt::red, c.x, {3.0, 2.0, 1.0});
      plot->refresh();
      plot->plot()->replot(QCustomPlot::rpImmediateRefresh);
      QCOMPARE(plot->xLabel(), c.label);
      QCOMPARE(stepTicks(), c.stepTicks);
      const QString readout = plot->readoutAt(insideAxes(*plot, 1.95, 1.5));
      QVERIFY2(readout.contains(c.at), qPrintable(readout));
    }
  }

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
    // Smoothed, a row keeps its value, the smoothed one and its step on one line however narrow
    // the tip: "3.09307 (smoothed" over "3.09121) @ 37500" read as a smoothed value of 37500.
    plot->setSmoothing(0.5);
    plot->refresh();
    const QString smoothed = plot->readoutAt(at);
    QVERIFY2(smoothed.contains("(smoothed "), qPrintable(smoothed));
    QTextDocument narrow;
    narrow.setHtml(smoothed);
    narrow.setTextWidth(60);
    QTextDocument wide;
    wide.setHtml(smoothed);
    wide.setTextWidth(2000);
    QCOMPARE(narrow.size().height(), wide.size().height());  // no row broke in two
    plot->setSmoothing(0);
    QTest::mouseMove(plot->plot(), at);
    QTRY_VERIFY(plot->crosshairVisible());
    QCOMPARE(window.width(), width);  // the readout is a tooltip, not a label below the plot
    QCOMPARE(plot->plot()->width(), plot->width());
    // The pointer resting there asks for a tooltip: the panel's help (its parent's) replaced
    // the readout. It stays.
    window.setToolTip("what this panel shows");
    QTRY_VERIFY(fl::widgets::readoutTipVisible());
    QHelpEvent rest(QEvent::ToolTip, at, plot->plot()->mapToGlobal(at));
    QApplication::sendEvent(plot->plot(), &rest);
    QVERIFY(!QToolTip::isVisible());
    QVERIFY2(fl::widgets::readoutTipText().contains("#4 another"),
             qPrintable(fl::widgets::readoutTipText()));
    // The tip holds its widest row whole: QToolTip wrapped it to a quarter of the screen, and
    // the row that never wraps ran past its edge, cut ("0.391349 (smoothed 0.").
    plot->setSmoothing(0.5);
    plot->refresh();
    QTest::mouseMove(plot->plot(), at + QPoint(1, 0));
    QTRY_VERIFY(fl::widgets::readoutTipText().contains("(smoothed "));
    QTextDocument shown;
    shown.setDefaultFont(QToolTip::font());
    shown.setHtml(fl::widgets::readoutTipText());
    QVERIFY2(fl::widgets::readoutTipSize().width() >= shown.idealWidth(),
             qPrintable(QString("tip %1 px wide for rows of %2 px")
                            .arg(fl::widgets::readoutTipSize().width())
                            .arg(shown.idealWidth())));
    QVERIFY(shown.idealWidth() > window.screen()->geometry().width() / 4);  // past the old cap
    // The readout goes with the pointer.
    QEvent leave(QEvent::Leave);
    QApplication::sendEvent(plot->plot(), &leave);
    QVERIFY(!fl::widgets::readoutTipVisible());
  }

  // A log axis over less than 1.6 decades is labelled 1, 2, 5 times powers of ten (KL from 0.5
  // to 12 read 2.5, 5, 7.5, 10, 12.5, so runs between 0.5 and 1 had no label): over random
  // ranges of a factor of two or more, every tick is a (half) digit times a power of ten inside
  // the range, ascending, at least two, and three for a decade or more.
  void logTicksAreDigitsTimesPowersOfTenInsideTheRange() {
    QRandomGenerator random(11);
    for (int trial = 0; trial < 2000; ++trial) {
      const double lower = std::pow(10.0, random.bounded(-6.0) + 3);
      const double decades = 0.31 + random.bounded(1.28);  // at least a factor of two
      const QCPRange range(lower, lower * std::pow(10.0, decades));
      const QVector<double> ticks = fl::widgets::logTicksOf(range);
      const QString where = QString("%1..%2").arg(range.lower).arg(range.upper);
      QVERIFY2(ticks.size() >= 2 && ticks.size() <= 10, qPrintable(where));
      if (decades >= 1) QVERIFY2(ticks.size() >= 3, qPrintable(where));
      int tenthsOnTop = 0;
      for (int i = 0; i < ticks.size(); ++i) {
        QVERIFY2(range.contains(ticks[i]) || std::abs(ticks[i] / range.upper - 1) < 1e-9 ||
                     std::abs(ticks[i] / range.lower - 1) < 1e-9,
                 qPrintable(where));
        if (i > 0) QVERIFY(ticks[i] > ticks[i - 1]);
        // A digit or a half digit (1, 1.5, ..., 9.5) times a power of ten; past the last of
        // those, at most two tenths (1.1, 1.2) labelling a top wider than their widest step.
        const double power = std::pow(10.0, std::floor(std::log10(ticks[i]) + 1e-12));
        const double halves = 2 * ticks[i] / power, tenths = 10 * ticks[i] / power;
        const bool halfDigit = std::abs(halves - std::round(halves)) < 1e-9 &&
                               std::round(halves) >= 2 && std::round(halves) <= 19;
        if (tenthsOnTop == 0 && halfDigit) continue;
        ++tenthsOnTop;
        QVERIFY2(std::abs(tenths - std::round(tenths)) < 1e-9 && i >= 2 && tenthsOnTop <= 2,
                 qPrintable(QString("%1 on %2").arg(ticks[i]).arg(where)));
      }
      // No part of the range past the last tick is wider than the widest step between ticks
      // where a tenth could label it.
      double widest = 0;
      for (int i = 1; i < ticks.size(); ++i) widest = std::max(widest, ticks[i] / ticks[i - 1]);
      const double last = ticks.back();
      const double power = std::pow(10.0, std::floor(std::log10(last) + 1e-12));
      const double nextTenth = (std::floor(10 * last / power + 1e-9) + 1) * power / 10;
      if (nextTenth <= range.upper)
        QVERIFY2(range.upper / last <= widest * (1 + 1e-9) || tenthsOnTop > 0, qPrintable(where));
    }
  }

  // A KL axis from 0.7 to 1.25 read 0.7, 0.8, 0.9, 1 and nothing above, where the runs were.
  void aLogAxisLabelsTheTopPastItsLastDigit() {
    QCOMPARE(fl::widgets::logTicksOf(QCPRange(0.7, 1.25)),
             (QVector<double>{0.7, 0.8, 0.9, 1, 1.1, 1.2}));
    QCOMPARE(fl::widgets::logTicksOf(QCPRange(0.7, 1.4)),
             (QVector<double>{0.7, 0.8, 0.9, 1, 1.2, 1.4}));
    // A top no wider than the steps below it needs none.
    QCOMPARE(fl::widgets::logTicksOf(QCPRange(0.12, 6)), (QVector<double>{0.2, 0.5, 1, 2, 5}));
  }

  // Over more than 1.6 decades with fewer than three powers of ten inside (KL from 6 at the
  // start to 0.15), the axis read "1" alone: the runs' last values between 0.15 and 0.6 had no
  // label. It is labelled 1, 2, 5 times the powers of ten there.
  void aLogAxisOfTwoDecadesWithOnePowerOfTenInsideLabelsItsRuns() {
    QVERIFY(!fl::widgets::powersOfTenSuffice(QCPRange(0.12, 6)));
    QVERIFY(fl::widgets::powersOfTenSuffice(QCPRange(0.05, 20)));  // 0.1, 1 and 10 inside
    MetricPlot plot("kl", "step", "KL");
    plot.resize(400, 300);
    plot.setLogY(true);
    plot.setCurve("#1 fourier", Qt::blue, {1, 2, 3, 4}, {6, 1, 0.3, 0.15});
    plot.refresh();
    plot.plot()->replot();
    const QCPRange range = plot.plot()->yAxis->range();
    QVERIFY2(std::log10(range.upper / range.lower) > 1.6 && !fl::widgets::powersOfTenSuffice(range),
             qPrintable(QString("%1..%2").arg(range.lower).arg(range.upper)));
    const QVector<double> ticks = plot.plot()->yAxis->tickVector();
    QVERIFY2(ticks.contains(0.2) && ticks.contains(0.5) && ticks.contains(1) && ticks.contains(5),
             qPrintable(plot.plot()->yAxis->tickVectorLabels().join(", ")));
  }

  void aLogAxisLabelsRunsWithinItsLowestDecade() {
    MetricPlot plot("kl", "step", "KL");
    plot.resize(400, 300);
    plot.setLogY(true);
    plot.setCurve("#1 linear", Qt::blue, {1, 2, 3}, {0.9, 0.7, 0.5});
    plot.setCurve("#3 gmm", Qt::red, {1, 2, 3}, {12, 9, 6});
    plot.refresh();
    plot.plot()->replot();
    QVector<double> ticks = plot.plot()->yAxis->tickVector();
    QVERIFY2(ticks.contains(0.5) && ticks.contains(1) && ticks.contains(2) && ticks.contains(5) &&
                 ticks.contains(10),
             qPrintable(QString("%1 ticks from %2").arg(ticks.size()).arg(ticks.value(0))));
    QVERIFY(plot.plot()->yAxis->tickVectorLabels().contains("0.5"));
    // A loss from 3 to 12: 3, 5 and 10, not every digit from 3 to 10 crowding the axis.
    plot.setCurve("#1 linear", Qt::blue, {1, 2, 3}, {4, 3.5, 3});
    plot.refresh();
    plot.plot()->replot();
    ticks = plot.plot()->yAxis->tickVector();
    QCOMPARE(ticks, (QVector<double>{3, 5, 10}));
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

  // A click (to focus a panel, to read a point) held the panel at its range from then on, and a
  // zoom outlived the runs it was made on: a new comparison's steps 0-2500 sat squeezed at the
  // left of 0-37k. A drag or a wheel stops following the data; a click does not; another set of
  // runs follows its data again.
  void aZoomLastsUntilOtherRunsAreShownAndAClickIsNoZoom() {
    MetricPlot plot("cpu", "step", "%");
    plot.resize(500, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setCurve("#1", Qt::blue, {0, 1000, 37000}, {100, 110, 120});
    plot.refresh();
    QCOMPARE(plot.plot()->xAxis->range().upper, 37000.0);
    const QPoint middle(plot.plot()->width() / 2, plot.plot()->height() / 2);
    QTest::mouseClick(plot.plot(), Qt::LeftButton, {}, middle);
    plot.appendToCurve("#1", {40000}, {115});
    plot.refresh();
    QCOMPARE(plot.plot()->xAxis->range().upper, 40000.0);  // a click: still following
    QTest::mousePress(plot.plot(), Qt::LeftButton, {}, middle);
    QMouseEvent drag(QEvent::MouseMove, middle + QPoint(40, 0), plot.plot()->mapToGlobal(middle),
                     Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(plot.plot(), &drag);
    QTest::mouseRelease(plot.plot(), Qt::LeftButton, {}, middle + QPoint(40, 0));
    const QCPRange dragged = plot.plot()->xAxis->range();
    plot.appendToCurve("#1", {50000}, {115});
    plot.refresh();
    QCOMPARE(plot.plot()->xAxis->range().upper, dragged.upper);  // a drag: held
    plot.clearCurves();
    plot.setCurve("#2", Qt::red, {0, 2500}, {100, 105});
    plot.followData();
    QCOMPARE(plot.plot()->xAxis->range().lower, 0.0);
    QCOMPARE(plot.plot()->xAxis->range().upper, 2500.0);
  }

  // The wheel over a plot in a page of panels scrolls the page; Ctrl+wheel zooms the plot. A
  // plain wheel zoomed each plot the pointer passed while the reader scrolled down the page.
  void theWheelScrollsThePageAndCtrlWheelZooms() {
    QScrollArea page;
    auto* panels = new QWidget;
    auto* column = new QVBoxLayout(panels);
    auto* plot = new MetricPlot("loss", "step", "loss");
    plot->setMinimumHeight(300);
    column->addWidget(plot);
    auto* below = new QWidget;
    below->setMinimumHeight(900);  // a page taller than the view: there is somewhere to scroll
    column->addWidget(below);
    page.setWidget(panels);
    page.setWidgetResizable(true);
    page.resize(500, 400);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    plot->setCurve("#1", Qt::blue, {0, 1000, 2000}, {3, 2, 1});
    plot->refresh();
    const QCPRange before = plot->plot()->xAxis->range();
    const QPoint middle(plot->plot()->width() / 2, plot->plot()->height() / 2);
    auto wheel = [&](Qt::KeyboardModifiers modifiers) {
      QWheelEvent event(middle, plot->plot()->mapToGlobal(middle), QPoint(), QPoint(0, -120),
                        Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
      QApplication::sendEvent(plot->plot(), &event);
    };
    QCOMPARE(page.verticalScrollBar()->value(), 0);
    wheel(Qt::NoModifier);
    QVERIFY2(page.verticalScrollBar()->value() > 0, "the page did not scroll");
    QCOMPARE(plot->plot()->xAxis->range().lower, before.lower);  // nor was the plot zoomed
    QCOMPARE(plot->plot()->xAxis->range().upper, before.upper);
    const int scrolled = page.verticalScrollBar()->value();
    wheel(Qt::ControlModifier);
    QVERIFY2(plot->plot()->xAxis->range().size() != before.size(), "Ctrl+wheel did not zoom");
    QCOMPARE(page.verticalScrollBar()->value(), scrolled);  // and the page stayed
    // Zoomed, it holds its range as new steps come (as after a drag).
    const QCPRange zoomed = plot->plot()->xAxis->range();
    plot->appendToCurve("#1", {3000}, {0.5});
    plot->refresh();
    QCOMPARE(plot->plot()->xAxis->range().upper, zoomed.upper);
  }

  // A count that holds until the next sample (runs in the process) is drawn as steps: a sloped
  // line from 1 to 2 read as 1.5 runs halfway.
  void aStepwisePanelDrawsItsCurvesAsSteps() {
    MetricPlot plot("runs", "step", "runs training");
    plot.setStepwise(true);
    plot.setCurve("#1", Qt::blue, {0, 10, 20}, {1, 2, 1});
    plot.setCurveBand("#1", {{1, 1, 1}, {2, 2, 2}});
    plot.refresh();
    for (int i = 0; i < plot.plot()->graphCount(); ++i)
      QCOMPARE(plot.plot()->graph(i)->lineStyle(), QCPGraph::lsStepLeft);
    MetricPlot sloped("loss", "step", "loss");
    sloped.setCurve("#1", Qt::blue, {0, 10}, {1, 2});
    sloped.refresh();
    QCOMPARE(graphNamed(sloped.plot(), "#1")->lineStyle(), QCPGraph::lsLine);
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

  // One evaluation of two runs' two series: four points, a colour per run and a shape per
  // series, as a line's dashes would be; the legend's style keys show the shapes. They were four
  // discs, argmax and expected told apart by dashes that a point does not have.
  void singlePointsOfARunsSeriesDifferByShape() {
    MetricPlot plot("mse", "step", "squared error");
    QVERIFY(shownAt(plot, QSize(700, 420)));
    for (int run = 1; run <= 2; ++run)
      for (int series = 0; series < 2; ++series) {
        const QString style = series == 0 ? "mse_expected" : "mse_argmax";
        const QString name = QString("#%1 %2").arg(run).arg(style);
        plot.setCurve(name, fl::widgets::seriesPen(fl::widgets::RunColors().of(run), series), {500},
                      {0.1 * run + 0.05 * series});
        plot.setCurveParts(name, QString("#%1").arg(run), style);
      }
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const auto shapeOf = [&](const QString& name) {
      return graphNamed(plot.plot(), name)->scatterStyle().shape();
    };
    QVERIFY(shapeOf("#1 mse_expected") != shapeOf("#1 mse_argmax"));
    QCOMPARE(shapeOf("#1 mse_expected"), shapeOf("#2 mse_expected"));
    QCOMPARE(shapeOf("#1 mse_argmax"), shapeOf("#2 mse_argmax"));
    // The legend's key of each series has its shape.
    std::map<QString, QCPScatterStyle::ScatterShape> keyShapes;
    for (int i = 0; i < plot.plot()->legend->itemCount(); ++i)
      if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.plot()->legend->item(i)))
        if (auto* key = qobject_cast<QCPGraph*>(item->plottable()))
          keyShapes[key->name()] = key->scatterStyle().shape();
    QVERIFY2(keyShapes.count("mse_argmax") && keyShapes.count("mse_expected"),
             qPrintable(QString::number(keyShapes.size())));
    QCOMPARE(keyShapes["mse_expected"], shapeOf("#1 mse_expected"));
    QCOMPARE(keyShapes["mse_argmax"], shapeOf("#1 mse_argmax"));
  }

  // A plot shrunk from a wide cell to a narrow one kept the wide one's tick count (the axis'
  // width of the last layout), and its step labels ran into each other: "100125150175200".
  void aNarrowedPlotHasRoomBetweenItsTickLabels() {
    MetricPlot plot("loss", "step", "loss");
    QVERIFY(shownAt(plot, {1200, 300}));
    std::vector<double> x, y;
    for (int step = 25; step <= 250; step += 25) {
      x.push_back(step);
      y.push_back(1.0 / step);
    }
    plot.setCurve("#1", Qt::blue, x, y);
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    plot.resize(260, 300);
    QTRY_COMPARE(plot.plot()->width(), 260);
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    // Each label ("250") needs about 30 px: the ticks must be at least that far apart.
    const auto [spacing, shown] = tickSpacing(plot);
    QVERIFY2(spacing >= 40, qPrintable(shown));
  }

  // The legend's column takes its share of the plot's width: counted as the axis's, a plot
  // 420 px wide with a legend beside got seven step labels on its 230 px ("75k100k125k").
  void aPlotWithALegendBesideHasRoomBetweenItsTickLabels() {
    MetricPlot plot("loss", "step", "loss");
    QVERIFY(shownAt(plot, {420, 300}));
    std::vector<double> x, y;
    for (int step = 500; step <= 175000; step += 500) {
      x.push_back(step);
      y.push_back(1.0 + 1.0 / step);
    }
    plot.setCurve("#41 paper-fourier · epochs 3000", Qt::blue, x, y);
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(plot.plot()->legend->visible() && plot.plot()->legend->itemCount() == 1);
    // Each label ("175k") needs about 35 px.
    const auto [spacing, shown] = tickSpacing(plot);
    QVERIFY2(spacing >= 45, qPrintable(shown));
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
    plot.show();  // laid out: the note's place is a real one
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    const QColor run = fl::widgets::RunColors().of(1);
    for (int i = 0; i < 12; ++i)
      plot.setCurve(QString("#1 acc_%1").arg(i), fl::widgets::seriesPen(run, i), {1, 2},
                    {0.1 * i, 0.2});
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    std::set<std::pair<QString, QRgb>> pens;
    for (const auto& name : plot.curveNames()) {
      const QPen pen = plot.curvePen(name);
      pens.insert({fl::widgets::lineStyleOf(pen), pen.color().rgb()});
    }
    QCOMPARE(pens.size(), size_t(12));  // twelve series, twelve pens
    // Twelve rows would take the plot's room: the legend steps aside and says how to read them.
    QVERIFY(!plot.plot()->legend->visible());
    QCOMPARE(plot.legendNote(), QString("12 curves: hover to read them"));
    // Beside the axes, where the legend would be: drawn over them it hid the curves it counts.
    const QRect axes = plot.plot()->axisRect()->outerRect();
    const QRect note = plot.legendNoteArea();
    QVERIFY2(note.width() > 30 && note.left() >= axes.right() && note.bottom() <= axes.bottom(),
             qPrintable(QString("note %1,%2 %3x%4; axes end at %5")
                            .arg(note.left())
                            .arg(note.top())
                            .arg(note.width())
                            .arg(note.height())
                            .arg(axes.right())));
    // Named again, the note is gone and gives its width back.
    for (int i = 2; i < 12; ++i) plot.removeCurve(QString("#1 acc_%1").arg(i));
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(plot.legendNote().isEmpty());
    QVERIFY(plot.plot()->legend->visible());
  }

  void aFewCurvesAreNamedInACompactLegend() {
    MetricPlot plot("loss", "step", "loss");
    plot.resize(700, 420);
    plot.show();  // laid out: the axes and the legend have their real size
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    for (int i = 0; i < fl::widgets::kCompactLegendEntries; ++i)
      plot.setCurve(QString("#%1 fourier N=12 gamma=0.01 dataset=gmm2 seed=%1").arg(i), Qt::red,
                    {1, 2}, {1.0 * i, 0.5});
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(plot.plot()->legend->visible());
    QVERIFY(plot.legendNote().isEmpty());
    QCOMPARE(plot.plot()->legend->itemCount(), fl::widgets::kCompactLegendEntries);
    // Within its share of the width, the names cut at their end: the run's number stays.
    QVERIFY(plot.plot()->legend->outerRect().width() <=
            plot.width() * fl::widgets::kLegendWidthShare + 30);
    plot.setCurve("#99 one more", Qt::blue, {1, 2}, {0.1, 0.2});
    plot.refresh();
    QVERIFY(!plot.plot()->legend->visible());
    QCOMPARE(plot.legendNote(),
             QString("%1 curves: hover to read them").arg(fl::widgets::kCompactLegendEntries + 1));
    // The legend stepped aside: the axes take its room, all but the y axis' labels and the
    // note's narrow column.
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY2(plot.plot()->axisRect()->width() > plot.width() - 120 - plot.legendNoteArea().width(),
             qPrintable(QString::number(plot.plot()->axisRect()->width())));
    QVERIFY(plot.legendNoteArea().width() < 90);
  }

  // Names cut alike are cut again from where they differ: a logit lens's two modules both read
  // "tiny · r… all layers" after their run's number, attention and MLP cut away.
  void namesCutAlikeAreCutWhereTheyDiffer() {
    MetricPlot plot("lens", "step", "accuracy");
    QVERIFY(shownAt(plot, QSize(560, 260)));
    const QString lead = "#28 tiny, edited: embeddings random, steps 1200 · ";
    plot.setCurve(lead + "attention all layers", Qt::red, {1, 2}, {0.1, 0.2});
    plot.setCurve(lead + "mlp all layers", Qt::red, {1, 2}, {0.3, 0.4});
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(plot.plot()->legend->visible());
    // Drawn at the cell's own size (too narrow for either name whole), each entry's text as
    // painted: the part that tells them apart is in it.
    const QString drawn = drawnAsSvg(plot);
    QVERIFY2(!drawn.contains("embeddings random"), "the names were drawn whole: widen the test");
    QRegularExpression text(">([^<]*#28[^<]*)<");
    QStringList texts;
    for (auto it = text.globalMatch(drawn); it.hasNext();) texts << it.next().captured(1);
    QVERIFY2(drawn.contains("attention") && drawn.contains("mlp"), qPrintable(texts.join(" | ")));

    // Alike but for their runs' numbers too: three runs that differ in N alone had all read
    // "e…=4 e… s…=1" after their numbers.
    MetricPlot runs("kl", "step", "KL");
    QVERIFY(shownAt(runs, QSize(560, 260)));
    for (const char* n : {"4", "8", "12"})
      runs.setCurve(QString("#%1 epochs=4 eval_every=1 frequencies=%1 samples=400 seed=1").arg(n),
                    Qt::red, {1, 2}, {0.1, 0.2});
    runs.refresh();
    runs.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(runs.plot()->legend->visible());
    const QString runsDrawn = drawnAsSvg(runs);
    QStringList entries;
    for (auto it = QRegularExpression(">#\\d+ ([^<]*)<").globalMatch(runsDrawn); it.hasNext();)
      entries << it.next().captured(1);
    QCOMPARE(entries.size(), 3);
    QVERIFY2(!runsDrawn.contains("epochs=4 eval_every=1 frequencies=4 samples=400 seed=1"),
             "the names were drawn whole: narrow the test");
    QCOMPARE(QSet<QString>(entries.begin(), entries.end()).size(), 3);
    for (const char* n : {"=4", "=8", "=12"})
      QVERIFY2(entries.join(" | ").contains(QString("frequencies") + n),
               qPrintable(entries.join(" | ")));
  }

  // A saved figure names its curves whole, where the screen's narrow cell cut them: exported
  // for a report, a comparison's legends read "f…=8 s…=2", naming no setting. The file is
  // wider than the cell, and the plot on screen is laid out as before.
  void aSavedPlotNamesItsCurvesWhole() {
    MetricPlot plot("loss", "step", "loss");
    QVERIFY(shownAt(plot, QSize(330, 260)));
    const QStringList names{"#17 frequencies=8 seed=2", "#16 frequencies=4 seed=2",
                            "#12 frequencies=12 seed=1"};
    for (int i = 0; i < names.size(); ++i)
      plot.setCurve(names[i], Qt::red, {1, 2, 3}, {1.0 + i, 0.5 + i, 0.2 + i});
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QCPLegend* legend = plot.plot()->legend;
    QVERIFY(legend->visible());
    // On screen, in a cell this narrow, the names are cut (else this test would prove nothing).
    const QFontMetrics metrics(legend->font());
    QVERIFY2(legend->outerRect().width() < metrics.horizontalAdvance(names.front()),
             qPrintable(QString::number(legend->outerRect().width())));
    const QSize onScreen = plot.plot()->size();
    const int legendOnScreen = legend->outerRect().width();

    QTemporaryDir dir;
    const QString svg = dir.filePath("loss.svg"), png = dir.filePath("loss.png");
    QVERIFY(fl::widgets::savePlotImage(plot.plot(), svg));
    QVERIFY(fl::widgets::savePlotImage(plot.plot(), png));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString drawn = QString::fromUtf8(file.readAll());
    for (const QString& name : names) QVERIFY2(drawn.contains(name), qPrintable(name));
    QVERIFY(!drawn.contains("…"));
    const QImage image(png);
    QVERIFY(image.width() > 2 * onScreen.width());  // twice the pixels of a wider plot
    QCOMPARE(image.height(), 2 * onScreen.height());

    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QCOMPARE(plot.plot()->size(), onScreen);
    QCOMPARE(legend->outerRect().width(), legendOnScreen);
  }

  // A saved plot has no pointer: its note says what is drawn, not "hover to read them", and
  // its title is whole where the cell had cut it. The screen keeps its own.
  void aSavedPlotSaysNothingOfHoverAndKeepsItsTitleWhole() {
    const QString title = "Spectrum over training · frequencies=12 seed=2 gamma=1e-06 dataset=gmm2";
    MetricPlot plot(title, "step", "loss");
    QVERIFY(shownAt(plot, QSize(330, 260)));
    for (int i = 0; i < 12; ++i)
      plot.setCurve(QString("#%1 run").arg(i), Qt::red, {1, 2}, {0.1 * i, 0.2});
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QCOMPARE(plot.legendNote(), QString("12 curves: hover to read them"));
    QVERIFY(!drawnAsSvg(plot).contains(title));  // cut on screen, else this proves nothing

    QTemporaryDir dir;
    const QString svg = dir.filePath("spectrum.svg");
    QVERIFY(fl::widgets::savePlotImage(plot.plot(), svg));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString saved = QString::fromUtf8(file.readAll());
    QVERIFY2(!saved.contains("hover"), qPrintable(saved.left(2000)));
    QVERIFY(saved.contains(">12 curves<"));
    const qsizetype at = saved.indexOf("Spectrum over");
    QVERIFY2(saved.contains(title.toHtmlEscaped()), qPrintable(saved.mid(at, 200)));
    QCOMPARE(plot.legendNote(), QString("12 curves: hover to read them"));
  }

  // Over many random sets of curves, the readout lists every shown curve once, each with its
  // value at the nearest step, highest first, and never a hidden one.
  void theReadoutListsShownCurvesHighestFirst() {
    MetricPlot plot("loss", "step", "loss");
    plot.resize(600, 400);
    plot.show();  // laid out: the axes and the legend have their real size
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    QRandomGenerator random(7);
    for (int trial = 0; trial < 100; ++trial) {
      plot.clearCurves();
      const int curves = 1 + static_cast<int>(random.bounded(9));
      std::map<QString, double> atStep3;
      for (int c = 0; c < curves; ++c) {
        const QString name = QString("#%1 run").arg(c);
        std::vector<double> y;
        for (int s = 0; s < 5; ++s) y.push_back(random.bounded(100.0) - 50);
        plot.setCurve(name, Qt::red, {1, 2, 3, 4, 5}, y);
        const bool hidden = random.bounded(4) == 0;
        plot.setCurveHidden(name, hidden);
        if (!hidden) atStep3[name] = y[2];
      }
      plot.refresh();
      plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
      const QString readout =
          plot.readoutAt(insideAxes(plot, 3.1, plot.plot()->yAxis->range().center()));
      if (atStep3.empty()) {
        QVERIFY(readout.isEmpty());
        continue;
      }
      // The names in the order the readout lists them.
      QStringList listed;
      QRegularExpression nameCell("<td>(#\\d+ run)</td>");
      for (auto m = nameCell.globalMatch(readout); m.hasNext();) listed << m.next().captured(1);
      QVERIFY2(listed.size() == static_cast<int>(atStep3.size()), qPrintable(readout));
      for (int i = 0; i + 1 < listed.size(); ++i)
        QVERIFY(atStep3.at(listed[i]) >= atStep3.at(listed[i + 1]));
      for (const auto& [name, value] : atStep3)
        QVERIFY(readout.contains(">" + QString::number(value, 'g', 6) + "<"));
    }
  }

  void aHiddenCurveIsNotDrawnNamedOrRangedOver() {
    MetricPlot plot("kl", "step", "KL");
    plot.resize(600, 400);
    plot.show();  // laid out: the axes and the legend have their real size
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setCurve("#1 kl", Qt::red, {1, 2, 3}, {0.5, 0.4, 0.3});
    plot.setCurve("#1 kl_exact", Qt::red, {1, 2, 3}, {50, 40, 30});
    plot.setCurveHidden("#1 kl_exact", true);
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(plot.isCurveHidden("#1 kl_exact"));
    QVERIFY(plot.plot()->yAxis->range().upper < 1);  // the hidden 50 does not stretch the axis
    QCOMPARE(plot.plot()->legend->itemCount(), 1);
    QVERIFY(!plot.readoutAt(insideAxes(plot, 2, 0.4)).contains("kl_exact"));
    plot.appendToCurve("#1 kl_exact", {4}, {20});  // it keeps taking points while hidden
    QCOMPARE(plot.pointCount("#1 kl_exact"), size_t(4));
    plot.setCurveHidden("#1 kl_exact", false);
    plot.refresh();
    QVERIFY(plot.plot()->yAxis->range().upper >= 50);
    QCOMPARE(plot.plot()->legend->itemCount(), 2);
  }

  // A group's band: filled behind its curve, in the range, hidden with it, read beside the
  // value; a band of the wrong length is refused, and a new setCurve drops the old band.
  void aBandIsDrawnBehindItsCurveInTheRangeAndReadOut() {
    MetricPlot plot("loss", "step", "loss");
    plot.resize(600, 400);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setCurve("g loss", Qt::blue, {1, 2, 3}, {1.0, 0.8, 0.6});
    plot.setCurveBand("g loss", {{0.5, 0.6, 0.5}, {1.5, 1.0, 0.7}});
    QVERIFY(plot.hasBand("g loss"));
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(plot.plot()->yAxis->range().upper >= 1.5);
    QVERIFY(plot.plot()->yAxis->range().lower <= 0.5);
    QCOMPARE(plot.plot()->legend->itemCount(), 1);  // the band is not a legend entry
    const QString readout = plot.readoutAt(insideAxes(plot, 2, 0.8));
    QVERIFY2(readout.contains("0.8 ± 0.2"), qPrintable(readout));
    // Filled: a graph of the plot with a brush, below the curve's layer.
    const QCPGraph* fill = nullptr;
    for (int g = 0; g < plot.plot()->graphCount(); ++g)
      if (plot.plot()->graph(g)->channelFillGraph()) fill = plot.plot()->graph(g);
    QVERIFY(fill);
    QCOMPARE(fill->data()->size(), 3);
    QVERIFY(fill->layer()->index() < plot.plot()->layer("main")->index());
    // Where the mean is over fewer members than the group's (some ended sooner), it says so.
    plot.setCurveBand("g loss", {{0.5, 0.6, 0.5}, {1.5, 1.0, 0.7}, {}, {3, 3, 1}, 3});
    const QString fewer = plot.readoutAt(insideAxes(plot, 2.9, 0.6));
    QVERIFY2(fewer.contains("0.6 ± 0.1 (1 of 3 runs)"), qPrintable(fewer));
    const QString all = plot.readoutAt(insideAxes(plot, 2, 0.8));
    QVERIFY2(all.contains("0.8 ± 0.2<") && !all.contains(" runs)"), qPrintable(all));
    plot.setCurveHidden("g loss", true);
    QVERIFY(!fill->visible());
    plot.setCurveHidden("g loss", false);
    plot.setCurveBand("g loss", {{0.5}, {1.5}});  // not the curve's length
    QVERIFY(!plot.hasBand("g loss"));
    plot.setCurveBand("g loss", {{0.5, 0.6, 0.5}, {1.5, 1.0, 0.7}});
    plot.setCurve("g loss", Qt::blue, {1, 2}, {1.0, 0.8});
    QVERIFY(!plot.hasBand("g loss"));
  }

  // A group evaluated once: a band of one point fills nothing, and its mean read as the whole
  // story (its spread was on hover alone). It is drawn as an error bar, as the Study figure
  // draws it.
  void aBandOfOnePointIsDrawnAsABar() {
    MetricPlot plot("kl", "step", "KL");
    plot.resize(600, 400);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setCurve("g kl", Qt::blue, {80}, {0.8});
    plot.setCurveBand("g kl", {{0.5}, {1.0}});
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    QCPErrorBars* bar = nullptr;
    for (int i = 0; i < plot.plot()->plottableCount(); ++i)
      if (auto* b = qobject_cast<QCPErrorBars*>(plot.plot()->plottable(i))) bar = b;
    QVERIFY(bar);
    QCOMPARE(bar->dataCount(), 1);
    QVERIFY(std::abs(bar->data()->at(0).errorMinus - 0.3) < 1e-12);
    QVERIFY(std::abs(bar->data()->at(0).errorPlus - 0.2) < 1e-12);
    QVERIFY(bar->visible());
    QVERIFY(plot.plot()->yAxis->range().lower <= 0.5 && plot.plot()->yAxis->range().upper >= 1.0);
    QCOMPARE(plot.plot()->legend->itemCount(), 1);  // the bar is not a legend entry
    plot.setCurveHidden("g kl", true);
    QVERIFY(!bar->visible());
    plot.setCurveHidden("g kl", false);
    // A second evaluation: a band again, and no bar.
    plot.setCurve("g kl", Qt::blue, {80, 160}, {0.8, 0.7});
    plot.setCurveBand("g kl", {{0.5, 0.6}, {1.0, 0.8}});
    plot.refresh();
    QCOMPARE(bar->dataCount(), 0);
  }

  // A panel with a floor (a squared error is never negative) cuts a band reaching below it
  // there, and its axis stops just under it: mean - sd of two seeds drew the MSE band, and the
  // axis, down to -0.1.
  void aBandStopsAtThePanelsFloor() {
    MetricPlot plot("mse", "step", "squared error");
    plot.resize(600, 400);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setValueBounds(0, std::numeric_limits<double>::quiet_NaN());
    plot.setCurve("g", Qt::blue, {1, 2, 3}, {0.3, 0.2, 0.1});
    plot.setCurveBand("g", {{-0.1, -0.05, 0.02}, {0.7, 0.45, 0.18}});
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QCPRange y = plot.plot()->yAxis->range();
    QVERIFY2(y.lower < 0 && y.lower >= -0.05 * 0.7 - 1e-9 && y.upper >= 0.7,
             qPrintable(QString("%1..%2").arg(y.lower).arg(y.upper)));
    double lowest = 1;
    for (int g = 0; g < plot.plot()->graphCount(); ++g)
      for (auto it = plot.plot()->graph(g)->data()->constBegin();
           it != plot.plot()->graph(g)->data()->constEnd(); ++it)
        lowest = std::min(lowest, it->value);
    QCOMPARE(lowest, 0.0);  // the band's lower edge, cut at the floor
  }

  // On a log axis a band whose mean - sd is zero or barely above (one seed's spike: sd near the
  // mean) was filled to the axis's floor or decades under every member, a jagged wall down the
  // panel. It ends at the group's lowest member there, which the axis shows; without the
  // members' values, at the floor as before.
  void aLogBandReachingZeroEndsAtTheLowestMember() {
    MetricPlot plot("kl", "step", "KL");
    plot.resize(600, 400);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setLogY(true);
    plot.setCurve("g", Qt::blue, {1, 2, 3}, {1.0, 0.5, 0.2});
    plot.setCurveBand("g", {{0.5, -0.3, 0.001}, {1.5, 1.3, 0.3}, {0.4, 0.05, 0.12}});
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QCPGraph* lower = nullptr;
    for (int g = 0; g < plot.plot()->graphCount(); ++g)
      if (const auto* fill = plot.plot()->graph(g)->channelFillGraph()) lower = fill;
    QVERIFY(lower);
    QVector<double> drawn;
    for (auto it = lower->data()->constBegin(); it != lower->data()->constEnd(); ++it)
      drawn << it->value;
    QCOMPARE(drawn, (QVector<double>{0.5, 0.05, 0.12}));
    const QCPRange y = plot.plot()->yAxis->range();
    QVERIFY2(y.lower <= 0.05 && y.lower > 0.01, qPrintable(QString::number(y.lower)));
    plot.setCurveBand("g", {{0.5, -0.3, 0.1}, {1.5, 1.3, 0.3}});  // no members' values
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    drawn.clear();
    for (auto it = lower->data()->constBegin(); it != lower->data()->constEnd(); ++it)
      drawn << it->value;
    QCOMPARE(drawn, (QVector<double>{0.5, std::numeric_limits<double>::min(), 0.1}));
  }

  // A plot whose curves are cleared (a new run shown in the panel) reads no ranges of the
  // curves before: a new run's panels had read the last run's steps and losses until its first
  // value.
  void aPlotWithoutCurvesLetsGoOfTheRangesOfThoseBefore() {
    MetricPlot plot("loss", "step", "loss");
    plot.resize(400, 300);
    plot.setCurve("earlier run's loss", Qt::blue, {100, 200, 3000}, {40, 20, 10});
    plot.refresh();
    QCOMPARE(plot.plot()->xAxis->range().upper, 3000.0);
    QVERIFY(plot.plot()->yAxis->range().upper > 40);
    plot.clearCurves();
    plot.refresh();
    QCOMPARE(plot.plot()->xAxis->range().lower, 0.0);
    QCOMPARE(plot.plot()->xAxis->range().upper, 1.0);
    QCOMPARE(plot.plot()->yAxis->range().lower, 0.0);
    QCOMPARE(plot.plot()->yAxis->range().upper, 1.0);
    // A curve with no value drawn yet (every one NaN) leaves them there too.
    plot.setCurve("new run's loss", Qt::blue, {1}, {std::numeric_limits<double>::quiet_NaN()});
    plot.refresh();
    QCOMPARE(plot.plot()->yAxis->range().upper, 1.0);
    // On a log axis, a range a log axis can draw.
    plot.setLogY(true);
    QVERIFY(plot.plot()->yAxis->range().lower > 0);
  }

  void boundedValuesKeepTheirAxisInsideTheBounds() {
    MetricPlot plot("passkey", "step", "accuracy");
    plot.resize(400, 300);
    plot.setValueBounds(0, 1);
    // Before any value, the bounds' range: an accuracy panel read 0 to 5 until its first one.
    QCOMPARE(plot.plot()->yAxis->range().lower, -0.03);
    QCOMPARE(plot.plot()->yAxis->range().upper, 1.03);
    plot.setCurve("#1 @64", Qt::blue, {1, 2, 3}, {0, 0, 0});
    plot.refresh();
    // Not -1..1 around a flat 0, and the line at 0 above the axis line: 3% of the bounds below.
    QCOMPARE(plot.plot()->yAxis->range().lower, -0.03);
    QVERIFY(plot.plot()->yAxis->range().upper <= 1.03);
    plot.setCurve("#1 @64", Qt::blue, {1, 2, 3}, {0.2, 0.6, 1.0});
    plot.refresh();
    QCOMPARE(plot.plot()->yAxis->range().upper, 1.03);
    QVERIFY(plot.plot()->yAxis->range().lower >= -0.03 && plot.plot()->yAxis->range().lower < 0.2);
  }

  // A weight of 0.9 averages over about ten points: a curve of four evaluations would be
  // averaged whole (a perplexity curve's last smoothed value sat at 7 beside its last point at
  // 2.5), so it is drawn as it is; a long curve beside it is smoothed.
  void smoothingLeavesACurveOfFewerPointsThanItsWindowAsItIs() {
    MetricPlot plot("ppl", "step", "perplexity");
    QVERIFY(shownAt(plot, {500, 300}));
    std::vector<double> x, y;
    for (int i = 0; i < 40; ++i) {
      x.push_back(100.0 * i);
      y.push_back(i % 2 ? 3.0 : 5.0);
    }
    plot.setCurve("#1 loss", Qt::blue, x, y);
    plot.setCurve("#1 @64", Qt::red, {0, 1300, 2600, 3900}, {20.0, 9.0, 4.0, 2.5});
    plot.setSmoothing(0.9);
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    const QString readout = plot.readoutAt(insideAxes(plot, 3880, 3.0));
    QVERIFY2(readout.contains("#1 loss</td><td align=right>3 (smoothed "), qPrintable(readout));
    QVERIFY2(readout.contains("#1 @64</td><td align=right>2.5</td>"), qPrintable(readout));
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
