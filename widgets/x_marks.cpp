#include "widgets/x_marks.h"

#include <QFontMetrics>

#include <algorithm>
#include <utility>

#include <qcustomplot.h>

namespace fl::widgets {

std::vector<XMark> xMarks(const Snapshot& s) {
  std::vector<XMark> out;
  if (!s.meta.is_object() || !s.meta.contains("x_marks") || !s.meta["x_marks"].is_array())
    return out;
  for (const auto& m : s.meta["x_marks"]) {
    if (!m.is_object() || !m.contains("at") || !m["at"].is_number()) return {};
    const auto label = m.value("label", nlohmann::json()).is_string()
                           ? QString::fromStdString(m["label"].get<std::string>())
                           : QString();
    out.push_back({m["at"].get<double>(), label});
  }
  return out;
}

XMarkItems::XMarkItems(QCustomPlot* plot, Style style, QColor color)
    : m_plot(plot), m_style(style), m_color(color) {}

void XMarkItems::show(const std::vector<XMark>& marks) {
  m_marks = marks;
  if (m_style == Style::Lines)
    showLines(marks);
  else
    showTopTicks(marks);
}

void XMarkItems::refit() { show(std::vector<XMark>(m_marks)); }

QFont XMarkItems::labelFont() const {
  if (m_style == Style::TopAxisTicks) return m_plot->xAxis2->tickLabelFont();
  QFont font = m_plot->font();
  font.setPointSizeF(font.pointSizeF() * 0.85);
  return font;
}

std::vector<bool> XMarkItems::labelsThatFit(const std::vector<XMark>& marks) const {
  // Where each label would be, in pixels of the plot's width now (less the last layout's
  // margins: the axis rect is laid out only at the next replot); a label that would overlap
  // one kept before it is left out, its mark kept ("period 2.5period 2" ran together).
  const QCPRange range = m_plot->xAxis->range();
  const QMargins margins = m_plot->axisRect()->margins();
  const double width = m_plot->width() - margins.left() - margins.right();
  const QFontMetrics metrics(labelFont());
  std::vector<std::pair<double, double>> kept;  // the labels' extents so far
  std::vector<bool> fits(marks.size(), false);
  for (size_t i = 0; i < marks.size(); ++i) {
    if (!range.contains(marks[i].at) || marks[i].label.isEmpty() || range.size() <= 0) continue;
    double px = (marks[i].at - range.lower) / range.size() * width;
    if (m_plot->xAxis->rangeReversed()) px = width - px;
    const double w = metrics.horizontalAdvance(marks[i].label) + 8;  // with the padding
    std::pair<double, double> extent{px - w / 2, px + w / 2};        // a tick's label is centred
    if (m_style == Style::Lines)
      extent = marks[i].at > range.center() ? std::pair(px - w, px) : std::pair(px, px + w);
    const bool overlaps = std::any_of(kept.begin(), kept.end(), [&](const auto& other) {
      return extent.first < other.second && other.first < extent.second;
    });
    if (overlaps) continue;
    kept.push_back(extent);
    fits[i] = true;
  }
  return fits;
}

void XMarkItems::showTopTicks(const std::vector<XMark>& marks) {
  auto* top = m_plot->xAxis2;
  const QCPRange range = m_plot->xAxis->range();
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const std::vector<bool> fits = labelsThatFit(marks);
  for (size_t i = 0; i < marks.size(); ++i)
    if (range.contains(marks[i].at)) ticker->addTick(marks[i].at, fits[i] ? marks[i].label : "");
  top->setVisible(!ticker->ticks().isEmpty());
  top->setRange(range);
  top->setRangeReversed(m_plot->xAxis->rangeReversed());
  top->setTicker(ticker);
  top->setTickLabels(true);
  top->setSubTicks(false);
}

void XMarkItems::showLines(const std::vector<XMark>& marks) {
  for (auto* item : m_items) m_plot->removeItem(item);
  m_items.clear();
  const QCPRange range = m_plot->xAxis->range();
  QPen pen(m_color, 1.0, Qt::DashLine);
  const std::vector<bool> fits = labelsThatFit(marks);
  for (size_t i = 0; i < marks.size(); ++i) {
    const XMark& mark = marks[i];
    if (!range.contains(mark.at)) continue;
    auto* line = new QCPItemStraightLine(m_plot);
    line->setPen(pen);
    line->point1->setTypeX(QCPItemPosition::ptPlotCoords);
    line->point1->setTypeY(QCPItemPosition::ptAxisRectRatio);
    line->point1->setCoords(mark.at, 0);
    line->point2->setTypeX(QCPItemPosition::ptPlotCoords);
    line->point2->setTypeY(QCPItemPosition::ptAxisRectRatio);
    line->point2->setCoords(mark.at, 1);
    // The label sits just inside the top of the plot, beside its line, on the side with room.
    auto* text = new QCPItemText(m_plot);
    text->position->setTypeX(QCPItemPosition::ptPlotCoords);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(mark.at, 0.01);
    const bool rightHalf = mark.at > range.center();
    text->setPositionAlignment(Qt::AlignTop | (rightHalf ? Qt::AlignRight : Qt::AlignLeft));
    text->setPadding(QMargins(3, 1, 3, 1));
    text->setColor(m_color);
    text->setFont(labelFont());
    text->setText(mark.label);
    text->setVisible(fits[i]);
    m_items << line << text;
  }
}

}  // namespace fl::widgets
