#include "widgets/cell_axis.h"

#include <algorithm>
#include <cmath>

#include <qcustomplot.h>

#include "widgets/step_ticker.h"

namespace fl::widgets {

namespace {

bool evenlySpaced(const std::vector<float>& ticks) {
  if (ticks.size() < 2) return true;
  const double step = ticks[1] - ticks[0];
  if (step == 0) return false;
  for (size_t i = 2; i < ticks.size(); ++i)
    if (std::abs((ticks[i] - ticks[i - 1]) - step) > 1e-3 * std::abs(step)) return false;
  return true;
}

// A coordinate as a tick reads it: whole numbers whole (lengths up to 65536 and more, never
// "6.55e+04"), others to three significant digits ("0.562", not "0.562341").
QString tickText(float value) {
  const double v = value;
  if (std::abs(v) < 1e15 && v == std::round(v)) return QString::number(std::llround(v));
  return QString::number(v, 'g', 3);
}

// A text ticker at most ~8 labels long (more would overlap in a dashboard cell), each label at
// its cell: at the cell's index, or at its tick value where the cells lie along the ticks.
QSharedPointer<QCPAxisTickerText> tickLabels(const std::vector<float>& ticks, bool atTickValues) {
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  const size_t stride = std::max<size_t>(1, (ticks.size() + 7) / 8);
  for (size_t i = 0; i < ticks.size(); i += stride)
    ticker->addTick(atTickValues ? static_cast<double>(ticks[i]) : static_cast<double>(i),
                    tickText(ticks[i]));
  ticker->setSubTickCount(0);
  return ticker;
}

}  // namespace

std::pair<double, double> layOutCells(QCPAxis* axis, const std::vector<float>& ticks, int cells) {
  const bool hasTicks = ticks.size() == static_cast<size_t>(cells) && cells > 0;
  // Descending ticks (FoPE's kept frequencies 1, 0.1) by index too: QCPRange puts the lower
  // coordinate first, so the first cell was drawn at the last tick, each row under another's
  // label.
  const bool descending = hasTicks && cells > 1 && ticks.front() > ticks.back();
  if (hasTicks && (!evenlySpaced(ticks) || descending)) {
    axis->setTicker(tickLabels(ticks, /*atTickValues=*/false));
    return {0.0, std::max(cells - 1, 1) * 1.0};
  }
  bool whole = true;
  for (float t : ticks) whole = whole && t == std::round(t);
  whole = whole || !hasTicks;
  // Fractional values (frequencies 1 and 0.316) are labelled at their cells only: numeric ticks
  // between and beyond two rows read -0.25 .. 1.25, frequencies no cell has.
  if (hasTicks && !whole && cells > 1) {
    axis->setTicker(tickLabels(ticks, /*atTickValues=*/true));
    return {ticks.front(), ticks.back()};
  }
  // Numeric ticks (again, if an earlier snapshot needed labels); whole ones where the cells
  // are whole numbers (layers, dimension pairs) or sit at their index (an axis without ticks):
  // no tick at layer 0.2.
  const bool wholeTicker = !axis->ticker().dynamicCast<IntegerTicker>().isNull();
  if (axis->ticker().dynamicCast<QCPAxisTickerText>() || whole != wholeTicker) {
    const int count = axis->ticker()->tickCount();
    axis->setTicker(whole ? QSharedPointer<QCPAxisTicker>(new IntegerTicker)
                          : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    axis->ticker()->setTickCount(count);
  }
  // One cell: QCPColorMap stretches it over the whole range, so it is given its edges, a unit
  // wide cell centred on its coordinate (its index, without ticks).
  if (cells == 1) {
    const double centre = hasTicks ? ticks[0] : 0.0;
    return {centre - 0.5, centre + 0.5};
  }
  if (!hasTicks) return {0.0, std::max(cells - 1, 1) * 1.0};
  return {ticks.front(), ticks.back()};
}

void showWholeCells(QCPAxis* axis, double first, double last, int cells) {
  const double lo = std::min(first, last), hi = std::max(first, last);
  // One cell is given by its edges: the range is the cell (wider, a single layer's row read as
  // two, from tick 0 to tick 1, or spanned ticks -1, 0, 1).
  if (cells <= 1) {
    axis->setRange(lo, hi);
    return;
  }
  const double half = (hi - lo) / (cells - 1) / 2;
  axis->setRange(lo - half, hi + half);
}

}  // namespace fl::widgets
