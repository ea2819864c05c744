#include "app/gui/metrics_table_model.h"

#include <QColor>

#include "app/gui/metric_order.h"
#include "app/gui/run_views.h"
#include "widgets/run_colors.h"

namespace fl::gui {

MetricsTableModel::MetricsTableModel(RunViews& views, widgets::RunColors& colors, QObject* parent)
    : QAbstractTableModel(parent), m_views(views), m_colors(colors) {}

QStringList MetricsTableModel::currentKeys() const {
  QStringList keys;
  for (auto id : m_runs)
    if (const RunView* view = m_views.find(id))
      for (const auto& [key, series] : view->metrics())
        if (!series.values.empty()) keys << QString::fromStdString(key);
  return inReadingOrder(keys);
}

void MetricsTableModel::setRuns(std::vector<int64_t> runIds) {
  beginResetModel();
  m_runs = std::move(runIds);
  m_keys = currentKeys();
  endResetModel();
}

void MetricsTableModel::update() {
  const QStringList keys = currentKeys();
  if (keys != m_keys) {
    beginResetModel();
    m_keys = keys;
    endResetModel();
    return;
  }
  if (!m_runs.empty() && !m_keys.isEmpty())
    emit dataChanged(index(0, 1), index(rowCount() - 1, columnCount() - 1));
}

void MetricsTableModel::coloursChanged() {
  if (!m_runs.empty())
    emit dataChanged(index(0, 0), index(rowCount() - 1, 0), {Qt::DecorationRole});
}

int MetricsTableModel::column(const QString& key) const {
  const int c = m_keys.indexOf(key);
  return c < 0 ? -1 : c + 1;
}

int MetricsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int MetricsTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_keys.size()) + 1;
}

QVariant MetricsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == 0 ? QString("run") : m_keys.value(section - 1);
}

QVariant MetricsTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const int64_t id = m_runs[static_cast<size_t>(index.row())];
  if (index.column() == 0) {
    if (role == Qt::DisplayRole) return QString("#%1").arg(id);
    if (role == Qt::DecorationRole) return m_colorOf ? m_colorOf(id) : m_colors.of(id);
    return {};
  }
  const RunView* view = m_views.find(id);
  if (!view || (role != Qt::DisplayRole && role != Qt::ToolTipRole)) return {};
  auto it = view->metrics().find(m_keys.value(index.column() - 1).toStdString());
  if (it == view->metrics().end() || it->second.values.empty()) return "-";
  const double value = it->second.values.back();
  if (role == Qt::ToolTipRole)
    return QString("%1 at step %2").arg(value, 0, 'g', 10).arg(it->second.steps.back(), 0, 'f', 0);
  return QString::number(value, 'g', 5);
}

}  // namespace fl::gui
