// TextTableModel: a read-only table of text cells for small tables built at once (the config
// values that differ between compared runs, the studies of a store): each cell a text, an
// optional sort value, colour and tooltip. Set whole with setRows(); columns are named, so
// code and tests find a column by its title, not its position.
#pragma once

#include <QAbstractTableModel>
#include <QColor>
#include <QStringList>
#include <QVariant>
#include <QVector>

namespace fl::widgets {

struct TextCell {
  QString text;
  QVariant sortValue;  // sorts by this when valid (numbers), else by the text
  QColor color;        // the text's, when valid
  QString toolTip;
};

class TextTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  using QAbstractTableModel::QAbstractTableModel;

  void setRows(const QStringList& headers, QVector<QVector<TextCell>> rows,
               QVector<QVariant> rowKeys = {});
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  int column(const QString& header) const { return m_headers.indexOf(header); }
  QString text(int row, const QString& header) const;
  // What each row stands for (a run id, a study id), as given to setRows.
  QVariant rowKey(int row) const { return m_keys.value(row); }

  static constexpr int kSortRole = Qt::UserRole + 41;

 private:
  QStringList m_headers;
  QVector<QVector<TextCell>> m_rows;
  QVector<QVariant> m_keys;
};

}  // namespace fl::widgets
