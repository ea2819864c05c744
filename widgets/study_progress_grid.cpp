#include "widgets/study_progress_grid.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace fl::widgets {

StudyProgressGrid::StudyProgressGrid(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void StudyProgressGrid::setRows(QVector<GridRow> rows, QStringList columnLabels,
                                QString labelHeader) {
  m_rows = std::move(rows);
  m_columns = std::move(columnLabels);
  m_labelHeader = std::move(labelHeader);
  updateGeometry();
  update();
}

QColor StudyProgressGrid::statusColor(const study::CellStatus& status) {
  const QColor waiting(205, 205, 205);  // queued, or not started
  if (!status) return waiting;
  switch (*status) {
    case RunStatus::Finished:
      return QColor(44, 160, 44);
    case RunStatus::Running:
      return QColor(31, 119, 180);
    case RunStatus::Failed:
      return QColor(214, 39, 40);
    case RunStatus::Cancelled:
    case RunStatus::Interrupted:
      return QColor(255, 150, 40);
    case RunStatus::Queued:
      break;
  }
  return waiting;
}

int StudyProgressGrid::columnCount() const {
  int columns = static_cast<int>(m_columns.size());
  for (const auto& row : m_rows) columns = std::max(columns, static_cast<int>(row.cells.size()));
  return columns;
}

int StudyProgressGrid::naturalLabelWidth() const {
  int width = 60;
  const QFontMetrics metrics(font());
  for (const auto& row : m_rows) width = std::max(width, metrics.horizontalAdvance(row.label) + 10);
  if (!m_labelHeader.isEmpty())
    width = std::max(width, metrics.horizontalAdvance(m_labelHeader + " | seed") + 10);
  return std::min(width, 320);
}

int StudyProgressGrid::labelWidth() const {
  const int room = width() - columnCount() * (kCell + kGap) - 8;
  return std::clamp(room, std::min(kMinLabel, naturalLabelWidth()), naturalLabelWidth());
}

QRect StudyProgressGrid::cellRect(int row, int column) const {
  return QRect(labelWidth() + column * (kCell + kGap), kHeader + row * (kCell + kGap), kCell,
               kCell);
}

QSize StudyProgressGrid::sizeHint() const {
  return QSize(naturalLabelWidth() + columnCount() * (kCell + kGap) + 8,
               kHeader + static_cast<int>(m_rows.size()) * (kCell + kGap) + 4);
}

QSize StudyProgressGrid::minimumSizeHint() const {
  return QSize(std::min(kMinLabel, naturalLabelWidth()) + columnCount() * (kCell + kGap) + 8,
               sizeHint().height());
}

std::pair<int, int> StudyProgressGrid::cellAt(const QPoint& point) const {
  const int row = (point.y() - kHeader) / (kCell + kGap);
  if (point.y() < kHeader || row < 0 || row >= m_rows.size()) return {-1, -1};
  if (point.x() < labelWidth()) return {row, -1};
  const int column = (point.x() - labelWidth()) / (kCell + kGap);
  if (column < 0 || column >= m_rows[row].cells.size()) return {-1, -1};
  return {row, column};
}

void StudyProgressGrid::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  const QFontMetrics metrics(font());
  painter.setPen(palette().color(QPalette::WindowText));
  if (!m_columns.isEmpty()) {  // what the labels and the columns are, once, above the labels
    const QRect header(0, 0, labelWidth() - 6, kHeader);
    const QString seed = m_labelHeader.isEmpty() ? "seed" : " | seed";
    painter.drawText(header, Qt::AlignRight | Qt::AlignVCenter,
                     metrics.elidedText(m_labelHeader, Qt::ElideMiddle,
                                        header.width() - metrics.horizontalAdvance(seed)) +
                         seed);
  }
  for (int c = 0; c < m_columns.size(); ++c) {
    const QRect r = cellRect(0, c).translated(0, -kHeader).adjusted(-4, 0, 4, kHeader - kCell);
    painter.drawText(r, Qt::AlignCenter,
                     metrics.elidedText(m_columns[c], Qt::ElideRight, r.width() + 8));
  }
  for (int r = 0; r < m_rows.size(); ++r) {
    const auto& row = m_rows[r];
    const QRect label(0, cellRect(r, 0).top(), labelWidth() - 6, kCell);
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(label, Qt::AlignRight | Qt::AlignVCenter,
                     metrics.elidedText(row.label, Qt::ElideMiddle, label.width()));
    for (int c = 0; c < row.cells.size(); ++c) {
      painter.setPen(Qt::NoPen);
      painter.setBrush(statusColor(row.cells[c].status));
      painter.drawRoundedRect(cellRect(r, c), 3, 3);
    }
  }
}

bool StudyProgressGrid::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const auto [row, column] = cellAt(help->pos());
    if (row >= 0 && column >= 0)
      QToolTip::showText(help->globalPos(), m_rows[row].cells[column].toolTip, this);
    else if (row >= 0)
      QToolTip::showText(
          help->globalPos(),
          (m_rows[row].description.isEmpty() ? m_rows[row].label : m_rows[row].description) +
              "\nClick to compare its runs",
          this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

void StudyProgressGrid::mousePressEvent(QMouseEvent* event) {
  const auto [row, column] = cellAt(event->pos());
  if (row >= 0) emit rowClicked(row);
  QWidget::mousePressEvent(event);
}

}  // namespace fl::widgets
