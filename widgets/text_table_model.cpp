#include "widgets/text_table_model.h"

namespace fl::widgets {

void TextTableModel::setRows(const QStringList& headers, QVector<QVector<TextCell>> rows,
                             QVector<QVariant> rowKeys) {
  beginResetModel();
  m_headers = headers;
  m_rows = std::move(rows);
  m_keys = std::move(rowKeys);
  endResetModel();
}

int TextTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int TextTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_headers.size());
}

QVariant TextTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_rows.size()) return {};
  const auto& row = m_rows[index.row()];
  if (index.column() >= row.size()) return {};
  const TextCell& cell = row[index.column()];
  switch (role) {
    case Qt::DisplayRole:
      return cell.text;
    case Qt::ToolTipRole:
      return cell.toolTip.isEmpty() ? QVariant() : QVariant(cell.toolTip);
    case Qt::ForegroundRole:
      return cell.color.isValid() ? QVariant(cell.color) : QVariant();
    case kSortRole:
      return cell.sortValue.isValid() ? cell.sortValue : QVariant(cell.text);
    default:
      return {};
  }
}

QVariant TextTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  return m_headers.value(section);
}

QString TextTableModel::text(int row, const QString& header) const {
  const int c = column(header);
  if (c < 0 || row < 0 || row >= m_rows.size() || c >= m_rows[row].size()) return {};
  return m_rows[row][c].text;
}

}  // namespace fl::widgets
