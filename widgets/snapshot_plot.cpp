#include "widgets/snapshot_plot.h"

#include <QSet>

#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include <qcustomplot.h>

#include "widgets/category_labels.h"
#include "widgets/log_ticker.h"
#include "widgets/plot_frame.h"
#include "widgets/run_colors.h"
#include "widgets/snapshot_data.h"
#include "widgets/step_ticker.h"

namespace fl::widgets {

namespace {

// What is drawn, so the axes follow the data instead of a fixed range.
struct Extent {
  double xLo = std::numeric_limits<double>::infinity();
  double xHi = -std::numeric_limits<double>::infinity();
  double yLo = std::numeric_limits<double>::infinity();
  double yHi = -std::numeric_limits<double>::infinity();
  void addX(double x) {
    xLo = std::min(xLo, x);
    xHi = std::max(xHi, x);
  }
  void addY(double y) {
    yLo = std::min(yLo, y);
    yHi = std::max(yHi, y);
  }
};

// "predicted (density)", "true (bins)": what a truth or a prediction is called in a legend.
QString roleLabel(const Snapshot& s) {
  const bool probability = s.valueLabel == "probability";
  return QString(s.role == SnapshotRole::Truth ? "true" : "predicted") +
         (probability ? " (bins)" : " (density)");
}

// Adds one curve; values a log axis cannot show become gaps (NaN), as do non-finite ones.
// `halfBin` widens the x extent for step-drawn bins, so the outer half bins are not cut off.
QCPGraph* addCurve(QCustomPlot* plot, const QString& name, const QPen& pen,
                   const QVector<double>& x, QVector<double> y, bool logY, double halfBin,
                   Extent& extent) {
  for (int i = 0; i < y.size(); ++i) {
    if (!std::isfinite(y[i]) || (logY && y[i] <= 0))
      y[i] = std::numeric_limits<double>::quiet_NaN();
    else
      extent.addY(y[i]);
    extent.addX(x[i] - halfBin);
    extent.addX(x[i] + halfBin);
  }
  auto* graph = plot->addGraph();
  graph->setName(name);
  graph->setPen(pen);
  graph->setData(x, y);
  return graph;
}

void applyRanges(QCustomPlot* plot, const Extent& e, bool logY, double floor, double ceiling,
                 bool curves) {
  if (e.xLo <= e.xHi) plot->xAxis->setRange(e.xLo, e.xHi > e.xLo ? e.xHi : e.xLo + 1);
  // With nothing to draw yet, bounded values too read against their range: QCustomPlot's 0..5
  // (or the last run's range) had stood on an accuracy panel until its first evaluation.
  if (std::isfinite(floor) && std::isfinite(ceiling)) {
    // Bounded values (an accuracy) read against their whole range: 0..1, curves with a margin
    // that keeps a line at 0 above the axis line (bars rise from the axis).
    const double margin = curves ? kBoundedCurveMargin * (ceiling - floor) : 0.0;
    plot->yAxis->setRange(floor - margin, ceiling + margin);
    return;
  }
  if (!(e.yLo <= e.yHi)) return;
  if (logY) {
    // Whole decades: within less than one, the log ticker falls back to linear steps that
    // crowd together at the top of a log axis.
    plot->yAxis->setRange(std::pow(10.0, std::floor(std::log10(e.yLo))),
                          std::pow(10.0, std::ceil(std::log10(e.yHi * 1.0001))));
    return;
  }
  // Keep zero in view (densities, perplexities and magnitudes read against it), pad the top.
  const double lo = std::min(0.0, e.yLo);
  const double hi = std::max(0.0, e.yHi);
  const double span = hi > lo ? hi - lo : 1.0;
  plot->yAxis->setRange(lo < 0 ? lo - 0.05 * span : lo, hi > lo ? hi + 0.1 * span : lo + 1);
}

// Whole-number coordinates (heads, layers, frequencies k) get whole-number ticks; others the
// default ticker. Text tickers (bar labels) are left alone.
void matchTicker(QCPAxis* axis, bool whole) {
  if (axis->ticker().dynamicCast<QCPAxisTickerText>() ||
      axis->scaleType() == QCPAxis::stLogarithmic)
    return;
  const bool isWhole = !axis->ticker().dynamicCast<IntegerTicker>().isNull();
  if (whole == isWhole) return;
  axis->setTicker(whole ? QSharedPointer<QCPAxisTicker>(new IntegerTicker)
                        : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  axis->ticker()->setTickCount(4);
}

// Plottables of one name and look (a group's members, overlaid in its colour) are listed once.
void listEachLookOnce(QCustomPlot* plot) {
  QSet<QString> listed;
  for (int i = 0; i < plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = plot->plottable(i);
    const QString key = QString("%1\n%2 %3 %4 %5")
                            .arg(p->name(), p->pen().color().name(), p->brush().color().name(),
                                 lineStyleOf(p->pen()))
                            .arg(p->brush().style());
    if (listed.contains(key)) p->removeFromLegend();
    listed.insert(key);
  }
}

// " #3", " #2, #3", " (4 runs)": which of a group's runs a curve under its name stands for.
QString drawnMembers(QList<int64_t> runs) {
  constexpr int kNamed = 3;
  if (runs.size() > kNamed) return QString(" (%1 runs)").arg(runs.size());
  std::sort(runs.begin(), runs.end());
  QStringList ids;
  for (int64_t id : runs) ids << QString("#%1").arg(id);
  return " " + ids.join(", ");
}

// The fill of a panel's n-th series of bars: a run's series differ by pattern, runs by colour.
Qt::BrushStyle barPattern(int series) {
  static const Qt::BrushStyle patterns[] = {Qt::SolidPattern, Qt::BDiagPattern, Qt::Dense4Pattern,
                                            Qt::FDiagPattern, Qt::CrossPattern};
  return patterns[series % 5];
}

}  // namespace

SnapshotPlot::SnapshotPlot(const QString& title, Mode mode, const QStringList& series,
                           const QString& xLabel, const QString& yLabel, QWidget* parent)
    : QWidget(parent),
      m_mode(mode),
      m_series(series),
      m_plot(new QCustomPlot(this)),
      m_caption(new QLabel(this)),
      m_marks(m_plot, XMarkItems::Style::Lines) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot, 1);
  auto* bottom = new QHBoxLayout;
  // The caption wraps within the panel's width, never widening it (and its grid column).
  m_caption->setWordWrap(true);
  m_caption->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  bottom->addWidget(m_caption, 1);
  if (mode == Mode::Curves) {
    m_row = new QSpinBox(this);
    m_row->setPrefix("input #");
    m_row->setRange(0, 0);
    connect(m_row, qOverload<int>(&QSpinBox::valueChanged), this, [this] { refresh(); });
    m_row->setVisible(false);  // until a snapshot with several rows arrives
    bottom->addWidget(m_row);
  }
  layout->addLayout(bottom);
  // Bars list their sets only where there are several (series, or runs compared): fitLegend
  // hides a legend with no entries.
  setUpPlotFrame(m_plot, title, xLabel, yLabel, /*legend=*/true);
  m_plot->installEventFilter(this);
  // Bar labels are fitted to the width each layout gives them (only then are the bars' pixel
  // positions known); a change asks for one more layout.
  connect(m_plot, &QCustomPlot::afterLayout, this, [this] {
    if (m_textTicks && fitCategoryLabels(m_plot)) m_plot->replot(QCustomPlot::rpQueuedReplot);
  });
}

int SnapshotPlot::row() const { return m_row ? m_row->value() : 0; }

void SnapshotPlot::setLogY(bool logY) {
  m_logY = logY;
  m_plot->yAxis->setScaleType(logY ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (logY)
    m_plot->yAxis->setTicker(QSharedPointer<LogTicker>(new LogTicker));
  else
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
}

void SnapshotPlot::setSnapshot(const Snapshot& snapshot, int64_t step) {
  const QString name = QString::fromStdString(snapshot.name);
  if (!m_series.contains(name)) return;
  m_latest[name] = snapshot;
  m_step = step;
  // Row-labelled snapshots draw every row: only the others are browsed by row.
  if (m_row && metaStrings(snapshot, "row_labels").isEmpty())
    m_row->setMaximum(static_cast<int>(std::max<int64_t>(rowCount(snapshot) - 1, 0)));
  updateRowSelector();
}

void SnapshotPlot::setOverlaySnapshot(int64_t runId, const QString& label, const QColor& color,
                                      const Snapshot& snapshot) {
  const QString name = QString::fromStdString(snapshot.name);
  if (!m_series.contains(name)) return;
  if (snapshot.role == SnapshotRole::Truth) {
    m_overlays[runId].truths[name] = snapshot;
    return;
  }
  // Bins drawn as curves would clutter: those stay the shown run's.
  if (m_mode == Mode::Curves && snapshot.valueLabel == "probability") return;
  m_overlays[runId].label = label;
  m_overlays[runId].color = color;
  m_overlays[runId].snapshots[name] = snapshot;
}

void SnapshotPlot::clear() {
  m_latest.clear();
  m_overlays.clear();
  m_plot->clearPlottables();
  updateRowSelector();
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void SnapshotPlot::updateRowSelector() {
  if (!m_row) return;
  // Only offered when there are rows to pick: row-labelled snapshots draw all of theirs, and a
  // single-row snapshot (perplexity by length) has nothing to pick.
  bool browsable = false;
  for (const auto& s : m_latest)
    browsable |= metaStrings(s, "row_labels").isEmpty() && rowCount(s) > 1;
  m_row->setVisible(browsable);
}

bool SnapshotPlot::eventFilter(QObject* watched, QEvent* event) {
  // A new width: the legend's names are elided to the plot's share of it.
  if (watched == m_plot && event->type() == QEvent::Resize) {
    m_marks.refit();
    fitLegend(m_plot);
    fitTicks(m_plot);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
  }
  return QWidget::eventFilter(watched, event);
}

void SnapshotPlot::refresh() {
  m_plot->clearPlottables();
  if (m_mode == Mode::Curves)
    drawCurves();
  else
    drawBars();
  fitLegend(m_plot);
  fitTicks(m_plot);
  const QString empty = m_emptyCaption.isEmpty() ? noDataCaption(m_shownRunEnded) : m_emptyCaption;
  m_caption->setText(m_latest.isEmpty() ? empty : QString("step %1").arg(m_step));
  if (m_latest.isEmpty() && m_plot->plottableCount() > 0) {
    // A linear head beside a Fourier one: the focused run has nothing here, the others do.
    const QString focused = m_shownLabel.isEmpty() ? "the focused run" : m_shownLabel;
    m_caption->setText(QString("%1 %2; the compared runs' latest are drawn")
                           .arg(focused, m_shownRunEnded ? "recorded none" : "has none yet"));
  }
  if (!m_latest.isEmpty() && !m_notDrawn.isEmpty()) {
    // A few runs by id; a seed group's many as a count (the whole list is the tooltip's).
    constexpr int kNamed = 3;
    QString who = QStringList(m_notDrawn.mid(0, kNamed)).join(", ");
    if (m_notDrawn.size() > kNamed) who += QString(" and %1 more").arg(m_notDrawn.size() - kNamed);
    const QString why = QString("not drawn, another true density at input #%1").arg(row());
    m_caption->setText(m_caption->text() + " · " + why + ": " + who);
    m_caption->setToolTip(
        QString("Runs %1: their input #%2 is another point (another seed's test set, another "
                "dataset), so their predicted density is not drawn against this true one.")
            .arg(m_notDrawn.join(", "))
            .arg(row()));
  }
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString SnapshotPlot::caption() const { return m_caption->text(); }

QString SnapshotPlot::seriesLabel(int index) const {
  if (index >= 0 && index < m_seriesLabels.size() && !m_seriesLabels[index].isEmpty())
    return m_seriesLabels[index];
  return index >= 0 && index < m_series.size() ? m_series[index] : QString();
}

bool SnapshotPlot::sameTruthAt(const Overlay& run, const Snapshot& prediction, int64_t row) const {
  bool compared = false;
  for (auto truth = run.truths.cbegin(); truth != run.truths.cend(); ++truth) {
    auto shown = m_latest.find(truth.key());
    if (shown == m_latest.end()) continue;
    QVector<double> x, y, shownX, shownY;
    const bool has = rowOf(truth.value(), row, x, y);
    if (has != rowOf(*shown, row, shownX, shownY)) return false;
    if (!has) continue;
    if (x != shownX || y.size() != shownY.size()) return false;
    for (int i = 0; i < y.size(); ++i)
      if (std::abs(y[i] - shownY[i]) > 1e-6 * std::max(1.0, std::abs(shownY[i]))) return false;
    compared = true;
  }
  if (compared) return true;
  // No truths to compare: the inputs the rows were predicted for, where both say.
  auto shown = m_latest.find(QString::fromStdString(prediction.name));
  if (shown == m_latest.end() || !prediction.meta.contains("inputs") ||
      !shown->meta.contains("inputs"))
    return true;
  const auto& theirs = prediction.meta["inputs"];
  const auto& ours = shown->meta["inputs"];
  const auto r = static_cast<size_t>(row);
  if (!theirs.is_array() || !ours.is_array() || r >= theirs.size() || r >= ours.size()) return true;
  return theirs[r] == ours[r];
}

void SnapshotPlot::drawCurves() {
  m_notDrawn.clear();
  Extent extent;
  QVector<double> allX;
  // Whether every curve is a generic series (no truths or predictions), so that a legend of
  // runs (colours) and line styles (a series, or a row of one) says which curve is which; and
  // who and which styles were drawn.
  bool runsTimesStyles = true;  // and each line style means one thing in every run
  QList<QPair<QString, QColor>> runsDrawn;
  QMap<int, QString> stylesDrawn;  // by seriesPen's position
  auto noteDrawn = [&](const Snapshot& s, const QString& run, const QColor& color, int index,
                       const QStringList& rowLabels, int64_t r, int64_t last) {
    runsTimesStyles &= s.role == SnapshotRole::Series;
    if (runsDrawn.isEmpty() || runsDrawn.back().first != run) runsDrawn.append({run, color});
    const bool rows = !rowLabels.isEmpty() && last > 0;
    const int position = rows ? static_cast<int>(r) + index * static_cast<int>(last + 1) : index;
    QString style = seriesLabel(index);
    if (rows)
      style = m_series.size() > 1 ? style + " " + rowLabels[static_cast<int>(r)]
                                  : rowLabels[static_cast<int>(r)];
    // A run of one row beside runs of several (a filter against a bank of four) draws the same
    // line style for something else: then the curves are named one by one.
    if (stylesDrawn.contains(position) && stylesDrawn[position] != style) runsTimesStyles = false;
    stylesDrawn[position] = style;
  };
  // A curve's name in a comparison: its run, the series where the panel has several, the row
  // where the snapshot has several.
  auto nameInComparison = [&](const QString& run, const Snapshot& s, int index,
                              const QStringList& rowLabels, int64_t r, int64_t last) {
    QString name = run;
    if (m_series.size() > 1 && s.role == SnapshotRole::Series) name += " " + seriesLabel(index);
    if (!rowLabels.isEmpty() && last > 0) name += " " + rowLabels[static_cast<int>(r)];
    return name;
  };
  // A group's members are drawn under its name (one colour, listed once): a curve's name says
  // which members it stands for, as the caption says which are not drawn.
  QMap<QString, QList<int64_t>> drawnUnder;  // a run label -> the runs drawn under it
  QList<QPair<QCPGraph*, QString>> underRunLabel;
  auto noteRunCurve = [&](QCPGraph* graph, const QString& runLabel, int64_t runId) {
    underRunLabel.append({graph, runLabel});
    if (!drawnUnder[runLabel].contains(runId)) drawnUnder[runLabel].append(runId);
  };
  for (int index = 0; index < m_series.size(); ++index) {
    const QString& name = m_series[index];
    auto it = m_latest.find(name);
    if (it == m_latest.end()) continue;
    const Snapshot& s = *it;
    const QStringList rowLabels = metaStrings(s, "row_labels");
    const bool everyRow = !rowLabels.isEmpty() && rowLabels.size() == rowCount(s);
    const bool probability = s.valueLabel == "probability";
    const int64_t first = everyRow ? 0 : row();
    const int64_t last = everyRow ? rowCount(s) - 1 : row();
    for (int64_t r = first; r <= last; ++r) {
      QVector<double> x, y;
      if (!rowOf(s, r, x, y)) continue;
      allX += x;
      double halfBin = 0;
      if (probability && x.size() > 1) {
        // Probability per bin -> density, drawn as steps centred on the bins.
        const double width = x[1] - x[0];
        for (auto& v : y) v /= width;
        halfBin = width / 2;
      }
      QString label = seriesLabel(index);
      // Within the run, series and rows differ by line style; the colour is the run's.
      QPen pen = seriesPen(m_shownColor, index, 2.0);
      noteDrawn(s, m_shownLabel, m_shownColor, index, everyRow ? rowLabels : QStringList(), r,
                last);
      if (s.role != SnapshotRole::Series) {
        label = roleLabel(s);
        pen = QPen(s.role == SnapshotRole::Truth ? truthColor() : m_shownColor,
                   probability ? 1.0 : 2.0);
        if (probability) pen.setStyle(Qt::DashLine);
      }
      if (everyRow) {
        label = m_series.size() > 1 ? label + " " + rowLabels[r] : rowLabels[r];
        if (last > 0)
          pen = seriesPen(m_shownColor, static_cast<int>(r) + index * static_cast<int>(last + 1),
                          2.0);
      }
      // In a comparison the shown run's curves are named as the overlaid runs' are: its
      // prediction "#9 linear" beside "#10 fourier N=12", not "predicted (density)".
      const bool comparing = !m_overlays.isEmpty() && !m_shownLabel.isEmpty();
      if (comparing && s.role == SnapshotRole::Series)
        label =
            nameInComparison(m_shownLabel, s, index, everyRow ? rowLabels : QStringList(), r, last);
      // So is its prediction wherever several runs are shown, overlaid or not (a probe asks
      // the first of them; bins never overlay): its colour alone had said which run it was.
      else if (!m_shownLabel.isEmpty() && s.role == SnapshotRole::Prediction)
        label = m_shownLabel + (probability ? " (bins)" : "");
      auto* graph = addCurve(m_plot, label, pen, x, y, m_logY, halfBin, extent);
      if (probability) graph->setLineStyle(QCPGraph::lsStepCenter);
      if (comparing && s.role != SnapshotRole::Truth) noteRunCurve(graph, m_shownLabel, m_shownRun);
    }
    const auto& meta = s.meta;
    if (meta.contains("inputs") && row() < static_cast<int>(meta["inputs"].size())) {
      const auto& in = meta["inputs"][row()];
      m_caption->setToolTip(QString::fromStdString(in.dump()));
    }
  }
  for (auto run = m_overlays.cbegin(); run != m_overlays.cend(); ++run) {
    for (auto it = run->snapshots.cbegin(); it != run->snapshots.cend(); ++it) {
      const Snapshot& s = it.value();
      const int index = static_cast<int>(m_series.indexOf(it.key()));
      const QStringList rowLabels = metaStrings(s, "row_labels");
      const bool everyRow = !rowLabels.isEmpty() && rowLabels.size() == rowCount(s);
      const int64_t first = everyRow ? 0 : row();
      const int64_t last = everyRow ? rowCount(s) - 1 : row();
      for (int64_t r = first; r <= last; ++r) {
        QVector<double> x, y;
        if (!rowOf(s, r, x, y)) continue;
        if (!everyRow && !sameTruthAt(run.value(), s, r)) {
          const QString who = QString("#%1").arg(run.key());
          if (!m_notDrawn.contains(who)) m_notDrawn << who;
          continue;
        }
        allX += x;
        const QString label =
            nameInComparison(run->label, s, index, everyRow ? rowLabels : QStringList(), r, last);
        noteDrawn(s, run->label, run->color, index, everyRow ? rowLabels : QStringList(), r, last);
        QPen pen = s.role == SnapshotRole::Prediction ? QPen(run->color, 1.6)
                                                      : seriesPen(run->color, index, 1.6);
        if (everyRow && last > 0) {
          // The same line style per row as the shown run's, so a row is compared across runs.
          // (A single labelled row is just the run's curve: its colour tells it apart.)
          pen =
              seriesPen(run->color, static_cast<int>(r) + index * static_cast<int>(last + 1), 1.6);
        }
        noteRunCurve(addCurve(m_plot, label, pen, x, y, m_logY, 0, extent), run->label, run.key());
      }
    }
  }
  QMap<QString, QSet<int64_t>> runsOfLabel;  // shown or overlaid: a label of several is a group's
  if (!m_shownLabel.isEmpty()) runsOfLabel[m_shownLabel].insert(m_shownRun);
  for (auto run = m_overlays.cbegin(); run != m_overlays.cend(); ++run)
    if (!run->snapshots.isEmpty()) runsOfLabel[run->label].insert(run.key());
  const auto named = [&](const QString& runLabel) {
    return runsOfLabel.value(runLabel).size() > 1 ? runLabel + drawnMembers(drawnUnder[runLabel])
                                                  : runLabel;
  };
  for (const auto& [graph, runLabel] : underRunLabel)
    graph->setName(named(runLabel) + graph->name().mid(runLabel.size()));
  for (auto& run : runsDrawn) run.first = named(run.first);
  listEachLookOnce(m_plot);
  // Keys only where each style is a line style of its own (seriesPen repeats its five, darker,
  // from the sixth on) and they are no more rows than the curves.
  const int keys = static_cast<int>(runsDrawn.size() + stylesDrawn.size());
  if (runsTimesStyles && runsDrawn.size() > 1 && stylesDrawn.size() > 1 &&
      stylesDrawn.lastKey() < 5 && keys <= m_plot->graphCount())
    showFactoredLegend(runsDrawn, stylesDrawn);
  applyRanges(m_plot, extent, m_logY, m_floor, m_ceiling, /*curves=*/true);
  matchTicker(m_plot->xAxis, allWholeNumbers(allX));
  std::vector<XMark> marks;
  for (const auto& s : m_latest)
    for (auto& mark : xMarks(s)) marks.push_back(std::move(mark));
  m_marks.show(marks);
}

void SnapshotPlot::addBarKey(const QString& label, const QBrush& brush) {
  // Bars without data: a legend row, never drawn or ranged over (cleared with the plottables).
  auto* key = new QCPBars(m_plot->xAxis, m_plot->yAxis);
  key->setName(label);
  key->setBrush(brush);
  key->setPen(brush.style() == Qt::SolidPattern ? QPen(Qt::NoPen) : QPen(brush.color(), 1));
  key->addToLegend();
}

void SnapshotPlot::showFactoredLegend(const QList<QPair<QString, QColor>>& runs,
                                      const QMap<int, QString>& styles) {
  QList<QPair<QString, QPen>> keys;
  for (const auto& [label, color] : runs) keys.append({label, runKeyPen(color)});
  // A position's line style, as seriesPen draws it (below the sixth, where it repeats).
  for (auto style = styles.cbegin(); style != styles.cend(); ++style)
    keys.append({style.value(), styleKeyPen(seriesPen(Qt::black, style.key()))});
  showLegendKeys(m_plot, keys);  // cleared with the plot's other graphs at the next refresh
}

void SnapshotPlot::drawBars() {
  // One set of bars per run and series: the shown run's first, then each compared run's, in
  // its colour; a run's several series differ by fill pattern.
  struct BarSet {
    const Snapshot* snapshot;
    QString run;
    QColor color;
    int series;  // its index in the panel's series
  };
  QList<BarSet> shown;
  for (int index = 0; index < m_series.size(); ++index) {
    if (auto it = m_latest.find(m_series[index]); it != m_latest.end())
      shown << BarSet{&it.value(), m_shownLabel, m_shownColor, index};
    for (auto run = m_overlays.cbegin(); run != m_overlays.cend(); ++run)
      if (auto it = run->snapshots.find(m_series[index]); it != run->snapshots.end())
        shown << BarSet{&it.value(), run->label, run->color, index};
  }
  // In a comparison the sets are named by run, whoever drew: one run's bars beside a linear
  // head's nothing are still another run's, and a group's members are one group.
  const bool byRun = !m_overlays.isEmpty();
  Extent extent;
  QStringList labels;
  QVector<double> labelAt;
  const int n = shown.size();
  for (int i = 0; i < n; ++i) {
    const BarSet& set = shown[i];
    QVector<double> x, y;
    if (!rowOf(*set.snapshot, 0, x, y) || x.isEmpty()) continue;
    double spacing = std::numeric_limits<double>::infinity();  // between categories
    for (int k = 1; k < x.size(); ++k)
      if (x[k] > x[k - 1]) spacing = std::min(spacing, x[k] - x[k - 1]);
    if (!std::isfinite(spacing)) spacing = 1;
    if (labels.isEmpty()) {
      labels = metaStrings(*set.snapshot, "labels");
      if (labels.size() == x.size())
        labelAt = x;
      else
        labels.clear();
    }
    // Several sets stand side by side within each category.
    const double width = (n > 1 ? 0.8 : 0.7) * spacing / n;
    const double offset = (i - (n - 1) / 2.0) * width;
    QVector<double> keys, values;
    for (int k = 0; k < x.size(); ++k) {
      extent.addX(x[k] - 0.6 * spacing);
      extent.addX(x[k] + 0.6 * spacing);
      if (!std::isfinite(y[k]) || (m_logY && y[k] <= 0)) continue;  // not drawable
      keys << x[k] + offset;
      values << y[k];
      extent.addY(y[k]);
    }
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    // Named by what tells it apart: its series, its run, or both.
    QString name = seriesLabel(set.series);
    if (byRun) name = m_series.size() > 1 ? set.run + " " + name : set.run;
    bars->setName(name);
    const Qt::BrushStyle pattern = barPattern(set.series);
    bars->setBrush(QBrush(set.color, pattern));
    bars->setPen(pattern == Qt::SolidPattern ? QPen(Qt::NoPen) : QPen(set.color, 1));
    bars->setWidth(width);
    bars->setData(keys, values);
    if (n == 1 && !byRun) bars->removeFromLegend();  // nothing to tell apart
  }
  listEachLookOnce(m_plot);
  // Several runs' several series: a legend of runs (their colours) and series (their fills),
  // where "#7 add-random errors/lowpass_removed_all" per set was cut in its middle to fit,
  // leaving lowpass and highpass alike.
  QList<QPair<QString, QColor>> runs;
  QMap<int, QString> series;
  for (const auto& set : shown) {
    if (std::none_of(runs.begin(), runs.end(), [&](const auto& r) { return r.first == set.run; }))
      runs.append({set.run, set.color});
    series[set.series] = seriesLabel(set.series);
  }
  if (byRun && series.size() > 1) {
    m_plot->legend->clearItems();
    for (const auto& [label, color] : runs) addBarKey(label, QBrush(color));
    for (auto it = series.cbegin(); it != series.cend(); ++it)
      addBarKey(it.value(), QBrush(QColor(90, 90, 90), barPattern(it.key())));
  }
  if (!labels.isEmpty()) {
    setCategoryLabels(m_plot->xAxis, labelAt, labels);
    m_textTicks = true;
  } else if (m_textTicks) {
    clearCategoryLabels(m_plot);
    m_textTicks = false;
  }
  // On a log axis bars rise from below the plot: leave the smallest one some height.
  if (m_logY && extent.yLo <= extent.yHi) extent.addY(extent.yLo / 3);
  applyRanges(m_plot, extent, m_logY, m_floor, m_ceiling, /*curves=*/false);
  if (!m_textTicks) {
    QVector<double> keys;
    for (const auto& set : shown) {
      QVector<double> x, y;
      if (rowOf(*set.snapshot, 0, x, y)) keys += x;
    }
    matchTicker(m_plot->xAxis, allWholeNumbers(keys));
  }
}

}  // namespace fl::widgets
