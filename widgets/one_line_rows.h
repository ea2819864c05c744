// Table rows one line of text high, as TensorBoard's and W&B's run tables: a cell's longer text
// ends in "…" (its tooltip holds the whole) rather than wrapping onto a second line that Qt's
// default row height cuts in half. Three runs take the height of two at the default height.
#pragma once

class QTableView;

namespace fl::widgets {

void setOneLineRows(QTableView* table);

}  // namespace fl::widgets
