// Tests widgets/run_colors.h: every run on screen together gets a colour of its own,
// even past the palette's ten (ids 2 and 12 used to be the same green); a run keeps its colour;
// one run's series differ by pen; the palette has no pale lines on white.
#include <QtTest>

#include <QRandomGenerator>

#include <algorithm>
#include <set>

#include "widgets/run_colors.h"

using fl::widgets::RunColors;

class TestRunColors : public QObject {
  Q_OBJECT

 private slots:
  void runsShownTogetherHaveDistinctColours() {
    RunColors colors;
    for (int64_t id = 1; id <= 11; ++id) colors.of(id);  // the palette wraps at the eleventh
    QCOMPARE(colors.of(1), colors.of(11));
    colors.makeDistinct({2, 12});
    QVERIFY(colors.of(2) != colors.of(12));
    const std::vector<int64_t> shown{1, 11, 21, 31, 3};
    colors.makeDistinct(shown);
    std::set<QRgb> seen;
    for (auto id : shown) seen.insert(colors.of(id).rgb());
    QCOMPARE(seen.size(), shown.size());
  }

  // A colour the reader picks sticks to its run and is taken by no other run shown with it, over
  // many random groups; choosing an invalid colour gives the palette's back.
  void aChosenColourSticksAndIsNoOtherRunsOnScreen() {
    QRandomGenerator random(11);
    for (int trial = 0; trial < 200; ++trial) {
      RunColors colors;
      std::vector<int64_t> shown;
      for (int i = 0, n = 2 + static_cast<int>(random.bounded(8)); i < n; ++i)
        shown.push_back(1 + random.bounded(40));
      std::sort(shown.begin(), shown.end());
      shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
      for (auto id : shown) colors.of(id);
      const int64_t picked = shown[random.bounded(static_cast<int>(shown.size()))];
      // Often another shown run's own palette colour: the one most likely to clash.
      const QColor chosen = fl::widgets::runPaletteColor(static_cast<int>(random.bounded(10)));
      colors.choose(picked, chosen);
      colors.makeDistinct(shown);
      QCOMPARE(colors.of(picked), chosen);
      std::set<QRgb> seen;
      for (auto id : shown) seen.insert(colors.of(id).rgb());
      QCOMPARE(seen.size(), shown.size());
      QVERIFY(colors.isChosen(picked));
      colors.choose(picked, QColor());
      QVERIFY(!colors.isChosen(picked));
    }
  }

  // A run's colour follows from its number, not from what a session showed before: runs 9, 10
  // and 11 compared live after eight others, and opened in a fresh session, look the same.
  void aRunHasTheSameColourInEverySession() {
    RunColors live, reopened;
    for (int64_t id = 1; id <= 8; ++id) live.of(id);
    live.makeDistinct({9, 10, 11});
    reopened.makeDistinct({9, 10, 11});
    for (int64_t id : {9, 10, 11}) QCOMPARE(live.of(id), reopened.of(id));
    QCOMPARE(RunColors().of(4), fl::widgets::runPaletteColor(3));
    QCOMPARE(RunColors().of(14), fl::widgets::runPaletteColor(3));
  }

  void aRunKeepsItsColour() {
    RunColors colors;
    const QColor first = colors.of(7);
    colors.of(8);
    colors.makeDistinct({7, 8});
    QCOMPARE(colors.of(7), first);  // the first of a group keeps its colour
  }

  void aRunsSeriesDifferByPen() {
    std::set<std::pair<int, QRgb>> pens;
    for (int i = 0; i < 15; ++i) {
      const QPen pen = fl::widgets::seriesPen(QColor(31, 119, 180), i);
      pens.insert({static_cast<int>(pen.style()), pen.color().rgb()});
    }
    QCOMPARE(pens.size(), size_t(15));
  }

  void thePaletteReadsOnWhite() {
    std::set<QRgb> colors;
    for (int i = 0; i < fl::widgets::runPaletteSize(); ++i) {
      const QColor c = fl::widgets::runPaletteColor(i);
      colors.insert(c.rgb());
      // Relative luminance below that of pale yellow-green (188, 189, 34): enough contrast with
      // white for a 1.6 px line.
      const double luminance = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF();
      QVERIFY2(luminance < 0.62, qPrintable(c.name()));
    }
    QCOMPARE(static_cast<int>(colors.size()), fl::widgets::runPaletteSize());
  }
};

QTEST_APPLESS_MAIN(TestRunColors)
#include "test_run_colors.moc"
