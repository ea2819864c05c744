// LogTicker: a log axis's ticks that label the data whatever its span. QCustomPlot's log
// ticker labels powers of ten, and over less than 1.6 decades falls back to linear steps: KL
// from 0.5 to 12 was labelled 2.5, 5, 7.5, 10, 12.5, leaving the runs between 0.5 and 1 with
// no label. Over such a span this one labels 1, 2 and 5 times the powers of ten, or where that
// gives fewer than three 1, 2, 3 and 5 times them, then every digit, then every half digit (no
// more than six labels where a coarser choice gave two), with the other digits as sub-ticks;
// a top past the last of these, wider than their widest step, gets up to two tenths (1.1, 1.2);
// wider spans keep QCustomPlot's powers of ten where at least three of them fall inside.
#pragma once

#include <qcustomplot.h>

namespace fl::widgets {

class LogTicker : public QCPAxisTickerLog {
 protected:
  QVector<double> createTickVector(double tickStep, const QCPRange& range) override;
  QVector<double> createSubTickVector(int subTickCount, const QVector<double>& ticks) override;

 private:
  bool m_digitTicks = false;  // the last ticks were digits times powers of ten
};

// The ticks LogTicker puts on `range` (positive) where it does not use QCustomPlot's powers of
// ten: exposed for tests.
QVector<double> logTicksOf(const QCPRange& range);
// Whether QCustomPlot's powers of ten label `range` (more than 1.6 decades, three of them inside).
bool powersOfTenSuffice(const QCPRange& range);

}  // namespace fl::widgets
