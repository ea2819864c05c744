#include "widgets/study_figure_plot.h"

#include <QFileInfo>
#include <QFontMetrics>
#include <QSvgGenerator>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <qcustomplot.h>

#include "widgets/log_ticker.h"
#include "widgets/run_colors.h"

namespace fl::widgets {

namespace {

// How much of a category's unit width the lines share, side by side.
constexpr double kCategorySpread = 0.5;

QColor translucent(QColor c, int alpha) {
  c.setAlpha(alpha);
  return c;
}

QVector<double> toQVector(const std::vector<double>& v) {
  return QVector<double>(v.begin(), v.end());
}

// A value cut to the metric's bounds: a band or error bar of mean - std below a KL's 0 has no
// value there to spread over (the run panels cut theirs the same way).
double within(const study::FigurePanel& panel, double v) {
  return std::isfinite(v) ? std::clamp(v, panel.yFloor, panel.yCeiling) : v;
}

QVector<double> within(const study::FigurePanel& panel, QVector<double> v) {
  for (double& x : v) x = within(panel, x);
  return v;
}

// The band as two graphs, the upper filled down to the lower; NaN points (one seed) leave gaps.
void addBand(QCustomPlot* plot, QCPAxisRect* rect, const study::FigurePanel& panel,
             const QVector<double>& x, const QVector<double>& lower, const QVector<double>& upper,
             const QColor& color) {
  bool any = false;
  for (int i = 0; i < lower.size(); ++i)
    any = any || (std::isfinite(lower[i]) && std::isfinite(upper[i]));
  if (!any) return;
  auto* low = plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
  auto* high = plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
  low->setData(x, within(panel, lower), /*alreadySorted=*/true);
  high->setData(x, within(panel, upper), /*alreadySorted=*/true);
  low->setPen(Qt::NoPen);
  high->setPen(Qt::NoPen);
  high->setBrush(translucent(color, 55));
  high->setChannelFillGraph(low);
  low->removeFromLegend();
  high->removeFromLegend();
}

// The colours and legend entries of one figure: a line's colour follows its place among the
// study's lines (lines take the palette from the start, baselines from the end), so it is the
// same in every panel and every figure of the study; each label is listed once. Where those
// places would give two of the figure's series one colour (a study of more lines than the
// palette has colours, drawn in part), the figure's own series take the palette in their order
// instead: apart first, the same as in another figure second.
struct FigureKeys {
  FigureKeys(QCPLegend* legend, const study::StudyFigure& figure) : legend(legend) {
    std::set<int> lines, baselines;
    for (const auto& panel : figure.panels) {
      for (const auto& line : panel.lines) lines.insert(line.colorRank);
      // A point takes its line's colour; one whose line is not drawn takes its own.
      for (const auto& point : panel.references)
        if (!point.line.empty() &&
            std::none_of(panel.lines.begin(), panel.lines.end(),
                         [&](const auto& line) { return line.label == point.line; }))
          lines.insert(point.colorRank);
      for (const auto& base : panel.baselines) baselines.insert(base.colorRank);
    }
    std::set<int> colors;
    for (int rank : lines) colors.insert(paletteIndex(rank, false));
    for (int rank : baselines) colors.insert(paletteIndex(rank, true));
    if (colors.size() == lines.size() + baselines.size()) return;
    for (int rank : lines) lineIndex.emplace(rank, static_cast<int>(lineIndex.size()));
    for (int rank : baselines) baselineIndex.emplace(rank, static_cast<int>(baselineIndex.size()));
  }

  // The first colour given to a label stays its colour (a paper's point takes its line's).
  QColor colorFor(const std::string& label, int rank, bool baseline) {
    const auto& dense = baseline ? baselineIndex : lineIndex;
    if (auto it = dense.find(rank); it != dense.end()) rank = it->second;
    // The runs' palette: far apart for readers without red or green cones too.
    const QColor c = runPaletteColor(paletteIndex(rank, baseline));
    return colorOf.emplace(label, c).first->second;
  }
  static int paletteIndex(int rank, bool baseline) {
    const int size = runPaletteSize();
    return ((baseline ? size - 1 - rank : rank) % size + size) % size;
  }
  QColor colorFor(const study::FigureLine& line, bool baseline) {
    return colorFor(line.label, line.colorRank, baseline);
  }

  void legendOnce(QCPAbstractPlottable* p, const std::string& label) {
    if (inLegend[label]) return;
    inLegend[label] = true;
    p->setName(QString::fromStdString(label));
    p->addToLegend(legend);
  }

  QCPLegend* legend;
  std::map<int, int> lineIndex, baselineIndex;  // rank -> place in the figure, where they clash
  std::map<std::string, QColor> colorOf;
  std::map<std::string, bool> inLegend;
};

// A baseline further from the panel's lines and points than this many times their own span
// is off scale: drawn to its range, it flattened every line (a shortened study's untrained GMM
// head at KL 11 left the Fourier head's curves and the paper's points as one line near 0).
constexpr double kOffScaleSpans = 2.0;

// What a panel's axes must show: its lines with their bands, the paper's points with their
// spread and the baselines within reach of them (all cut to the metric's bounds); the others
// are listed as off scale. No x at all reads as [0, 1], a single x gets a unit around it; y
// stays infinite when no value is finite.
struct PanelExtent {
  double xMin = std::numeric_limits<double>::infinity(), xMax = -xMin;
  double yMin = xMin, yMax = -xMin;
  std::vector<size_t> baselinesAbove, baselinesBelow;  // indices into panel.baselines

  void seeY(double v) {
    if (std::isfinite(v)) {
      yMin = std::min(yMin, v);
      yMax = std::max(yMax, v);
    }
  }
  void seeX(double v) {
    xMin = std::min(xMin, v);
    xMax = std::max(xMax, v);
  }
};

PanelExtent extentOf(const study::FigurePanel& panel) {
  PanelExtent e;
  for (const auto& line : panel.lines)
    for (size_t k = 0; k < line.x.size(); ++k) {
      e.seeX(line.x[k]);
      e.seeY(within(panel, line.mean[k]));
      e.seeY(within(panel, line.lower[k]));
      e.seeY(within(panel, line.upper[k]));
    }
  for (const auto& p : panel.references) {
    e.seeX(p.x);
    e.seeY(within(panel, p.y - p.spread.value_or(0)));
    e.seeY(within(panel, p.y + p.spread.value_or(0)));
  }
  if (!std::isfinite(e.xMin)) e.xMin = 0, e.xMax = 1;
  if (e.xMax == e.xMin) e.xMin -= 0.5, e.xMax += 0.5;
  const bool anyCore = std::isfinite(e.yMin);
  const double span =
      std::max({e.yMax - e.yMin, 0.1 * std::abs(e.yMax), 0.1 * std::abs(e.yMin), 1e-12});
  const double reachLow = e.yMin - kOffScaleSpans * span;
  const double reachHigh = e.yMax + kOffScaleSpans * span;
  for (size_t i = 0; i < panel.baselines.size(); ++i) {
    const auto& base = panel.baselines[i];
    const double mean = base.mean[0];
    if (anyCore && std::isfinite(mean) && mean > reachHigh) {
      e.baselinesAbove.push_back(i);
    } else if (anyCore && std::isfinite(mean) && mean < reachLow) {
      e.baselinesBelow.push_back(i);
    } else {
      e.seeY(within(panel, mean));
      e.seeY(within(panel, base.lower[0]));
      e.seeY(within(panel, base.upper[0]));
    }
  }
  return e;
}

// The x values a panel draws points at (its lines' and the paper's).
std::set<double> settingsOf(const study::FigurePanel& panel) {
  std::set<double> xs;
  for (const auto& line : panel.lines) xs.insert(line.x.begin(), line.x.end());
  for (const auto& point : panel.references) xs.insert(point.x);
  return xs;
}

// Whether every point of the panel sits at one x on a linear axis (--where frequencies=12).
bool atOneSetting(const study::FigurePanel& panel) {
  return panel.xCategories.empty() && !panel.logX && settingsOf(panel).size() == 1;
}

// Where a line's point at `x` sits beside the other lines' points there: side by side, centred
// on each category or on a panel's one setting (two lines there hid one another); 0 for a
// numeric x of several settings or a line not drawn. Only the lines with a point at `x` share
// its room: the linear head, a line of one category, sat left of its tick beside two empty
// places the Fourier heads had at theirs.
double sideBySideOffset(const study::FigurePanel& panel, const std::string& label, double x) {
  if (panel.xCategories.empty() && !atOneSetting(panel)) return 0;
  int rank = -1, sharing = 0;
  for (const auto& line : panel.lines) {
    if (std::find(line.x.begin(), line.x.end(), x) == line.x.end()) continue;
    if (line.label == label) rank = sharing;
    ++sharing;
  }
  if (rank < 0) return 0;
  const double spacing = kCategorySpread / static_cast<double>(panel.lines.size());
  return (static_cast<double>(rank) - (static_cast<double>(sharing) - 1) / 2) * spacing;
}

// Categories on x (heads, datasets, encodings) have no order between them: each line's means are
// dots with their spread as error bars, the lines side by side around each category, never
// joined by a line or a band that would read as a trend.
void drawCategoryPoints(QCustomPlot* plot, QCPAxisRect* rect, const study::FigurePanel& panel,
                        FigureKeys& keys) {
  for (const auto& line : panel.lines) {
    const QColor color = keys.colorFor(line, false);
    QVector<double> x, mean, below, above;
    for (size_t k = 0; k < line.x.size(); ++k) {
      x << line.x[k] + sideBySideOffset(panel, line.label, line.x[k]);
      mean << line.mean[k];
      const double lower = within(panel, line.lower[k]), upper = within(panel, line.upper[k]);
      below << (std::isfinite(lower) ? line.mean[k] - lower : 0.0);
      above << (std::isfinite(upper) ? upper - line.mean[k] : 0.0);
    }
    auto* g = plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    g->setData(x, mean, /*alreadySorted=*/true);
    g->setLineStyle(QCPGraph::lsNone);
    g->setPen(QPen(color, 2));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 7));
    g->removeFromLegend();
    keys.legendOnce(g, line.label);
    auto* bars = new QCPErrorBars(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    bars->setDataPlottable(g);
    bars->setData(below, above);
    bars->setPen(QPen(color, 1.6));
    bars->removeFromLegend();
  }
}

// Each line: its band over the seeds, then its mean with a dot per point.
void drawLines(QCustomPlot* plot, QCPAxisRect* rect, const study::FigurePanel& panel,
               FigureKeys& keys) {
  if (!panel.xCategories.empty()) return drawCategoryPoints(plot, rect, panel, keys);
  for (const auto& line : panel.lines) {
    const QColor color = keys.colorFor(line, false);
    addBand(plot, rect, panel, toQVector(line.x), toQVector(line.lower), toQVector(line.upper),
            color);
    auto* g = plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    QVector<double> x = toQVector(line.x);
    for (double& at : x) at += sideBySideOffset(panel, line.label, at);
    g->setData(x, toQVector(line.mean), /*alreadySorted=*/true);
    g->setPen(QPen(color, 2));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 5));
    g->removeFromLegend();
    keys.legendOnce(g, line.label);
    // One setting (--where frequencies=12) leaves a band nothing to span: its spread is an
    // error bar, as the paper's point beside it has.
    if (line.x.size() == 1) {
      const double lower = within(panel, line.lower[0]), upper = within(panel, line.upper[0]);
      if (!std::isfinite(lower) && !std::isfinite(upper)) continue;
      auto* bars = new QCPErrorBars(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
      bars->setDataPlottable(g);
      bars->setData(QVector<double>{std::isfinite(lower) ? line.mean[0] - lower : 0.0},
                    QVector<double>{std::isfinite(upper) ? upper - line.mean[0] : 0.0});
      bars->setPen(QPen(color, 1.6));
      bars->removeFromLegend();
    }
  }
}

// The note of a panel's off-scale baselines, each line "label ↑ off scale at 11": at its
// panel's right edge, its labels cut in their middle where the whole line would run past the
// panel's left edge ("ar, dataset = beta ↑ off scale ..." had lost the baseline's name).
class OffScaleNote : public QCPItemText {
 public:
  OffScaleNote(QCustomPlot* plot, QCPAxisRect* rect, std::vector<std::pair<QString, QString>> lines)
      : QCPItemText(plot), m_rect(rect), m_lines(std::move(lines)) {
    setText(joined(-1));
  }

 protected:
  void draw(QCPPainter* painter) override {
    const QString whole = mText;
    mText = joined(m_rect->width() - 2 * 3 - 8);
    QCPItemText::draw(painter);
    mText = whole;
  }

 private:
  // The lines with each label cut to leave `room` pixels for the line (no cut below 0).
  QString joined(int room) const {
    const QFontMetrics metrics(mainFont());
    QStringList out;
    for (const auto& [label, whole] : m_lines) {
      // Too narrow a panel for the words: the arrow and the value say it ("GMM h… ↑ 11").
      QString rest = whole;
      if (room >= 0 && room - metrics.horizontalAdvance(rest) < 40)
        rest.replace(" off scale at ", " ");
      const int left = room - metrics.horizontalAdvance(rest);
      out << (room < 0 ? label : metrics.elidedText(label, Qt::ElideMiddle, std::max(left, 20))) +
                 rest;
    }
    return out.join('\n');
  }

  QCPAxisRect* m_rect;
  std::vector<std::pair<QString, QString>> m_lines;
};

// Each baseline (one value): dashed across the whole panel, over its band. One off scale (see
// kOffScaleSpans) keeps its legend entry and says its value at the panel's edge it lies past.
void drawBaselines(QCustomPlot* plot, QCPAxisRect* rect, const study::FigurePanel& panel,
                   const PanelExtent& extent, FigureKeys& keys) {
  for (const auto& base : panel.baselines) {
    const QColor color = keys.colorFor(base, true);
    const QVector<double> x{extent.xMin, extent.xMax};
    addBand(plot, rect, panel, x, {base.lower[0], base.lower[0]}, {base.upper[0], base.upper[0]},
            color);
    auto* g = plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    g->setData(x, {base.mean[0], base.mean[0]}, true);
    g->setPen(QPen(color, 2, Qt::DashLine));
    g->removeFromLegend();
    keys.legendOnce(g, base.label);
  }
  for (const bool above : {true, false}) {
    const auto& offScale = above ? extent.baselinesAbove : extent.baselinesBelow;
    if (offScale.empty()) continue;
    std::vector<std::pair<QString, QString>> lines;
    for (size_t i : offScale)
      lines.emplace_back(QString::fromStdString(panel.baselines[i].label),
                         QString(above ? " ↑" : " ↓") + " off scale at " +
                             QString::number(panel.baselines[i].mean[0], 'g', 3));
    auto* note = new OffScaleNote(plot, rect, std::move(lines));
    note->setClipAxisRect(rect);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setAxisRect(rect);
    note->position->setCoords(0.99, above ? 0.02 : 0.98);
    note->setPositionAlignment(Qt::AlignRight | (above ? Qt::AlignTop : Qt::AlignBottom));
    note->setTextAlignment(Qt::AlignRight);
    // One baseline's colour says whose value it is; several share black.
    note->setColor(offScale.size() == 1 ? keys.colorFor(panel.baselines[offScale.front()], true)
                                        : QColor(Qt::black));
    note->setFont(QFont("sans", 8));
    note->setBrush(QColor(255, 255, 255, 210));
    note->setPadding(QMargins(3, 1, 3, 1));
  }
}

// The paper's points: a diamond with an error bar of its spread, in the colour of the line it
// belongs to; one black legend entry says what diamonds are.
void drawReferences(QCustomPlot* plot, QCPAxisRect* rect, const study::FigurePanel& panel,
                    const std::string& legend, FigureKeys& keys) {
  auto* xAxis = rect->axis(QCPAxis::atBottom);
  auto* yAxis = rect->axis(QCPAxis::atLeft);
  for (const auto& point : panel.references) {
    // A line with no finished run yet still has its colour and its legend entry: a diamond of
    // nobody's colour read as nothing.
    const QColor color =
        point.line.empty() ? QColor(Qt::black) : keys.colorFor(point.line, point.colorRank, false);
    auto* g = plot->addGraph(xAxis, yAxis);
    g->setData(QVector<double>{point.x + sideBySideOffset(panel, point.line, point.x)},
               QVector<double>{point.y});
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, color, Qt::white, 10));
    g->setPen(QPen(color, 1.8));
    g->removeFromLegend();
    if (!point.line.empty()) keys.legendOnce(g, point.line);
    if (point.spread) {
      auto* bars = new QCPErrorBars(xAxis, yAxis);
      bars->setDataPlottable(g);
      bars->setData(QVector<double>{point.y - within(panel, point.y - *point.spread)},
                    QVector<double>{within(panel, point.y + *point.spread) - point.y});
      bars->setPen(QPen(color, 1.4));
      bars->removeFromLegend();
    }
  }
  if (!panel.references.empty() && !keys.inLegend["paper"]) {
    auto* key = plot->addGraph(xAxis, yAxis);  // no data: only the legend's key
    key->setLineStyle(QCPGraph::lsNone);
    key->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, Qt::black, Qt::white, 10));
    key->setPen(QPen(Qt::black, 1.8));
    key->removeFromLegend();
    keys.legendOnce(key, legend);
    keys.inLegend["paper"] = true;
  }
}

// Up to this many settings on a log x axis get a tick each.
constexpr size_t kLabelledSettingsAtMost = 10;

// The x axis's ticks (categories, or logarithmic) and both ranges, padded.
void setRanges(QCPAxisRect* rect, const study::FigurePanel& panel, PanelExtent e) {
  auto* xAxis = rect->axis(QCPAxis::atBottom);
  auto* yAxis = rect->axis(QCPAxis::atLeft);
  if (!panel.xCategories.empty()) {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (size_t k = 0; k < panel.xCategories.size(); ++k)
      ticker->addTick(static_cast<double>(k), QString::fromStdString(panel.xCategories[k]));
    xAxis->setTicker(ticker);
    // The first category sits at 0: the grid's darker zero line would single it out.
    xAxis->grid()->setZeroLinePen(Qt::NoPen);
  } else if (panel.logX && e.xMin > 0) {
    xAxis->setScaleType(QCPAxis::stLogarithmic);
    // A few settings on a log axis (lengths 64 to 512 doubling) are labelled where they are,
    // as the papers' figures do: 1-2-5 ticks left every point between two labels.
    const std::set<double> settings = settingsOf(panel);
    if (settings.size() <= kLabelledSettingsAtMost) {
      QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
      for (double x : settings) ticker->addTick(x, QString::number(x, 'g', 6));
      ticker->setSubTickCount(0);
      xAxis->setTicker(ticker);
    } else {
      xAxis->setTicker(QSharedPointer<LogTicker>(new LogTicker));
    }
  } else if (const std::set<double> settings = settingsOf(panel); settings.size() == 1) {
    // One setting: labelled where it is (its unit around it read 11.6 ... 12.4 frequencies).
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    ticker->addTick(*settings.begin(), QString::number(*settings.begin(), 'g', 6));
    ticker->setSubTickCount(0);
    xAxis->setTicker(ticker);
  }
  // Categories get room for their points at either end.
  const double xPad = panel.logX ? 0 : panel.xCategories.empty() ? 0.04 * (e.xMax - e.xMin) : 0.3;
  xAxis->setRange(e.xMin - xPad, e.xMax + xPad);
  if (!std::isfinite(e.yMin)) e.yMin = 0, e.yMax = 1;
  // One value everywhere (an accuracy of 0 at every length) on a metric with both bounds: the
  // whole scale, not a sliver around it (-0.001 to 0.001 for an accuracy).
  if (e.yMax == e.yMin && std::isfinite(panel.yFloor) && std::isfinite(panel.yCeiling))
    e.yMin = panel.yFloor, e.yMax = panel.yCeiling;
  const double yPad =
      e.yMax > e.yMin ? 0.08 * (e.yMax - e.yMin) : std::max(1e-3, std::abs(e.yMax) * 0.1);
  yAxis->setRange(e.yMin - yPad, e.yMax + yPad);
}

// The lines of the off-scale note above and below a panel's data (see drawBaselines).
int noteLines(const PanelExtent& e, bool above) {
  return static_cast<int>(above ? e.baselinesAbove.size() : e.baselinesBelow.size());
}

}  // namespace

StudyFigurePlot::StudyFigurePlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot);
  m_plot->setMinimumSize(320, 160);
  // The notes' room depends on the panels' heights in pixels, known once laid out.
  connect(m_plot, &QCustomPlot::afterLayout, this, [this] {
    if (makeRoomForNotes()) m_plot->replot(QCustomPlot::rpQueuedReplot);
  });
}

bool StudyFigurePlot::makeRoomForNotes() {
  const double lineHeight = QFontMetrics(QFont("sans", 8)).lineSpacing();
  bool changed = false;
  for (const auto& room : m_noteRooms) {
    const double height = std::max(1, room.rect->height());
    // A note's lines, its padding and its distance from the edge, as shares of the panel.
    const auto share = [&](int lines) {
      return lines == 0 ? 0.0 : std::min(0.3, (lines * lineHeight + 6) / height + 0.02);
    };
    const double above = share(room.linesAbove), below = share(room.linesBelow);
    const double span = (room.high - room.low) / (1 - above - below);
    const QCPRange wanted(room.low - span * below, room.high + span * above);
    auto* yAxis = room.rect->axis(QCPAxis::atLeft);
    const QCPRange now = yAxis->range();
    if (std::abs(now.lower - wanted.lower) + std::abs(now.upper - wanted.upper) > 1e-9 * span) {
      yAxis->setRange(wanted);
      changed = true;
    }
  }
  return changed;
}

int StudyFigurePlot::graphCount() const { return m_plot->graphCount(); }
int StudyFigurePlot::legendEntries() const {
  // The cells that hold an entry: a legend laid out in rows has empty ones too.
  const QCPLegend* legend = m_legend ? m_legend : m_plot->legend;
  int entries = 0;
  for (int i = 0; legend && i < legend->itemCount(); ++i)
    if (legend->item(i)) ++entries;
  return entries;
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
  // In a scroll area, many rows scroll rather than squeeze.
  setMinimumHeight(readableHeight());
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
    // Category labels cut in their middle to their share of the width: whole, FourierQK's nine
    // variants ran into each other at 1280x720 ("spectral_mexican_hatspectral_mexican_hat_k4");
    // cut at their end, "spectral_mexican_hat" and "..._hat_k4" would read alike.
    auto ticker = panel.xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    if (!ticker || panel.categories.isEmpty()) continue;
    const int room = std::max(axisFont.horizontalAdvance("ab…yz"),
                              (panelWidth - 40) / static_cast<int>(panel.categories.size()) - 8);
    ticker->clear();
    for (int k = 0; k < panel.categories.size(); ++k)
      ticker->addTick(k, axisFont.elidedText(panel.categories[k], Qt::ElideMiddle, room));
  }
  if (m_figureTitle)
    m_figureTitle->setText(QFontMetrics(m_figureTitle->font())
                               .elidedText(m_figureTitleText, Qt::ElideRight, width - 20));
  // A caption longer than the figure is wide was cut at both ends: wrapped at words instead.
  for (auto& [element, text] : m_captions) {
    const QFontMetrics font(element->font());
    QStringList lines{QString()};
    for (const QString& word : text.split(' ')) {
      const QString longer = lines.back().isEmpty() ? word : lines.back() + ' ' + word;
      if (!lines.back().isEmpty() && font.horizontalAdvance(longer) > width - 20)
        lines << word;
      else
        lines.back() = longer;
    }
    element->setText(lines.join('\n'));
  }
  // As many legend entries side by side as the width holds (up to six): five entries of a
  // 760 px figure ran off both its edges.
  if (const int entries = legendEntries(); m_legend && entries > 0) {
    for (int columns = std::min(6, entries); columns >= 1; --columns) {
      m_legend->setWrap(columns);
      m_legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, /*rearrange=*/true);
      if (columns == 1 || m_legend->minimumOuterSizeHint().width() <= width - 30) break;
    }
  }
}

void StudyFigurePlot::setFigure(const study::StudyFigure& figure) {
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_plot->plotLayout()->clear();  // the default axis rect and its legend go with it
  m_legend = nullptr;
  m_panels = 0;
  m_titles.clear();
  m_noteRooms.clear();
  m_cols = std::max(1, figure.cols);
  m_rows = (static_cast<int>(figure.panels.size()) + m_cols - 1) / m_cols;
  const auto [grid, legend] = layOutFigure(figure);
  FigureKeys keys(legend, figure);
  for (int i = 0; i < static_cast<int>(figure.panels.size()); ++i) {
    const auto& panel = figure.panels[static_cast<size_t>(i)];
    auto* rect = addPanel(grid, i, std::max(1, figure.cols), panel);
    const PanelExtent extent = extentOf(panel);
    drawLines(m_plot, rect, panel, keys);
    drawBaselines(m_plot, rect, panel, extent, keys);
    drawReferences(m_plot, rect, panel, figure.referencesLegend, keys);
    setRanges(rect, panel, extent);
    if (noteLines(extent, true) + noteLines(extent, false) > 0) {
      const QCPRange y = rect->axis(QCPAxis::atLeft)->range();
      m_noteRooms.push_back(
          {rect, y.lower, y.upper, noteLines(extent, true), noteLines(extent, false)});
    }
  }
  placeTitles(width(), height());
  m_plot->replot();
}

std::pair<QCPLayoutGrid*, QCPLegend*> StudyFigurePlot::layOutFigure(
    const study::StudyFigure& figure) {
  auto* root = m_plot->plotLayout();
  // No title row where the figure has none: the study view names the study right above it.
  int row = 0;
  m_figureTitleText = QString::fromStdString(figure.title);
  m_figureTitle = nullptr;
  if (!figure.title.empty()) {
    m_figureTitle = new QCPTextElement(m_plot, m_figureTitleText, QFont("sans", 11, QFont::Bold));
    root->addElement(row, 0, m_figureTitle);
    root->setRowStretchFactor(row++, 0.001);
  }
  auto* grid = new QCPLayoutGrid;
  root->addElement(row++, 0, grid);
  auto* legend = new QCPLegend;
  auto* footer = new QCPLayoutGrid;
  root->addElement(row, 0, footer);
  root->setRowStretchFactor(row, 0.001);
  footer->addElement(0, 0, legend);
  m_captions.clear();
  const QString band = QString::fromStdString(figure.bandDescription);
  auto* bandCaption = new QCPTextElement(m_plot, band, QFont("sans", 8));
  footer->addElement(1, 0, bandCaption);
  m_captions.emplace_back(bandCaption, band);
  if (!figure.departure.empty()) {
    const QString departure = QString::fromStdString(figure.departureCaption());
    auto* departs = new QCPTextElement(m_plot, departure, QFont("sans", 8));
    departs->setTextColor(QColor(0xa0, 0x5a, 0x00));  // the study view's colour for departures
    footer->addElement(2, 0, departs);
    m_captions.emplace_back(departs, departure);
  }
  m_legend = legend;
  legend->setLayer("legend");
  legend->setFont(QFont("sans", 9));
  legend->setBorderPen(Qt::NoPen);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(6);  // up to six entries side by side, then a new row
  // QCustomPlot lays an entry's text out in a box no taller than the icon once the entries are
  // laid out: 10 px cut the descenders off ("gamma" read "qamma"), and so did the font's line
  // height (14) in the drawn figure; two pixels more show them.
  legend->setIconSize(24, QFontMetrics(legend->font()).height() + 2);
  return {grid, legend};
}

QCPAxisRect* StudyFigurePlot::addPanel(QCPLayoutGrid* grid, int index, int cols,
                                       const study::FigurePanel& panel) {
  auto* cell = new QCPLayoutGrid;
  grid->addElement(index / cols, index % cols, cell);
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
  QStringList categories;
  for (const auto& category : panel.xCategories) categories << QString::fromStdString(category);
  m_titles.push_back({title, yAxis, xAxis, categories, QString::fromStdString(panel.title),
                      QString::fromStdString(panel.yTitle)});
  for (auto* axis : {xAxis, yAxis}) {
    axis->setLabelFont(QFont("sans", 9));
    axis->setTickLabelFont(QFont("sans", 8));
    axis->grid()->setPen(QPen(QColor(220, 220, 220), 0.5));
  }
  return rect;
}

QString StudyFigurePlot::save(const QString& path, int width, int height) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != "png" && suffix != "pdf" && suffix != "svg")
    return "cannot write " + path + ": the file must end in .svg, .png or .pdf";
  placeTitles(width, height);  // for the file's size; the window's again below
  // Laid out once at the file's size first: the room made for off-scale notes changes the y
  // ranges after a layout, and ticks worked out for the former range were drawn above the
  // panels ("1.25" over a title).
  m_plot->toPixmap(width, height);
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
    // The figure's title, not the file's path: the CLI draws into a scratch folder first, and
    // its temporary name was left in every figure (so no two were alike byte for byte).
    generator.setTitle(m_figureTitleText);
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
