// StepTicker: tick labels for step counts that stay short in a small dashboard cell: 20000 is
// "20k", 1500000 is "1.5M". Five-digit labels four to an axis ran into each other there.
#pragma once

#include <qcustomplot.h>

namespace fl::widgets {

class StepTicker : public QCPAxisTicker {
 public:
  StepTicker() { setTickCount(4); }

 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
};

// "20k", "1.5M", "750": what StepTicker writes for `value`; a value three digits cannot say
// exactly (10025) is written whole.
QString compactCount(double value);

}  // namespace fl::widgets
