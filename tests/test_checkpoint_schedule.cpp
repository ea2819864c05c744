// Tests core/engine/checkpoint_schedule.h with a hand-driven clock: every Nth evaluation, and
// whatever that setting, once the time bound has passed since the last checkpoint.
#include <QtTest>

#include "core/engine/checkpoint_schedule.h"

class TestCheckpointSchedule : public QObject {
  Q_OBJECT

  double m_now = 0;
  fl::CheckpointSchedule::Clock clock() {
    return [this] { return m_now; };
  }

 private slots:
  void init() { m_now = 1000; }

  void everyNthEvaluation() {
    fl::CheckpointSchedule schedule(3, 60, clock());
    std::vector<bool> due;
    for (int i = 0; i < 7; ++i) due.push_back(schedule.dueAfterEvaluation());
    QCOMPARE(due, (std::vector<bool>{false, false, true, false, false, true, false}));
  }

  // With the defaults the first fourier-head checkpoint used to come at epoch 50: a run killed
  // before it had none. The time bound holds whatever checkpoint_every says.
  void theTimeBoundHoldsWithoutEvaluations() {
    fl::CheckpointSchedule schedule(0, 60, clock());  // no evaluation-driven checkpoints at all
    QVERIFY(!schedule.dueAfterEvaluation());
    m_now += 59;
    QVERIFY(!schedule.dueByTime());
    m_now += 1;
    QVERIFY(schedule.dueByTime());
    schedule.written();
    QVERIFY(!schedule.dueByTime());
    m_now += 30;
    QVERIFY(!schedule.dueByTime());
    m_now += 30;
    QVERIFY(schedule.dueByTime());
  }

  void anEvaluationCheckpointRestartsTheClock() {
    fl::CheckpointSchedule schedule(1, 10, clock());
    m_now += 8;
    QVERIFY(schedule.dueAfterEvaluation());
    schedule.written();
    m_now += 8;
    QVERIFY(!schedule.dueByTime());  // 8 s since the last checkpoint, not 16 since the start
    m_now += 2;
    QVERIFY(schedule.dueByTime());
  }
};

QTEST_APPLESS_MAIN(TestCheckpointSchedule)
#include "test_checkpoint_schedule.moc"
