#include "widgets/one_line_rows.h"

#include <QHeaderView>
#include <QTableView>

namespace fl::widgets {

void setOneLineRows(QTableView* table) {
  table->setWordWrap(false);
  table->setTextElideMode(Qt::ElideRight);
  // The text's height and the cell's margins: a progress bar drawn in the cell still holds its
  // text.
  QHeaderView* rows = table->verticalHeader();
  rows->setMinimumSectionSize(0);
  rows->setDefaultSectionSize(table->fontMetrics().height() + 8);
  rows->setSectionResizeMode(QHeaderView::Fixed);
}

}  // namespace fl::widgets
