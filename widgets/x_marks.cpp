#include "widgets/x_marks.h"

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
  if (m_style == Style::Lines)
    showLines(marks);
  else
    showTopTicks(marks);
}

void XMarkItems::showTopTicks(const std::vector<XMark>& marks) {
  auto* top = m_plot->xAxis2;
  const QCPRange range = m_plot->xAxis->range();
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (const auto& mark : marks)
    if (range.contains(mark.at)) ticker->addTick(mark.at, mark.label);
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
  for (const auto& mark : marks) {
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
    QFont font = m_plot->font();
    font.setPointSizeF(font.pointSizeF() * 0.85);
    text->setFont(font);
    text->setText(mark.label);
    m_items << line << text;
  }
}

}  // namespace fl::widgets
