// Tickers for counts. StepTicker labels step counts short enough for a small dashboard cell
// (20000 is "20k", 1500000 is "1.5M"; five-digit labels four to an axis ran into each other
// there) and never puts a tick between two steps. IntegerTicker does the same for any axis
// whose values are whole numbers (layers, heads, frequencies, periods): no 2.5th head.
#pragma once

#include <qcustomplot.h>

namespace fl::widgets {

class IntegerTicker : public QCPAxisTicker {
 public:
  IntegerTicker() { setTickCount(4); }

 protected:
  double getTickStep(const QCPRange& range) override;
  int getSubTickCount(double tickStep) override;
};

class StepTicker : public IntegerTicker {
 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                       int precision) override;
  QVector<QString> createLabelVector(const QVector<double>& ticks, const QLocale& locale,
                                     QChar formatChar, int precision) override;
};

// "20k", "1.5M", "750": what StepTicker writes for `value`; a value three digits cannot say
// exactly (10025) is written whole.
QString compactCount(double value);

// One axis's labels in one form: compact where every tick is said exactly so, else all whole
// ("1249, 1250, 1251", not "1249, 1.25k, 1251", which read as three scales).
QVector<QString> compactCounts(const QVector<double>& ticks);

// True when every finite value is a whole number (and there is at least one).
bool allWholeNumbers(const QVector<double>& values);

}  // namespace fl::widgets
