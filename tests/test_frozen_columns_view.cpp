// Tests widgets/frozen_columns_view.h: the first columns stay in place, whatever the current
// cell or the main view's sideways scroll.
#include <QtTest>

#include <QHeaderView>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>

#include "widgets/frozen_columns_view.h"

using fl::widgets::FrozenColumnsView;

class TestFrozenColumnsView : public QObject {
  Q_OBJECT

 private slots:
  // A current cell to the right (History keeps it across a refresh, after a tag) scrolled the
  // frozen view to it: its first column showed the name, not the id, with a blank beside it.
  void theFrozenColumnsNeverScrollSideways() {
    QStandardItemModel model(30, 40);
    for (int r = 0; r < model.rowCount(); ++r)
      for (int c = 0; c < model.columnCount(); ++c)
        model.setItem(r, c, new QStandardItem(QString("cell %1,%2").arg(r).arg(c)));
    FrozenColumnsView view(2);
    view.setModel(&model);
    view.resize(500, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTableView* frozen = view.frozenView();
    for (int column : {39, 20, 1, 2, 39}) {
      view.setCurrentIndex(model.index(5, column));
      QCOMPARE(frozen->horizontalScrollBar()->value(), 0);
      QCOMPARE(frozen->columnViewportPosition(0), 0);
    }
    frozen->setCurrentIndex(model.index(7, 30));
    QCOMPARE(frozen->columnViewportPosition(0), 0);
    // The main view scrolled right and the model refreshed: the frozen columns are still first.
    view.horizontalScrollBar()->setValue(view.horizontalScrollBar()->maximum());
    model.insertColumn(40);
    QCOMPARE(frozen->columnViewportPosition(0), 0);
    QVERIFY(!frozen->isColumnHidden(1) && frozen->isColumnHidden(2));
  }

  // History narrows its rows by a filter and sizes the columns to their contents: the frozen
  // pane kept the width the columns had before (a blank strip beside shorter names; longer
  // names cut off, with the main view's own name column showing beside them).
  void theFrozenPaneFollowsColumnsSizedToContents() {
    QStandardItemModel model(6, 8);
    for (int r = 0; r < model.rowCount(); ++r)
      for (int c = 0; c < model.columnCount(); ++c)
        model.setItem(r, c,
                      new QStandardItem(c == 1 && r % 2 ? QString("a long run name %1").arg(r)
                                                        : QString("n%1").arg(r)));
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setFilterKeyColumn(1);
    FrozenColumnsView view(2);
    view.setModel(&proxy);
    view.resize(600, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTableView* frozen = view.frozenView();
    auto frozenMatches = [&] {
      int sum = 0;
      for (int c = 0; c < view.frozenColumns(); ++c) {
        if (frozen->columnWidth(c) != view.columnWidth(c)) return false;
        sum += view.columnWidth(c);
      }
      return frozen->width() == sum &&
             frozen->x() == view.verticalHeader()->width() + view.frameWidth();
    };
    view.resizeColumnsToContents();
    QVERIFY(frozenMatches());
    const int wide = view.columnWidth(1);
    proxy.setFilterRegularExpression("^n");  // only the short names: the name column narrows
    view.resizeColumnsToContents();
    QVERIFY(view.columnWidth(1) < wide);
    QVERIFY(frozenMatches());
    proxy.setFilterRegularExpression(QString());  // every row again: it widens
    view.resizeColumnsToContents();
    QCOMPARE(view.columnWidth(1), wide);
    QVERIFY(frozenMatches());
  }
};

QTEST_MAIN(TestFrozenColumnsView)
#include "test_frozen_columns_view.moc"
