// Tests widgets/checklist_menu: a click or Space on a tick toggles it and leaves the menu open,
// so several arms are chosen in one visit; a plain action, Return and a click outside still
// close it.
#include <QtTest>

#include <QAction>

#include "widgets/checklist_menu.h"

class TestChecklistMenu : public QObject {
  Q_OBJECT

 private slots:
  void ticksToggleAndTheMenuStaysOpen() {
    fl::widgets::ChecklistMenu menu;
    QAction* linear = menu.addAction("linear");
    QAction* fourier = menu.addAction("fourier");
    for (auto* a : {linear, fourier}) {
      a->setCheckable(true);
      a->setChecked(true);
    }
    QAction* plain = menu.addAction("choose all");
    QSignalSpy toggled(fourier, &QAction::toggled);
    menu.popup(QPoint(0, 0));
    QVERIFY(QTest::qWaitForWindowExposed(&menu));

    const QPoint onFourier = menu.actionGeometry(fourier).center();
    QTest::mouseMove(&menu, onFourier);
    QTRY_COMPARE(menu.activeAction(), fourier);
    QTest::mouseClick(&menu, Qt::LeftButton, {}, onFourier);
    QVERIFY(!fourier->isChecked());
    QCOMPARE(toggled.count(), 1);
    QVERIFY(menu.isVisible());
    // Again: back on, still open.
    QTest::mouseClick(&menu, Qt::LeftButton, {}, onFourier);
    QVERIFY(fourier->isChecked());
    QVERIFY(menu.isVisible());

    // Space on the highlighted tick toggles it too, and the menu stays.
    menu.setActiveAction(linear);
    QTest::keyClick(&menu, Qt::Key_Space);
    QVERIFY(!linear->isChecked());
    QVERIFY(menu.isVisible());

    // An action that is no tick closes the menu, as any menu's does.
    QSignalSpy triggered(plain, &QAction::triggered);
    const QPoint onPlain = menu.actionGeometry(plain).center();
    QTest::mouseMove(&menu, onPlain);
    QTRY_COMPARE(menu.activeAction(), plain);
    QTest::mouseClick(&menu, Qt::LeftButton, {}, onPlain);
    QCOMPARE(triggered.count(), 1);
    QTRY_VERIFY(!menu.isVisible());
  }

  void returnTicksAndCloses() {
    fl::widgets::ChecklistMenu menu;
    QAction* arm = menu.addAction("arm");
    arm->setCheckable(true);
    menu.popup(QPoint(0, 0));
    QVERIFY(QTest::qWaitForWindowExposed(&menu));
    menu.setActiveAction(arm);
    QTest::keyClick(&menu, Qt::Key_Return);
    QVERIFY(arm->isChecked());
    QTRY_VERIFY(!menu.isVisible());
  }
};

QTEST_MAIN(TestChecklistMenu)
#include "test_checklist_menu.moc"
