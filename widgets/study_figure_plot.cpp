#include "widgets/study_figure_plot.h"

#include <QFileInfo>
#include <QFontMetrics>
#include <QSvgGenerator>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <qcustomplot.h>

namespace fl::widgets {

namespace {

// Tableau 10 without grey: lines take them in order, baselines from the end, so a figure with
// two lines and two baselines has four distinct hues (as the paper's orange, blue, red, purple).
const QColor kPalette[] = {QColor(255, 127, 14),  QColor(31, 119, 180),  QColor(44, 160, 44),
                           QColor(227, 119, 194), QColor(23, 190, 207),  QColor(188, 189, 34),
                           QColor(140, 86, 75),   QColor(148, 103, 189), QColor(214, 39, 40)};
constexpr int kPaletteSize = sizeof(kPalette) / sizeof(kPalette[0]);

QColor translucent(QColor c, int alpha) {
  c.setAlpha(alpha);
  return c;
}

QVector<double> toQVector(const std::vector<double>& v) {
  return QVector<double>(v.begin(), v.end());
}

// The band as two graphs, the upper filled down to the lower; NaN points (one seed) leave gaps.
void addBand(QCustomPlot* plot, QCPAxisRect* rect, const QVector<double>& x,
             const QVector<double>& lower, const QVector<double>& upper, const QColor& color) {
  bool any = false;
  for (int i = 0; i < lower.size(); ++i)
    any = any || (std::isfinite(lower[i]) && std::isfinite(upper[i]));
  if (!any) return;
  auto* low = plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
  auto* high = plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
  low->setData(x, lower, /*alreadySorted=*/true);
  high->setData(x, upper, /*alreadySorted=*/true);
  low->setPen(Qt::NoPen);
  high->setPen(Qt::NoPen);
  high->setBrush(translucent(color, 55));
  high->setChannelFillGraph(low);
  low->removeFromLegend();
  high->removeFromLegend();
}

}  // namespace

StudyFigurePlot::StudyFigurePlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot);
  m_plot->setMinimumSize(320, 160);
}

int StudyFigurePlot::graphCount() const { return m_plot->graphCount(); }
int StudyFigurePlot::legendEntries() const {
  return m_plot->legend ? m_plot->legend->itemCount() : 0;
}
int StudyFigurePlot::panelCount() const { return m_panels; }

QString StudyFigurePlot::panelTitle(int i) const {
  return m_titles.at(static_cast<size_t>(i)).title->text();
}

QString StudyFigurePlot::panelYLabel(int i) const {
  return m_titles.at(static_cast<size_t>(i)).yAxis->label();
}

void StudyFigurePlot::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // Each row of panels at least kMinRowHeight tall: in a scroll area, many rows scroll.
  setMinimumHeight(80 + m_rows * kMinRowHeight);
  placeTitles(width(), height());
  m_plot->replot();
}

void StudyFigurePlot::placeTitles(int width, int height) {
  // The figure's own title, legend and caption take about 80 px; a panel's title, x ticks and
  // x title about 50; a panel's y ticks and margins about 20 px of its width.
  const int panelHeight = (height - 80) / std::max(1, m_rows) - 50;
  const int panelWidth = width / std::max(1, m_cols) - 20;
  const QFontMetrics axisFont(QFont("sans", 9));
  const QFontMetrics panelFont(QFont("sans", 10, QFont::Bold));
  for (auto& panel : m_titles) {
    const bool fits = axisFont.horizontalAdvance(panel.yTitle) + 8 <= panelHeight;
    panel.yAxis->setLabel(fits ? panel.yTitle : QString());
    const QString text =
        fits || panel.yTitle.isEmpty() ? panel.text : panel.text + "  ·  " + panel.yTitle;
    panel.title->setText(panelFont.elidedText(text, Qt::ElideRight, panelWidth));
  }
  if (m_figureTitle)
    m_figureTitle->setText(QFontMetrics(m_figureTitle->font())
                               .elidedText(m_figureTitleText, Qt::ElideRight, width - 20));
}

void StudyFigurePlot::setFigure(const study::StudyFigure& figure) {
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_plot->plotLayout()->clear();  // the default axis rect and its legend go with it
  m_panels = 0;
  m_titles.clear();
  m_cols = std::max(1, figure.cols);
  m_rows = (static_cast<int>(figure.panels.size()) + m_cols - 1) / m_cols;
  auto* root = m_plot->plotLayout();
  m_figureTitleText = QString::fromStdString(figure.title);
  m_figureTitle = new QCPTextElement(m_plot, m_figureTitleText, QFont("sans", 11, QFont::Bold));
  root->addElement(0, 0, m_figureTitle);
  auto* grid = new QCPLayoutGrid;
  root->addElement(1, 0, grid);
  auto* legend = new QCPLegend;
  auto* footer = new QCPLayoutGrid;
  root->addElement(2, 0, footer);
  footer->addElement(0, 0, legend);
  footer->addElement(
      1, 0,
      new QCPTextElement(m_plot, QString::fromStdString(figure.bandDescription), QFont("sans", 8)));
  legend->setLayer("legend");
  legend->setFont(QFont("sans", 9));
  legend->setBorderPen(Qt::NoPen);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(6);  // up to six entries side by side, then a new row
  legend->setIconSize(24, 10);
  root->setRowStretchFactor(0, 0.001);
  root->setRowStretchFactor(2, 0.001);

  std::map<std::string, QColor> colorOf;  // a label keeps its colour in every panel
  int nextLine = 0, nextBaseline = kPaletteSize - 1;
  auto colorFor = [&](const std::string& label, bool baseline) {
    auto it = colorOf.find(label);
    if (it != colorOf.end()) return it->second;
    const QColor c =
        kPalette[((baseline ? nextBaseline-- : nextLine++) % kPaletteSize + kPaletteSize) %
                 kPaletteSize];
    colorOf.emplace(label, c);
    return c;
  };
  std::map<std::string, bool> inLegend;
  auto legendOnce = [&](QCPAbstractPlottable* p, const std::string& label) {
    if (inLegend[label]) return;
    inLegend[label] = true;
    p->setName(QString::fromStdString(label));
    p->addToLegend(legend);
  };

  for (int i = 0; i < static_cast<int>(figure.panels.size()); ++i) {
    const auto& panel = figure.panels[static_cast<size_t>(i)];
    auto* cell = new QCPLayoutGrid;
    grid->addElement(i / std::max(1, figure.cols), i % std::max(1, figure.cols), cell);
    auto* title = new QCPTextElement(m_plot, QString::fromStdString(panel.title),
                                     QFont("sans", 10, QFont::Bold));
    cell->addElement(0, 0, title);
    auto* rect = new QCPAxisRect(m_plot);
    cell->addElement(1, 0, rect);
    cell->setRowStretchFactor(0, 0.001);
    ++m_panels;
    auto* xAxis = rect->axis(QCPAxis::atBottom);
    auto* yAxis = rect->axis(QCPAxis::atLeft);
    xAxis->setLabel(QString::fromStdString(panel.xTitle));
    m_titles.push_back(
        {title, yAxis, QString::fromStdString(panel.title), QString::fromStdString(panel.yTitle)});
    for (auto* axis : {xAxis, yAxis}) {
      axis->setLabelFont(QFont("sans", 9));
      axis->setTickLabelFont(QFont("sans", 8));
      axis->grid()->setPen(QPen(QColor(220, 220, 220), 0.5));
    }

    double xMin = std::numeric_limits<double>::infinity(), xMax = -xMin;
    double yMin = xMin, yMax = -xMin;
    auto seeY = [&](double v) {
      if (std::isfinite(v)) {
        yMin = std::min(yMin, v);
        yMax = std::max(yMax, v);
      }
    };
    for (const auto& line : panel.lines)
      for (size_t k = 0; k < line.x.size(); ++k) {
        xMin = std::min(xMin, line.x[k]);
        xMax = std::max(xMax, line.x[k]);
        seeY(line.mean[k]);
        seeY(line.lower[k]);
        seeY(line.upper[k]);
      }
    for (const auto& p : panel.references) {
      xMin = std::min(xMin, p.x);
      xMax = std::max(xMax, p.x);
      seeY(p.y - p.spread.value_or(0));
      seeY(p.y + p.spread.value_or(0));
    }
    if (!std::isfinite(xMin)) xMin = 0, xMax = 1;
    if (xMax == xMin) xMin -= 0.5, xMax += 0.5;

    for (const auto& line : panel.lines) {
      const QColor color = colorFor(line.label, false);
      addBand(m_plot, rect, toQVector(line.x), toQVector(line.lower), toQVector(line.upper), color);
      auto* g = m_plot->addGraph(xAxis, yAxis);
      g->setData(toQVector(line.x), toQVector(line.mean), /*alreadySorted=*/true);
      g->setPen(QPen(color, 2));
      g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 5));
      g->removeFromLegend();
      legendOnce(g, line.label);
    }
    for (const auto& base : panel.baselines) {
      const QColor color = colorFor(base.label, true);
      const QVector<double> x{xMin, xMax};
      addBand(m_plot, rect, x, {base.lower[0], base.lower[0]}, {base.upper[0], base.upper[0]},
              color);
      auto* g = m_plot->addGraph(xAxis, yAxis);
      g->setData(x, {base.mean[0], base.mean[0]}, true);
      g->setPen(QPen(color, 2, Qt::DashLine));
      g->removeFromLegend();
      legendOnce(g, base.label);
      seeY(base.mean[0]);
      seeY(base.lower[0]);
      seeY(base.upper[0]);
    }
    // The paper's points: a diamond with an error bar of its spread, in the colour of the line
    // it belongs to; one black legend entry says what diamonds are.
    for (const auto& point : panel.references) {
      auto known = colorOf.find(point.line);
      const QColor color = known == colorOf.end() ? QColor(Qt::black) : known->second;
      auto* g = m_plot->addGraph(xAxis, yAxis);
      g->setData(QVector<double>{point.x}, QVector<double>{point.y});
      g->setLineStyle(QCPGraph::lsNone);
      g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, color, Qt::white, 10));
      g->setPen(QPen(color, 1.8));
      g->removeFromLegend();
      if (point.spread) {
        auto* bars = new QCPErrorBars(xAxis, yAxis);
        bars->setDataPlottable(g);
        bars->setData(QVector<double>{*point.spread});
        bars->setPen(QPen(color, 1.4));
        bars->removeFromLegend();
      }
    }
    if (!panel.references.empty() && !inLegend["paper"]) {
      auto* key = m_plot->addGraph(xAxis, yAxis);  // no data: only the legend's key
      key->setLineStyle(QCPGraph::lsNone);
      key->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, Qt::black, Qt::white, 10));
      key->setPen(QPen(Qt::black, 1.8));
      key->removeFromLegend();
      legendOnce(key, "paper (mean ± std)");
      inLegend["paper"] = true;
    }

    if (!panel.xCategories.empty()) {
      QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
      for (size_t k = 0; k < panel.xCategories.size(); ++k)
        ticker->addTick(static_cast<double>(k), QString::fromStdString(panel.xCategories[k]));
      xAxis->setTicker(ticker);
    } else if (panel.logX && xMin > 0) {
      xAxis->setScaleType(QCPAxis::stLogarithmic);
      xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    }
    // Categories get room for their points at either end.
    const double xPad = panel.logX ? 0 : panel.xCategories.empty() ? 0.04 * (xMax - xMin) : 0.3;
    xAxis->setRange(xMin - xPad, xMax + xPad);
    if (!std::isfinite(yMin)) yMin = 0, yMax = 1;
    const double yPad = yMax > yMin ? 0.08 * (yMax - yMin) : std::max(1e-3, std::abs(yMax) * 0.1);
    yAxis->setRange(yMin - yPad, yMax + yPad);
  }
  placeTitles(width(), height());
  m_plot->replot();
}

QString StudyFigurePlot::save(const QString& path, int width, int height) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != "png" && suffix != "pdf" && suffix != "svg")
    return "cannot write " + path + ": the file must end in .svg, .png or .pdf";
  placeTitles(width, height);  // for the file's size; the window's again below
  bool ok = false;
  if (suffix == "png") {
    ok = m_plot->savePng(path, width, height, /*scale=*/1.0, /*quality=*/-1, /*resolution=*/96);
  } else if (suffix == "pdf") {
    ok = m_plot->savePdf(path, width, height);
  } else {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(QSize(width, height));
    generator.setViewBox(QRect(0, 0, width, height));
    generator.setTitle(path);
    QCPPainter painter;
    if (painter.begin(&generator)) {
      m_plot->toPainter(&painter, width, height);
      ok = painter.end();
    }
  }
  placeTitles(this->width(), this->height());
  if (!ok || !QFileInfo(path).exists() || QFileInfo(path).size() == 0)
    return "cannot write " + path + " (a missing folder, no permission or a full disk?)";
  return {};
}

}  // namespace fl::widgets
