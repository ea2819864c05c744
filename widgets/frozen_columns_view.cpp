#include "widgets/frozen_columns_view.h"

#include <QHeaderView>
#include <QScrollBar>

namespace fl::widgets {

FrozenColumnsView::FrozenColumnsView(int frozenColumns, QWidget* parent)
    : QTableView(parent), m_frozen(new QTableView(this)), m_count(frozenColumns) {
  m_frozen->setFocusPolicy(Qt::NoFocus);
  m_frozen->verticalHeader()->hide();
  m_frozen->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_frozen->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_frozen->setStyleSheet("QTableView { border: none; border-right: 1px solid #aaa; }");
  m_frozen->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_frozen->setVerticalScrollMode(ScrollPerPixel);
  setVerticalScrollMode(ScrollPerPixel);
  setHorizontalScrollMode(ScrollPerPixel);
  viewport()->stackUnder(m_frozen);
  connect(horizontalHeader(), &QHeaderView::sectionResized, this,
          [this](int logical, int, int size) {
            if (logical < m_count) {
              m_frozen->setColumnWidth(logical, size);
              updateFrozen();
            }
          });
  connect(verticalHeader(), &QHeaderView::sectionResized, this,
          [this](int logical, int, int size) { m_frozen->setRowHeight(logical, size); });
  // Never sideways: the shared current cell in a column hidden here (a refresh keeps it, after a
  // tag) made the frozen view scroll to it, showing the name where the id belongs.
  connect(m_frozen->horizontalScrollBar(), &QAbstractSlider::valueChanged, this, [this](int value) {
    if (value != 0) m_frozen->horizontalScrollBar()->setValue(0);
  });
  connect(m_frozen->verticalScrollBar(), &QAbstractSlider::valueChanged, verticalScrollBar(),
          &QAbstractSlider::setValue);
  connect(verticalScrollBar(), &QAbstractSlider::valueChanged, m_frozen->verticalScrollBar(),
          &QAbstractSlider::setValue);
  // A click on a frozen column's header sorts the table as a click on the main header would.
  connect(m_frozen->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int section) {
    if (!isSortingEnabled()) return;
    const bool same = horizontalHeader()->sortIndicatorSection() == section;
    const Qt::SortOrder order =
        same && horizontalHeader()->sortIndicatorOrder() == Qt::AscendingOrder ? Qt::DescendingOrder
                                                                               : Qt::AscendingOrder;
    sortByColumn(section, order);
  });
  connect(horizontalHeader(), &QHeaderView::sortIndicatorChanged, m_frozen->horizontalHeader(),
          &QHeaderView::setSortIndicator);
  m_frozen->horizontalHeader()->setSortIndicatorShown(true);
  connect(m_frozen, &QTableView::doubleClicked, this, &QTableView::doubleClicked);
}

void FrozenColumnsView::setModel(QAbstractItemModel* model) {
  QTableView::setModel(model);
  m_frozen->setModel(model);
  m_frozen->setSelectionModel(selectionModel());
  auto hideOthers = [this] {
    for (int c = 0; c < m_frozen->model()->columnCount(); ++c) {
      m_frozen->setColumnHidden(c, c >= m_count);
      if (c < m_count) m_frozen->setColumnWidth(c, columnWidth(c));
    }
    updateFrozen();
  };
  connect(model, &QAbstractItemModel::modelReset, this, hideOthers);
  connect(model, &QAbstractItemModel::columnsInserted, this, hideOthers);
  connect(model, &QAbstractItemModel::layoutChanged, this, hideOthers);
  hideOthers();
}

void FrozenColumnsView::updateFrozen() {
  // The frozen view's own widths, not ours: within resizeColumnsToContents() our header emits
  // sectionResized before it stores the new size, so columnWidth() there is still the old one
  // (the pane kept the old width: a blank strip, or names cut off beside the main view's own).
  int width = 0;
  for (int c = 0; c < m_count && model() && c < model()->columnCount(); ++c)
    width += m_frozen->columnWidth(c);
  m_frozen->setGeometry(verticalHeader()->width() + frameWidth(), frameWidth(), width,
                        viewport()->height() + horizontalHeader()->height());
  m_frozen->setVisible(width > 0);
}

void FrozenColumnsView::resizeEvent(QResizeEvent* event) {
  QTableView::resizeEvent(event);
  updateFrozen();
}

QModelIndex FrozenColumnsView::moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) {
  QModelIndex current = QTableView::moveCursor(action, modifiers);
  // Keyboard moves to a column hidden under the frozen ones scroll it out from under them.
  if (action == MoveLeft && current.column() >= m_count &&
      visualRect(current).topLeft().x() < m_frozen->width()) {
    const int shift = visualRect(current).topLeft().x() - m_frozen->width();
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() + shift);
  }
  return current;
}

void FrozenColumnsView::scrollTo(const QModelIndex& index, ScrollHint hint) {
  if (index.column() >= m_count) QTableView::scrollTo(index, hint);
}

}  // namespace fl::widgets
