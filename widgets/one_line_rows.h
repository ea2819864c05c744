// Table rows one line of text high, as TensorBoard's and W&B's run tables: a cell's longer text
// ends in "…" rather than wrapping onto a second line that Qt's default row height cuts in half.
// Three runs take the height of two at the default height. Hovering a cut cell shows its whole
// text where the model gives the cell no tooltip of its own.
#pragma once

#include <QModelIndex>
#include <QString>

class QTableView;

namespace fl::widgets {

void setOneLineRows(QTableView* table);

// What hovering the cell at `index` shows beside the model's own tooltips: its whole text where
// the column cuts it, else nothing.
QString cutCellTip(const QTableView& table, const QModelIndex& index);

}  // namespace fl::widgets
