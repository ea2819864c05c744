#include "widgets/one_line_rows.h"

#include <QEvent>
#include <QHeaderView>
#include <QHelpEvent>
#include <QTableView>
#include <QToolTip>

namespace fl::widgets {

namespace {

// Shows a cut cell's whole text on hover (the model's own tooltips are left to the view).
class CutCellTips : public QObject {
 public:
  explicit CutCellTips(QTableView* table) : QObject(table), m_table(table) {}

  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::ToolTip) return QObject::eventFilter(watched, event);
    auto* help = static_cast<QHelpEvent*>(event);
    const QString tip = cutCellTip(*m_table, m_table->indexAt(help->pos()));
    if (tip.isEmpty()) return false;
    QToolTip::showText(help->globalPos(), tip, m_table->viewport());
    return true;
  }

 private:
  QTableView* m_table;
};

}  // namespace

void setOneLineRows(QTableView* table) {
  table->setWordWrap(false);
  table->setTextElideMode(Qt::ElideRight);
  // The text's height and the cell's margins: a progress bar drawn in the cell still holds its
  // text.
  QHeaderView* rows = table->verticalHeader();
  rows->setMinimumSectionSize(0);
  rows->setDefaultSectionSize(table->fontMetrics().height() + 8);
  rows->setSectionResizeMode(QHeaderView::Fixed);
  table->viewport()->installEventFilter(new CutCellTips(table));
}

QString cutCellTip(const QTableView& table, const QModelIndex& index) {
  if (!index.isValid() || index.data(Qt::ToolTipRole).isValid()) return {};
  const QString text = index.data(Qt::DisplayRole).toString();
  // The cell's room less its margins and, where it has one, its icon.
  int room = table.visualRect(index).width() - 8;
  if (index.data(Qt::DecorationRole).isValid()) room -= table.fontMetrics().height() + 4;
  return table.fontMetrics().horizontalAdvance(text) > room ? text : QString();
}

}  // namespace fl::widgets
