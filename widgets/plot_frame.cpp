#include "widgets/plot_frame.h"

#include <QFileInfo>
#include <QSet>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <qcustomplot.h>

#include "widgets/step_ticker.h"

namespace fl::widgets {

namespace {

// Where a legend name's text starts after its run's number and the space after it: 0 for a
// name without one.
qsizetype afterRunNumber(const QString& name) {
  const qsizetype space = name.indexOf(' ');
  return name.startsWith('#') && space > 0 ? space + 1 : 0;
}

// A legend entry whose name is elided to a width (legendName), so a long run name never
// widens the legend column past its share of the plot. The tooltip of the plot (hover) and
// the tables still say the whole name.
class ElidedLegendItem : public QCPPlottableLegendItem {
 public:
  ElidedLegendItem(QCPLegend* legend, QCPAbstractPlottable* plottable, int maxTextWidth)
      : QCPPlottableLegendItem(legend, plottable), m_maxTextWidth(maxTextWidth) {}
  void setMaxTextWidth(int width) { m_maxTextWidth = width; }
  int maxTextWidth() const { return m_maxTextWidth; }
  // Where the name starts to differ from another entry's that is cut alike (-1: cut as usual).
  void setKeepFrom(qsizetype at) { m_keepFrom = at; }

  QString shownText() const {
    const QString name = mPlottable->name();
    if (m_keepFrom <= 0 || m_keepFrom >= name.size() ||
        QFontMetrics(getFont()).horizontalAdvance(name) <= m_maxTextWidth)
      return legendName(name, getFont(), m_maxTextWidth);
    // The run's number, then the name from where it differs ("…mlp all layers" after it).
    const qsizetype numbered = afterRunNumber(name);
    const QString number = numbered > 0 && numbered <= m_keepFrom ? name.left(numbered) : QString();
    return QFontMetrics(getFont()).elidedText(number + "…" + name.mid(m_keepFrom), Qt::ElideRight,
                                              m_maxTextWidth);
  }

 protected:
  // The base class draws the icon (only it may) and the name: it is given the elided name for
  // the time of the call.
  void draw(QCPPainter* painter) override {
    if (!mPlottable) return;
    const QString full = mPlottable->name();
    mPlottable->setName(shownText());
    QCPPlottableLegendItem::draw(painter);
    mPlottable->setName(full);
  }
  QSize minimumOuterSizeHint() const override {
    if (!mPlottable) return {};
    const QString full = mPlottable->name();
    mPlottable->setName(shownText());
    const QSize size = QCPPlottableLegendItem::minimumOuterSizeHint();
    mPlottable->setName(full);
    return size;
  }

 private:
  int m_maxTextWidth;
  qsizetype m_keepFrom = -1;
};

// Where entries are cut alike but for their runs' numbers, every cut entry is cut again from
// where the names differ: a module's two curves both read "tiny · r… all layers", attention and
// MLP cut away, and runs that differ in N alone "e…=4 e… s…=1", their frequencies cut away.
void keepEntriesApart(QCPLegend* legend) {
  QList<ElidedLegendItem*> cut;
  QSet<QString> rests;
  bool alike = false;
  for (int i = 0; i < legend->itemCount(); ++i)
    if (auto* item = dynamic_cast<ElidedLegendItem*>(legend->item(i))) {
      item->setKeepFrom(-1);
      const QString shown = item->shownText();
      if (shown == item->plottable()->name()) continue;
      cut << item;
      const QString rest = shown.mid(afterRunNumber(shown));
      alike = alike || rests.contains(rest);
      rests.insert(rest);
    }
  if (!alike) return;
  // The cut names' common start after their numbers, back to the start of its last word.
  const QString first = cut.front()->plottable()->name();
  const QString firstText = first.mid(afterRunNumber(first));
  qsizetype common = firstText.size();
  for (auto* item : cut) {
    const QString name = item->plottable()->name();
    const QString text = name.mid(afterRunNumber(name));
    qsizetype same = 0;
    while (same < std::min(common, text.size()) && text[same] == firstText[same]) ++same;
    common = same;
  }
  const qsizetype wordStart = firstText.lastIndexOf(' ', common - 1) + 1;
  if (wordStart <= 0) return;
  for (auto* item : cut) item->setKeepFrom(afterRunNumber(item->plottable()->name()) + wordStart);
}

// A plot's title cut to its cell's width (the end elided), where a long title ("Spectral
// purity: layer x dimension pair" in a laptop's two-column grid) ran past both edges of its
// panel. text() keeps the whole title.
class ElidedTitle : public QCPTextElement {
 public:
  ElidedTitle(QCustomPlot* plot, const QString& text, const QFont& font)
      : QCPTextElement(plot, text, font) {}

 protected:
  void draw(QCPPainter* painter) override {
    const QString whole = mText;
    // Four pixels clear of either edge, where the panel's frame is.
    mText = QFontMetrics(mainFont()).elidedText(whole, Qt::ElideRight, mRect.width() - 8);
    QCPTextElement::draw(painter);
    mText = whole;
  }
  // As tall as the title, and as narrow as a few letters: the panel's width decides.
  QSize minimumOuterSizeHint() const override {
    QSize size = QCPTextElement::minimumOuterSizeHint();
    size.setWidth(std::min(size.width(), 60));
    return size;
  }
};

// `name` with the key of each "key=value" word cut to its first `keep` letters and "…".
QString withKeysCut(const QString& name, int keep) {
  QStringList words = name.split(' ');
  for (QString& word : words) {
    const qsizetype equals = word.indexOf('=');
    if (equals > keep + 1) word = word.left(keep) + "…" + word.mid(equals);
  }
  return words.join(' ');
}

constexpr const char* kSavedTextProperty = "fourierlabSavedText";

// The size a plot is saved at, its legend's names lifted to that size and its notes for the
// screen replaced (setSavedText) for the time it lives. A saved figure goes into a paper or a
// report, where a legend cut to "f…=8 s…=2" names no setting: it is drawn wide enough for its
// legend's whole names at the legend's share of the width and for its whole title (a heatmap's
// "Spectrum over training · #10 frequencies=12 s…"), never narrower than on screen, and no
// wider than a page (names are cut past that).
class SavedSize {
 public:
  explicit SavedSize(QCustomPlot* plot) : m_width(plot->width()), m_height(plot->height()) {
    for (auto* element : plot->plotLayout()->elements(true))
      if (auto* note = qobject_cast<QCPTextElement*>(element)) {
        const QVariant saved = note->property(kSavedTextProperty);
        if (!saved.isValid() || note->text().isEmpty()) continue;
        m_notes.push_back({note, note->text()});
        note->setText(saved.toString());
      }
    if (auto* title = plotTitle(plot)) {
      // The title's cell shares the width with what stands beside it (the legend's column).
      // (A plot never laid out has a title cell of no width yet.)
      const int cell = title->outerRect().width();
      const int beside = cell > 0 ? std::max(0, plot->width() - cell) : 0;
      const int whole = QFontMetrics(title->font()).horizontalAdvance(title->text()) + 16 + beside;
      m_width = std::clamp(whole, m_width, std::max(m_width, kWidestSaved));
    }
    QCPLegend* legend = plot->legend;
    if (!legend || !legend->visible()) return;
    const QFontMetrics metrics(legend->font());
    int widest = 0;
    for (int i = 0; i < legend->itemCount(); ++i)
      if (auto* item = dynamic_cast<ElidedLegendItem*>(legend->item(i))) {
        m_lifted.push_back({item, item->maxTextWidth()});
        widest = std::max(widest, metrics.horizontalAdvance(item->plottable()->name()));
      }
    if (m_lifted.empty()) return;
    const int columns = std::max(1, legend->columnCount());
    const int perEntry = widest + legend->iconSize().width() + 12;
    const int wanted = static_cast<int>(std::ceil(columns * perEntry / kLegendWidthShare));
    m_width = std::clamp(wanted, m_width, std::max(m_width, kWidestSaved));
    // As fitLegend shares the width among the columns.
    const int textWidth = std::max(40, static_cast<int>(kLegendWidthShare * m_width) / columns -
                                           legend->iconSize().width() - 12);
    for (auto& [item, width] : m_lifted) item->setMaxTextWidth(std::max(width, textWidth));
  }
  ~SavedSize() {
    for (auto& [item, width] : m_lifted) item->setMaxTextWidth(width);
    for (auto& [note, text] : m_notes) note->setText(text);
  }
  SavedSize(const SavedSize&) = delete;
  SavedSize& operator=(const SavedSize&) = delete;

  int width() const { return m_width; }
  int height() const { return m_height; }

 private:
  static constexpr int kWidestSaved = 1600;
  int m_width;
  int m_height;
  std::vector<std::pair<ElidedLegendItem*, int>> m_lifted;
  std::vector<std::pair<QCPTextElement*, QString>> m_notes;
};

}  // namespace

QString legendName(const QString& given, const QFont& font, int width) {
  const QFontMetrics metrics(font);
  if (metrics.horizontalAdvance(given) <= width) return given;
  // Settings' names go short before any value does: groups by setting read "frequenc…
  // head=fourier ×2" and "frequen… head=fourier ×2", N = 4 and 12 alike; "freq…=4 head=fourier
  // ×2" tells them apart.
  QString name = given;
  if (given.contains('=')) {
    for (const int keep : {4, 2, 1}) {
      name = withKeysCut(given, keep);
      if (metrics.horizontalAdvance(name) <= width) return name;
    }
  }
  // The last two words whole, else the last, where they leave the run's name room to start:
  // cut in the middle, "…lowpass_removed_all" and "…highpass_removed_all" both read
  // "…emoved_all", and a setting's name went with its value ("#36 demo · e… 600").
  const qsizetype lastSpace = name.lastIndexOf(' ');
  const qsizetype secondLast = lastSpace > 0 ? name.lastIndexOf(' ', lastSpace - 1) : -1;
  for (const qsizetype space : {secondLast, lastSpace}) {
    if (space <= 0) continue;
    const QString tail = name.mid(space);
    const int room = width - metrics.horizontalAdvance(tail);
    if (room >= metrics.horizontalAdvance(name.left(std::min<qsizetype>(space, 4)) + "…"))
      return metrics.elidedText(name.left(space), Qt::ElideRight, room) + tail;
  }
  // Narrower still: the run's number whole, then as much of the end as fits. Cut in the middle,
  // runs #23 and #24 both read "#2…=1".
  const int first = name.indexOf(' ');
  if (name.startsWith('#') && first > 0) {
    const QString number = name.left(first);
    const int room = width - metrics.horizontalAdvance(number);
    if (room >= metrics.horizontalAdvance("…="))
      return number + metrics.elidedText(name.mid(first), Qt::ElideLeft, room);
  }
  return metrics.elidedText(name, Qt::ElideMiddle, width);
}

void setUpPlotFrame(QCustomPlot* plot, const QString& title, const QString& xLabel,
                    const QString& yLabel, bool legend) {
  plot->plotLayout()->insertRow(0);
  auto* titleElement = new ElidedTitle(plot, title, QFont("sans", 10, QFont::Bold));
  plot->plotLayout()->addElement(0, 0, titleElement);
  plot->xAxis->setLabel(xLabel);
  plot->yAxis->setLabel(yLabel);
  plot->setMinimumSize(260, 180);
  if (xLabel == "step") plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new StepTicker));
  plot->xAxis->ticker()->setTickCount(4);
  plot->legend->setVisible(legend);
  if (!legend) return;
  plot->legend->setFont(QFont("sans", 8));
  auto* legendColumn = new QCPLayoutGrid;
  plot->plotLayout()->addElement(1, 1, legendColumn);
  legendColumn->setMargins(QMargins(0, 5, 5, 5));
  legendColumn->addElement(0, 0, plot->legend);
  plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
  plot->legend->setWrap(0);  // one column until fitLegend says otherwise
  plot->legend->setBorderPen(Qt::NoPen);
  plot->legend->setRowSpacing(0);
  plot->legend->setColumnSpacing(6);
  // Long enough for two periods of every series' dashes: at 18 px a long dash read as solid.
  // As tall as a line of text and two pixels: an entry is no taller than its icon, and packed
  // entries lost their underscores and descenders to the next ("mse_argmax" read "mse argmax").
  plot->legend->setIconSize(28, QFontMetrics(plot->legend->font()).height() + 2);
  // Packed at the column's top, as legends are: stretched over the panel's height, its entries
  // spread apart, and in a short panel the last fell below the edge, unnamed.
  legendColumn->addElement(1, 0, new QCPLayoutElement(plot));
  legendColumn->setRowStretchFactor(0, 0.001);
  legendColumn->setRowStretchFactor(1, 1);
  plot->plotLayout()->setColumnStretchFactor(1, 0.001);
}

bool fitLegend(QCustomPlot* plot, int maxEntries) {
  QCPLegend* legend = plot->legend;
  const int entries = legend->itemCount();
  // How many rows the legend's column holds (the plot's height less its title and the column's
  // margins), then one or two columns of them.
  const auto* first = entries > 0 ? legend->item(0) : nullptr;
  const int rowHeight =
      (first ? first->minimumOuterSizeHint().height() : QFontMetrics(legend->font()).height()) +
      legend->rowSpacing();
  const QCPLayoutElement* title = plot->plotLayout()->element(0, 0);
  const int titleHeight =
      qobject_cast<const QCPTextElement*>(title) ? title->minimumOuterSizeHint().height() : 0;
  // Less the legend's margins, its column's (5 and 5), the spacing under the title row and a
  // little to spare.
  const int room = plot->height() - titleHeight - legend->margins().top() -
                   legend->margins().bottom() - 10 - plot->plotLayout()->rowSpacing() - 2;
  const int rows = std::max(1, room / std::max(1, rowHeight));
  const int columns = entries <= rows ? 1 : entries <= 2 * rows ? 2 : 0;
  // Two columns share the width one would have: each at the share's full width, the legend
  // would be wider than the plot leaves it and push the axes and the title out of the cell.
  const int textWidth =
      std::max(40, static_cast<int>(kLegendWidthShare * plot->width()) / std::max(columns, 1) -
                       legend->iconSize().width() - 12);
  // Entries that elide their names (converted once; later additions come in plain).
  QList<QCPAbstractPlottable*> plain;
  for (int i = 0; i < entries; ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
      if (!dynamic_cast<ElidedLegendItem*>(item)) plain << item->plottable();
  if (!plain.isEmpty()) {
    QList<QCPAbstractPlottable*> order;
    for (int i = 0; i < entries; ++i)
      if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
        order << item->plottable();
    legend->clearItems();
    for (auto* p : order) legend->addItem(new ElidedLegendItem(legend, p, textWidth));
  }
  for (int i = 0; i < legend->itemCount(); ++i)
    if (auto* item = dynamic_cast<ElidedLegendItem*>(legend->item(i)))
      item->setMaxTextWidth(textWidth);
  keepEntriesApart(legend);
  const bool shown = entries > 0 && columns > 0 && entries <= maxEntries;
  legend->setVisible(shown);
  const int wrap = columns == 2 ? (entries + 1) / 2 : 0;
  if (legend->wrap() != wrap) {
    legend->setWrap(wrap);
    legend->setFillOrder(QCPLayoutGrid::foRowsFirst, /*rearrange=*/true);
  }
  // A hidden legend still asks the layout for its entries' width (QCustomPlot lays out hidden
  // elements too): an explicit 1-pixel minimum overrides that, so the axes take the room. An
  // empty one reports its margins as its largest height, which capped the plot's whole row (a
  // single run's bars drew 50 px high in a 280 px plot): an explicit maximum height overrides
  // that. Half of QWIDGETSIZE_MAX: that value itself means "unset", and QCustomPlot adds the
  // margins to an explicit one, which must stay below it.
  legend->setMinimumSize(shown ? 0 : 1, 0);
  legend->setMaximumSize(shown ? QWIDGETSIZE_MAX : 1,
                         entries == 0 ? QWIDGETSIZE_MAX / 2 : QWIDGETSIZE_MAX);
  return shown;
}

QPen runKeyPen(const QColor& runColor) { return QPen(runColor, 2.0); }

QPen styleKeyPen(const QPen& line) {
  QPen pen(QColor(90, 90, 90), 1.6);
  if (line.style() == Qt::CustomDashLine)
    pen.setDashPattern(line.dashPattern());
  else
    pen.setStyle(line.style());
  return pen;
}

QList<QCPGraph*> showLegendKeys(QCustomPlot* plot, const QList<QPair<QString, QPen>>& keys) {
  plot->legend->clearItems();  // the curves' rows, all at once
  QList<QCPGraph*> graphs;
  for (const auto& [label, pen] : keys) {
    auto* key = plot->addGraph();
    key->setName(label);
    key->setPen(pen);
    key->addToLegend();  // whether or not the plot lists new graphs by itself
    graphs << key;
  }
  return graphs;
}

void fitTicks(QCustomPlot* plot) {
  // The widget's width now, less the margins of the last layout: the axis rect's own width is
  // only updated at the next replot, so after a resize it was the old one (a cell that had
  // been wider got ten labels running into each other).
  // The legend's column beside the axis rect is not the axis's either: counted in, a plot half
  // legend got seven step labels on its half ("75k100k125k150k175k").
  const QMargins margins = plot->axisRect()->margins();
  const int legendWidth = plot->legend && plot->legend->visible() && plot->legend->layout() &&
                                  plot->legend->layout() != plot->plotLayout() &&
                                  plot->legend->layout() != plot->axisRect()->insetLayout()
                              ? plot->legend->layout()->minimumOuterSizeHint().width()
                              : 0;
  const int width = plot->width() - margins.left() - margins.right() - legendWidth;
  if (width <= 0) return;
  // At least two: QCustomPlot rounds the step to a "nice" one, and a target of one tick over
  // 500..175000 left one label (100k) on the axis.
  const int count = std::clamp(width / 60, 2, 6);
  // Text tickers place their own labels (one per category).
  if (!plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>())
    plot->xAxis->ticker()->setTickCount(count);
}

void setSavedText(QCPTextElement* note, const QString& saved) {
  note->setProperty(kSavedTextProperty, saved);
}

QCPTextElement* plotTitle(QCustomPlot* plot) {
  if (plot->plotLayout()->rowCount() == 0) return nullptr;
  return qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
}

bool savePlotImage(QCustomPlot* plot, const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "svg") return savePlotSvg(plot, path);
  const SavedSize size(plot);
  const bool saved = suffix == "pdf" ? plot->savePdf(path, size.width(), size.height())
                                     : plot->savePng(path, size.width(), size.height(), 2.0);
  plot->replot(QCustomPlot::rpQueuedReplot);  // laid out for the screen again
  return saved;
}

bool savePlotSvg(QCustomPlot* plot, const QString& path) {
  const SavedSize size(plot);
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(QSize(size.width(), size.height()));
  generator.setViewBox(QRect(0, 0, size.width(), size.height()));
  generator.setTitle(path);
  QCPPainter painter;
  bool saved = painter.begin(&generator);
  if (saved) {
    plot->toPainter(&painter, size.width(), size.height());
    saved = painter.end();
  }
  plot->replot(QCustomPlot::rpQueuedReplot);
  return saved;
}

QCPColorGradient sequentialGradient() {
  QCPColorGradient g;
  g.setColorStops({{0.0, QColor(68, 1, 84)},
                   {0.25, QColor(59, 82, 139)},
                   {0.5, QColor(33, 145, 140)},
                   {0.75, QColor(94, 201, 98)},
                   {1.0, QColor(253, 231, 37)}});
  g.setColorInterpolation(QCPColorGradient::ciRGB);
  g.setNanHandling(QCPColorGradient::nhTransparent);
  return g;
}

QString noDataCaption(bool runEnded) {
  return runEnded ? "this run recorded no data for this panel" : "no data for this run yet";
}

}  // namespace fl::widgets
