// Tests core/engine/checkpoint_keeper.h: the last and the best are kept, nothing else.
#include <QtTest>

#include "core/engine/checkpoint_keeper.h"

class TestCheckpointKeeper : public QObject {
  Q_OBJECT

 private slots:
  void keepsTheLastAndTheBest() {
    fl::CheckpointKeeper keeper(fl::SelectionMetric{"test/kl", true});
    QVERIFY(keeper.add(1, "a", 0.5).empty());
    QCOMPARE(keeper.add(2, "b", 0.3), std::vector<std::string>{"a"});  // b is last and best
    QVERIFY(keeper.add(3, "c", 0.4).empty());                          // b best, c last
    QCOMPARE(keeper.add(4, "d", 0.6), std::vector<std::string>{"c"});  // b best, d last
    QCOMPARE(keeper.add(5, "e", 0.1), (std::vector<std::string>{"d", "b"}));
    QCOMPARE(*keeper.lastPath(), std::string("e"));
    QCOMPARE(*keeper.bestPath(), std::string("e"));
  }

  void higherIsBetterWhenSaid() {
    fl::CheckpointKeeper keeper(fl::SelectionMetric{"acc", false});
    keeper.add(1, "a", 0.5);
    keeper.add(2, "b", 0.9);
    keeper.add(3, "c", 0.7);
    QCOMPARE(*keeper.bestPath(), std::string("b"));
  }

  void withoutAMetricOnlyTheLastIsKept() {
    fl::CheckpointKeeper keeper(std::nullopt);
    keeper.add(1, "a", std::nullopt);
    QCOMPARE(keeper.add(2, "b", std::nullopt), std::vector<std::string>{"a"});
    QVERIFY(!keeper.bestPath());
  }

  void nanScoresNeverBecomeBest() {
    fl::CheckpointKeeper keeper(fl::SelectionMetric{"test/kl", true});
    keeper.add(1, "a", 0.5);
    keeper.add(2, "b", std::nan(""));
    QCOMPARE(*keeper.bestPath(), std::string("a"));
  }
};

QTEST_APPLESS_MAIN(TestCheckpointKeeper)
#include "test_checkpoint_keeper.moc"
