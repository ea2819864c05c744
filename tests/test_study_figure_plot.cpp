// Tests widgets/study_figure_plot: what a study figure draws (lines with bands, dashed
// baselines, the paper's points), one legend entry per label across panels, a y title too long
// for its panel moved into the panel's title, and valid SVG, PNG and PDF files.
#include <QtTest>

#include <QImage>
#include <QSvgRenderer>

#include <qcustomplot.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <set>

#include "widgets/run_colors.h"
#include "widgets/study_figure_plot.h"

namespace {

fl::study::StudyFigure figure() {
  fl::study::StudyFigure f;
  f.title = "KL against N";
  f.bandDescription = "band: mean ± 0.67 std over seeds";
  f.rows = 1;
  f.cols = 2;
  for (const char* metric : {"test/kl", "test/smoothness"}) {
    fl::study::FigurePanel p;
    p.title = "dataset = gmm2";
    p.metric = metric;
    p.xTitle = "N";
    p.yTitle = metric;
    for (double gamma : {0.0, 1.0}) {
      fl::study::FigureLine line;
      line.label = gamma == 0 ? "gamma = 0" : "gamma = 1e-06";
      line.x = {2, 4, 6};
      line.mean = {0.3 + gamma, 0.2 + gamma, 0.25 + gamma};
      line.lower = {0.28 + gamma, 0.18 + gamma, 0.2 + gamma};
      line.upper = {0.32 + gamma, 0.22 + gamma, 0.3 + gamma};
      line.n = {4, 4, 4};
      line.colorRank = gamma == 0 ? 0 : 1;
      p.lines.push_back(line);
    }
    p.baselines.push_back({"linear head", {}, {0.5}, {0.45}, {0.55}, {4}, 0});
    p.references.push_back({"paper", "gamma = 0", 4, 0.21, 0.03});
    f.panels.push_back(p);
  }
  return f;
}

// A one-panel figure of test/kl against the head, over these categories, without lines yet.
fl::study::StudyFigure headFigure(const std::vector<std::string>& heads) {
  fl::study::StudyFigure f;
  f.rows = f.cols = 1;
  fl::study::FigurePanel p;
  p.metric = p.yTitle = "test/kl";
  p.xTitle = "head";
  p.xCategories = heads;
  f.panels.push_back(p);
  return f;
}

}  // namespace

class TestStudyFigurePlot : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

 private slots:
  void drawsEverySeriesWithOneLegendEntryPerLabel() {
    fl::widgets::StudyFigurePlot plot;
    plot.resize(1000, 420);
    plot.setFigure(figure());
    QCOMPARE(plot.panelCount(), 2);
    // Per panel: 2 lines x (band low + band high + mean) + baseline (band 2 + line) + the
    // paper's point; one more graph holds the legend's key for the paper's points.
    QCOMPARE(plot.graphCount(), 2 * (2 * 3 + 3 + 1) + 1);
    QCOMPARE(plot.legendEntries(), 4);  // gamma = 0, gamma = 1e-06, linear head, paper
    // Drawing again replaces, never adds.
    plot.setFigure(figure());
    QCOMPARE(plot.graphCount(), 21);
    QCOMPARE(plot.legendEntries(), 4);
  }

  // A line's colour is the palette's at its rank among the study's lines, not at its place in
  // the panel (a figure drawn with --where keeps each line's colour); baselines take the
  // palette from its end, and the paper's point its line's colour.
  void eachSeriesIsDrawnInItsRanksColour() {
    auto f = figure();
    for (auto& panel : f.panels) {
      panel.lines[0].colorRank = 3;
      panel.lines[1].colorRank = 1;
    }
    fl::widgets::StudyFigurePlot plot;
    plot.resize(1000, 420);
    plot.setFigure(f);
    std::map<QString, QColor> penOf;
    for (int i = 0; i < plot.plot()->graphCount(); ++i)
      if (!plot.plot()->graph(i)->name().isEmpty())
        penOf[plot.plot()->graph(i)->name()] = plot.plot()->graph(i)->pen().color();
    using fl::widgets::runPaletteColor;
    QCOMPARE(penOf.at("gamma = 0"), runPaletteColor(3));
    QCOMPARE(penOf.at("gamma = 1e-06"), runPaletteColor(1));
    QCOMPARE(penOf.at("linear head"), runPaletteColor(fl::widgets::runPaletteSize() - 1));
    for (int i = 0; i < plot.plot()->graphCount(); ++i) {
      const QCPGraph* g = plot.plot()->graph(i);
      if (g->scatterStyle().shape() == QCPScatterStyle::ssDiamond && g->dataCount() == 1)
        QCOMPARE(g->pen().color(), runPaletteColor(3));  // the paper's point of gamma = 0
    }
    // A point's own rank (here not its line's) gives way to its line's colour.
    for (auto& panel : f.panels) panel.references[0].colorRank = 5;
    plot.setFigure(f);
    for (int i = 0; i < plot.plot()->graphCount(); ++i) {
      const QCPGraph* g = plot.plot()->graph(i);
      if (g->scatterStyle().shape() == QCPScatterStyle::ssDiamond && g->dataCount() == 1)
        QCOMPARE(g->pen().color(), runPaletteColor(3));
    }
    // Ranks that would share a colour (a study of more lines than the palette has colours,
    // drawn in part: every other one of 24) give the figure's own lines the palette in their
    // order, each its own colour.
    fl::study::StudyFigure many;
    many.rows = many.cols = 1;
    fl::study::FigurePanel p;
    p.metric = p.yTitle = "test/kl";
    p.xTitle = "N";
    for (int i = 0; i < 8; ++i) {
      fl::study::FigureLine line;
      line.label = "dataset = d" + std::to_string(i);
      line.x = {1, 2};
      line.mean = {0.1 * i, 0.1 * i + 0.05};
      line.lower = line.mean;
      line.upper = line.mean;
      line.n = {1, 1};
      line.colorRank = 2 * i;
      p.lines.push_back(line);
    }
    p.baselines.push_back({"linear head", {}, {0.5}, {0.45}, {0.55}, {4}, 0});
    many.panels.push_back(p);
    plot.setFigure(many);
    std::set<QRgb> colours;  // of every drawn line (a band's edges draw none)
    for (int i = 0; i < plot.plot()->graphCount(); ++i)
      if (plot.plot()->graph(i)->pen().style() != Qt::NoPen)
        colours.insert(plot.plot()->graph(i)->pen().color().rgb());
    QCOMPARE(plot.legendEntries(), 9);
    QCOMPARE(colours.size(), size_t(9));
  }

  // One setting (--where frequencies=12): each line's spread is an error bar, as the paper's
  // point beside it has (a band over one x drew nothing), and the axis is labelled at it.
  void oneSettingDrawsItsSpreadAsErrorBars() {
    auto f = figure();
    for (auto& panel : f.panels)
      for (auto& line : panel.lines) {
        line.x = {12};
        line.mean.resize(1);
        line.lower.resize(1);
        line.upper.resize(1);
        line.n.resize(1);
      }
    for (auto& panel : f.panels) panel.references.clear();
    fl::widgets::StudyFigurePlot plot;
    plot.resize(1000, 420);
    plot.setFigure(f);
    QCustomPlot* custom = plot.plot();
    int bars = 0;
    for (int i = 0; i < custom->plottableCount(); ++i)
      if (auto* b = qobject_cast<QCPErrorBars*>(custom->plottable(i))) {
        QVERIFY(b->dataCount() == 1 && b->data()->at(0).errorMinus > 0);
        ++bars;
      }
    QCOMPARE(bars, 2 * 2);  // two lines in each of two panels
    // Side by side around the setting, as around a category: at one x they hid one another.
    std::set<double> keys;
    for (int i = 0; i < custom->graphCount(); ++i)
      if (custom->graph(i)->dataCount() == 1 &&
          custom->graph(i)->scatterStyle().shape() == QCPScatterStyle::ssCircle)
        keys.insert(custom->graph(i)->data()->at(0)->key);
    QCOMPARE(keys, (std::set<double>{12 - 0.125, 12 + 0.125}));
    auto ticker =
        custom->axisRect(0)->axis(QCPAxis::atBottom)->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().keys(), QList<double>{12});
  }

  // Categories (heads) have no order: each line's means are dots with error bars, side by side
  // around each category, joined by no line and no band; the paper's point of a line with no
  // finished run yet has the line's colour and its legend entry, not a black diamond.
  // A titled figure (a written file) has its title above the panels; an untitled one (the
  // study view, which names the study right above it) gives that row to the panels.
  void aTitleRowOnlyWhereTheFigureHasATitle() {
    fl::widgets::StudyFigurePlot plot;
    plot.resize(1000, 420);
    plot.setFigure(figure());
    auto* layout = plot.plot()->plotLayout();
    auto* title = qobject_cast<QCPTextElement*>(layout->element(0, 0));
    QVERIFY(title);
    QCOMPARE(title->text(), QString("KL against N"));
    const int titledTop = layout->element(1, 0)->outerRect().top();
    auto untitled = figure();
    untitled.title.clear();
    plot.setFigure(untitled);
    QCOMPARE(layout->rowCount(), 2);  // the panels, then the legend and caption
    plot.plot()->replot();
    QVERIFY(qobject_cast<QCPLayoutGrid*>(layout->element(0, 0)));
    QVERIFY(layout->element(0, 0)->outerRect().top() < titledTop);
    for (auto* element : layout->elements(true))
      if (auto* text = qobject_cast<QCPTextElement*>(element))
        QVERIFY2(text->text() != "KL against N", "the title is still drawn");
  }

  void categoriesAreDotsWithErrorBarsNeverJoined() {
    fl::study::StudyFigure f = headFigure({"linear", "gmm", "fourier"});
    fl::study::FigurePanel& p = f.panels[0];
    for (const char* dataset : {"gaussian", "gmm2"}) {
      fl::study::FigureLine line;
      line.label = dataset;
      line.x = {0, 1, 2};
      line.mean = {0.3, 0.2, 0.1};
      line.lower = {0.25, 0.15, 0.05};
      line.upper = {0.35, 0.3, 0.12};
      line.n = {3, 3, 3};
      line.colorRank = static_cast<int>(p.lines.size());
      p.lines.push_back(line);
    }
    p.references.push_back({"paper", "beta", 2, 0.4, 0.05, 2});  // beta has no run yet
    fl::widgets::StudyFigurePlot plot;
    plot.resize(800, 400);
    plot.setFigure(f);
    QCustomPlot* custom = plot.plot();
    QCOMPARE(plot.graphCount(), 2 + 1 + 1);  // a graph per line, the diamond, the paper's key
    const QCPGraph* gaussian = custom->graph(0);
    const QCPGraph* gmm2 = custom->graph(1);
    QCOMPARE(gaussian->lineStyle(), QCPGraph::lsNone);
    QCOMPARE(gmm2->lineStyle(), QCPGraph::lsNone);
    // Side by side: -0.125 and +0.125 around each category (half the unit shared by 2 lines).
    QCOMPARE(gaussian->data()->at(1)->key, 1 - 0.125);
    QCOMPARE(gmm2->data()->at(1)->key, 1 + 0.125);
    int bars = 0;
    for (int i = 0; i < custom->plottableCount(); ++i)
      if (auto* b = qobject_cast<QCPErrorBars*>(custom->plottable(i))) {
        if (b->dataPlottable() == gaussian) {
          QCOMPARE(b->data()->at(1).errorMinus, 0.2 - 0.15);
          QVERIFY(std::abs(b->data()->at(1).errorPlus - (0.3 - 0.2)) < 1e-12);
        }
        ++bars;
      }
    QCOMPARE(bars, 3);  // one per line, one for the paper's point
    // No darker zero line singles out the first category (it sits at x = 0).
    QCOMPARE(custom->axisRect(0)->axis(QCPAxis::atBottom)->grid()->zeroLinePen().style(),
             Qt::NoPen);
    const QCPGraph* diamond = custom->graph(2);
    QCOMPARE(diamond->pen().color(), fl::widgets::runPaletteColor(2));  // its line's, unseen
    QCOMPARE(diamond->name(), QString("beta"));
    QCOMPARE(plot.legendEntries(), 4);  // gaussian, gmm2, beta, paper
  }

  // Category labels wider together than their panel are cut in their middle to their share:
  // FourierQK's nine variants ran into each other at 1280x720, and cut at their end
  // "spectral_mexican_hat" and "spectral_mexican_hat_k4" would read alike.
  void crowdedCategoryLabelsAreCutInTheirMiddle() {
    const std::vector<std::string> variants{"none",
                                            "random",
                                            "fourier",
                                            "multi",
                                            "spectral_mexican_hat",
                                            "spectral_mexican_hat_k4",
                                            "gaussian",
                                            "mexican_hat",
                                            "causal_morlet"};
    fl::widgets::StudyFigurePlot plot;
    plot.resize(560, 300);
    plot.setFigure(headFigure(variants));
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    auto ticker = plot.plot()
                      ->axisRect(0)
                      ->axis(QCPAxis::atBottom)
                      ->ticker()
                      .dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    const QStringList labels = ticker->ticks().values();
    QCOMPARE(labels.size(), 9);
    QCOMPARE(labels.front(), QString("none"));  // short ones whole
    QVERIFY2(labels[4] != labels[5], qPrintable(labels[4] + " | " + labels[5]));
    QVERIFY2(labels[5].contains("…") && labels[5].endsWith("k4"), qPrintable(labels[5]));
    const QFontMetrics font(QFont("sans", 9));
    int together = 0;
    for (const QString& label : labels) together += font.horizontalAdvance(label);
    QVERIFY2(together < plot.width(), qPrintable(QString::number(together)));
    // Wide enough, they are whole again.
    plot.resize(1800, 300);
    QTRY_COMPARE(ticker->ticks().value(5), QString("spectral_mexican_hat_k4"));
  }

  // Only the lines with a point at a category share its room: the linear head (a line of one
  // category) sat left of its tick, beside two empty places the Fourier heads had at theirs.
  void aCategoryIsSharedOnlyByTheLinesWithAPointThere() {
    fl::study::StudyFigure f = headFigure({"linear", "fourier"});
    fl::study::FigurePanel& p = f.panels[0];
    const std::vector<std::pair<const char*, double>> lines{
        {"frequencies not used", 0}, {"frequencies = 4", 1}, {"frequencies = 12", 1}};
    for (const auto& [label, x] : lines) {
      fl::study::FigureLine line;
      line.label = label;
      line.x = {x};
      line.mean = {0.3};
      line.lower = {0.25};
      line.upper = {0.35};
      line.n = {2};
      line.colorRank = static_cast<int>(p.lines.size());
      p.lines.push_back(line);
    }
    fl::widgets::StudyFigurePlot plot;
    plot.resize(800, 400);
    plot.setFigure(f);
    QCustomPlot* custom = plot.plot();
    QCOMPARE(custom->graph(0)->data()->at(0)->key, 0.0);  // on its tick, alone there
    const double spacing = 0.5 / 3;                       // the unit's half over 3 lines
    QCOMPARE(custom->graph(1)->data()->at(0)->key, 1 - spacing / 2);
    QCOMPARE(custom->graph(2)->data()->at(0)->key, 1 + spacing / 2);
  }

  void aYTitleLongerThanItsPanelMovesIntoThePanelsTitle() {
    fl::study::StudyFigure f = figure();
    f.panels[0].yTitle = "KL(true || predicted) (nats)";
    fl::widgets::StudyFigurePlot plot;
    plot.resize(1000, 500);  // one row of panels: room for the y title on its axis
    plot.setFigure(f);
    QCOMPARE(plot.panelYLabel(0), QString("KL(true || predicted) (nats)"));
    QCOMPARE(plot.panelTitle(0), QString("dataset = gmm2"));
    // Three rows in the same height: 60-odd pixels a panel, too short for it.
    f.cols = 1;
    f.panels.push_back(f.panels[0]);
    plot.setFigure(f);
    QCOMPARE(plot.panelYLabel(0), QString());
    QCOMPARE(plot.panelTitle(0), QString("dataset = gmm2  ·  KL(true || predicted) (nats)"));
    // Made taller on the screen, it goes back to its axis.
    plot.show();
    plot.resize(1000, 1400);
    QTRY_COMPARE(plot.panelYLabel(2), QString("KL(true || predicted) (nats)"));
    QCOMPARE(plot.panelTitle(2), QString("dataset = gmm2"));
  }

  // A shortened study's untrained GMM head sat at KL 11 while the Fourier head's curves and the
  // paper's points lay between 0 and 1: drawn to scale, every line was flat near 0. A baseline
  // more than twice the lines' span away is named at the edge it lies past, with its value, and
  // keeps its legend entry; one within reach is drawn to scale.
  void aBaselineFarFromTheLinesIsNamedAtTheEdgeNotDrawnToScale() {
    fl::study::StudyFigure f = figure();
    f.cols = 1;
    f.panels.resize(1);
    auto& panel = f.panels[0];
    panel.baselines.push_back({"GMM head", {}, {10.98}, {10.5}, {11.5}, {4}});
    panel.baselines.push_back({"below", {}, {-40}, {-41}, {-39}, {4}});
    fl::widgets::StudyFigurePlot plot;
    plot.resize(700, 420);
    plot.show();  // laid out: the notes' room is measured in the panel's pixels
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.setFigure(f);
    const QCPRange y = plot.plot()->axisRect(0)->axis(QCPAxis::atLeft)->range();
    // Lines and points span 0.18 .. 1.32; the linear head's band (0.45 .. 0.55) is in it.
    QVERIFY2(y.upper < 2 && y.lower > -1,
             qPrintable(QString("%1 .. %2").arg(y.lower).arg(y.upper)));
    QVERIFY(y.contains(0.45) && y.contains(0.55) && y.contains(1.32) && y.contains(0.18));
    QStringList notes;
    auto* yAxis = plot.plot()->axisRect(0)->axis(QCPAxis::atLeft);
    for (int i = 0; i < plot.plot()->itemCount(); ++i)
      if (auto* text = qobject_cast<QCPItemText*>(plot.plot()->item(i))) {
        notes << text->text();
        // Each note lies beyond the data it would otherwise cover (pixels grow downwards).
        if (text->text().contains("↑"))
          QVERIFY(text->bottom->pixelPosition().y() < yAxis->coordToPixel(1.32));
        else
          QVERIFY(text->top->pixelPosition().y() > yAxis->coordToPixel(0.18));
      }
    notes.sort();
    QCOMPARE(notes, QStringList({"GMM head ↑ off scale at 11", "below ↓ off scale at -40"}));
    QCOMPARE(plot.legendEntries(), 6);  // the two gammas, three baselines, the paper
    // In a narrow panel a long name is cut in its middle, its start and its value kept: drawn
    // whole, the line had run past the panel's left edge and lost the name's start.
    {
      auto narrow = f;
      narrow.panels[0].baselines[1].label =
          "linear head, dataset = beta, frequencies not used, gamma not used";
      fl::widgets::StudyFigurePlot small;
      small.resize(300, 300);
      small.show();
      QVERIFY(QTest::qWaitForWindowExposed(&small));
      small.setFigure(narrow);
      // The panel saved at `width` pixels, as SVG text.
      const auto savedAt = [&](int width) {
        const QString path = m_dir.filePath(QString("narrow-note-%1.svg").arg(width));
        if (!small.save(path, width, 300).isEmpty()) return QString();
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
      };
      const QString drawn = savedAt(300);
      QVERIFY2(drawn.contains(QRegularExpression("linear.*….*↑ off scale at 11")),
               qPrintable(drawn.mid(drawn.indexOf("off scale") - 300, 400)));
      // Narrower than the words: the arrow and the value, after what fits of the name.
      const QString tinyDrawn = savedAt(200);
      QVERIFY2(tinyDrawn.contains(QRegularExpression(">li[^<]*…[^<]* ↑ 11<")),
               qPrintable(tinyDrawn.mid(tinyDrawn.indexOf("↑") - 300, 400)));
    }
    // Within reach (1.9 lies 0.6 above the lines' 1.32, their span is 1.14): to scale, no note.
    panel.baselines.resize(1);
    panel.baselines[0].mean = {1.9};
    panel.baselines[0].upper = {2.0};
    plot.setFigure(f);
    QVERIFY(plot.plot()->axisRect(0)->axis(QCPAxis::atLeft)->range().contains(2.0));
    QCOMPARE(plot.plot()->itemCount(), 0);
  }

  // A KL is never below 0 nor an accuracy above 1: a band or error bar of mean ± std reaching
  // past the metric's bounds is cut there (as in the run panels), and the axis does not show
  // the impossible values beyond its small margin.
  void bandsAndErrorBarsAreCutAtTheMetricsBounds() {
    fl::study::StudyFigure f;
    fl::study::FigurePanel p;
    p.metric = p.yTitle = "test/kl";
    p.yFloor = 0;
    p.yCeiling = 1;
    fl::study::FigureLine line{"fourier", {2, 4}, {0.1, 0.9}, {-0.3, 0.7}, {0.5, 1.4}, {4, 4}};
    p.lines.push_back(line);
    p.references.push_back({"paper", "fourier", 2, 0.05, 0.2});
    f.panels.push_back(p);
    fl::widgets::StudyFigurePlot plot;
    plot.resize(600, 400);
    plot.setFigure(f);
    QCustomPlot* custom = plot.plot();
    const QCPGraph* bandLow = custom->graph(0);
    const QCPGraph* bandHigh = custom->graph(1);
    QCOMPARE(bandLow->data()->at(0)->value, 0.0);
    QCOMPARE(bandHigh->data()->at(1)->value, 1.0);
    for (int i = 0; i < custom->plottableCount(); ++i)
      if (auto* bars = qobject_cast<QCPErrorBars*>(custom->plottable(i))) {
        QCOMPARE(bars->data()->at(0).errorMinus, 0.05);  // 0.05 - 0.2 cut at 0
        QVERIFY(std::abs(bars->data()->at(0).errorPlus - 0.2) < 1e-12);
      }
    const QCPRange y = custom->axisRect(0)->axis(QCPAxis::atLeft)->range();
    QVERIFY(y.lower >= -0.1 && y.lower < 0 && y.upper <= 1.1 && y.upper > 1);
    // Without bounds the same figure shows the whole spread.
    f.panels[0].yFloor = -std::numeric_limits<double>::infinity();
    f.panels[0].yCeiling = std::numeric_limits<double>::infinity();
    plot.setFigure(f);
    QCOMPARE(custom->graph(0)->data()->at(0)->value, -0.3);
    QVERIFY(custom->axisRect(0)->axis(QCPAxis::atLeft)->range().contains(-0.3));
    // An accuracy of 0 everywhere shows its whole scale, not -0.001 to 0.001 around it.
    fl::study::FigurePanel flat;
    flat.metric = flat.yTitle = "passkey/acc@*";
    flat.yFloor = 0;
    flat.yCeiling = 1;
    flat.lines.push_back({"rope", {64, 128}, {0, 0}, {0, 0}, {0, 0}, {3, 3}});
    f.panels = {flat};
    plot.setFigure(f);
    const QCPRange whole = custom->axisRect(0)->axis(QCPAxis::atLeft)->range();
    QVERIFY2(whole.lower < 0 && whole.lower > -0.1 && whole.upper > 1 && whole.upper < 1.1,
             qPrintable(QString("%1..%2").arg(whole.lower).arg(whole.upper)));
  }

  // Lengths 64 to 512 on a log axis: a tick at each, where 1-2-5 ticks (100, 200, 500) left
  // every point between two labels.
  void aFewSettingsOnALogAxisAreLabelledWhereTheyAre() {
    fl::study::StudyFigure f;
    f.rows = f.cols = 1;
    fl::study::FigurePanel p;
    p.metric = p.title = "val/ppl@*";
    p.logX = true;
    p.lines.push_back({"position = rope", {64, 128, 256, 512}, {3, 4, 5, 8}, {}, {}, {3, 3, 3, 3}});
    p.references.push_back({"paper", "", 1024, 6, {}});
    for (auto& line : p.lines) line.lower = line.upper = std::vector<double>(4, NAN);
    f.panels = {p};
    fl::widgets::StudyFigurePlot plot;
    plot.resize(600, 400);
    plot.setFigure(f);
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    auto* x = plot.plot()->axisRect(0)->axis(QCPAxis::atBottom);
    QCOMPARE(x->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(x->tickVector(), QVector<double>({64, 128, 256, 512, 1024}));
    QCOMPARE(x->tickVectorLabels(), QVector<QString>({"64", "128", "256", "512", "1024"}));
    // Many settings keep the log ticker's labels.
    f.panels[0].lines[0].x.clear();
    f.panels[0].references.clear();
    for (int k = 1; k <= 12; ++k) f.panels[0].lines[0].x.push_back(k * 10);
    f.panels[0].lines[0].mean = f.panels[0].lines[0].lower = f.panels[0].lines[0].upper =
        std::vector<double>(12, 1.0);
    f.panels[0].lines[0].n = std::vector<int>(12, 3);
    plot.setFigure(f);
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    x = plot.plot()->axisRect(0)->axis(QCPAxis::atBottom);
    QVERIFY(!x->tickVector().contains(30));
  }

  void writesValidSvgPngAndPdf() {
    fl::widgets::StudyFigurePlot plot;
    plot.setFigure(figure());
    const QString svg = m_dir.filePath("f.svg"), png = m_dir.filePath("f.png"),
                  pdf = m_dir.filePath("f.pdf");
    QCOMPARE(plot.save(svg, 1100, 450), QString());
    QCOMPARE(plot.save(png, 1100, 450), QString());
    QCOMPARE(plot.save(pdf, 1100, 450), QString());
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    QImage image(png);
    QCOMPARE(image.size(), QSize(1100, 450));
    std::ifstream in(pdf.toStdString(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    QCOMPARE(bytes.substr(0, 4), std::string("%PDF"));
    QVERIFY(plot.save(m_dir.filePath("f.gif"), 100, 100).contains(".svg, .png or .pdf"));
    QVERIFY(plot.save("/nonexistent/dir/f.png", 100, 100).contains("cannot write"));
  }

  // A figure written unshown at `sweep plot`'s default size for one panel (760 x 470), an
  // off-scale baseline in it and a long departure under it: the departure was cut at both ends,
  // the legend's first entry ran off the left edge, and y ticks worked out before the notes' room
  // was made were drawn above the panel ("1.25" over its title).
  void aSmallFigureFileKeepsItsCaptionLegendAndTicksInside() {
    QTemporaryDir dir;
    fl::study::StudyFigure f = figure();
    f.cols = 1;
    f.panels.resize(1);
    f.panels[0].baselines.push_back({"GMM head", {}, {9.0}, {8.5}, {9.5}, {4}});
    f.panels[0].baselines.push_back({"another baseline", {}, {0.45}, {0.4}, {0.5}, {4}});
    f.departure =
        "Departs from the paper's settings: samples 1000 (the paper's 5000), epochs 10 (the "
        "paper's 500).";
    f.pointsNote = "The paper's points are drawn to read, not compared.";
    fl::widgets::StudyFigurePlot plot;
    plot.resize(760, 470);
    plot.setFigure(f);
    QCOMPARE(plot.save(dir.filePath("small.png"), 760, 470), QString());
    auto* y = plot.plot()->axisRect(0)->axis(QCPAxis::atLeft);
    for (double tick : y->tickVector())
      QVERIFY2(
          y->range().contains(tick),
          qPrintable(
              QString("%1 outside %2..%3").arg(tick).arg(y->range().lower).arg(y->range().upper)));
    bool departureSeen = false;
    for (auto* element : plot.plot()->plotLayout()->elements(true)) {
      auto* text = qobject_cast<QCPTextElement*>(element);
      if (!text || !text->text().contains("samples 1000")) continue;
      departureSeen = true;
      QVERIFY2(text->text().contains('\n'), qPrintable(text->text()));
      for (const QString& line : text->text().split('\n'))
        QVERIFY2(QFontMetrics(text->font()).horizontalAdvance(line) <= 760 - 20, qPrintable(line));
    }
    QVERIFY(departureSeen);
    int widest = 0;
    for (auto* element : plot.plot()->plotLayout()->elements(true))
      if (auto* l = qobject_cast<QCPLegend*>(element))
        widest = std::max(widest, l->minimumOuterSizeHint().width());
    QVERIFY2(widest > 0 && widest <= 760 - 30, qPrintable(QString::number(widest)));
    // Each entry's text box holds its descenders: QCustomPlot makes it as tall as the legend's
    // icons, and 10 px read "gamma" as "qamma" (the icon is the font's line and two pixels).
    for (auto* element : plot.plot()->plotLayout()->elements(true))
      if (auto* l = qobject_cast<QCPLegend*>(element))
        QVERIFY2(l->iconSize().height() >= QFontMetrics(l->font()).height(),
                 qPrintable(QString("%1 < %2")
                                .arg(l->iconSize().height())
                                .arg(QFontMetrics(l->font()).height())));
  }
};

QTEST_MAIN(TestStudyFigurePlot)
#include "test_study_figure_plot.moc"
