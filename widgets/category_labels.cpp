#include "widgets/category_labels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <qcustomplot.h>

namespace fl::widgets {

namespace {

constexpr double kSlant = 30;  // degrees
constexpr int kGap = 8;        // px between level labels

}  // namespace

void setCategoryLabels(QCPAxis* axis, const QVector<double>& at, const QStringList& labels) {
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int i = 0; i < labels.size(); ++i) ticker->addTick(at[i], labels[i]);
  axis->setTicker(ticker);
}

void clearCategoryLabels(QCustomPlot* plot) {
  plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  plot->xAxis->ticker()->setTickCount(4);  // as setUpPlotFrame
  plot->xAxis->setTickLabelRotation(0);
  QMargins margins = plot->axisRect()->minimumMargins();
  margins.setRight(0);
  plot->axisRect()->setMinimumMargins(margins);
}

bool fitCategoryLabels(QCustomPlot* plot) {
  QCPAxis* axis = plot->xAxis;
  const auto ticker = axis->ticker().dynamicCast<QCPAxisTickerText>();
  QCPAxisRect* rect = plot->axisRect();
  if (!ticker || rect->width() <= 0) return false;
  const QFontMetrics metrics(axis->tickLabelFont());
  // The labels in view: their pixel positions and widths, and the closest two.
  struct Label {
    double at;
    int width;
  };
  std::vector<Label> shown;
  const auto ticks = ticker->ticks();
  for (auto it = ticks.cbegin(); it != ticks.cend(); ++it)
    if (axis->range().contains(it.key()))
      shown.push_back({axis->coordToPixel(it.key()), metrics.horizontalAdvance(it.value())});
  if (shown.empty()) return false;
  std::sort(shown.begin(), shown.end(), [](const Label& a, const Label& b) { return a.at < b.at; });
  double closest = std::numeric_limits<double>::infinity();
  int widest = 0;
  for (size_t i = 0; i < shown.size(); ++i) {
    widest = std::max(widest, shown[i].width);
    if (i) closest = std::min(closest, shown[i].at - shown[i - 1].at);
  }
  const bool slant = widest + kGap > closest;
  // How far right of the inner rect the labels reach: a level label by half its width, a
  // slanted one (drawn down and right from its tick) by w cos + h sin / 2.
  const double radians = kSlant * M_PI / 180;
  double overflow = 0;
  for (const Label& label : shown) {
    const double reach =
        slant ? label.width * std::cos(radians) + metrics.height() * std::sin(radians) / 2
              : label.width / 2.0;
    overflow = std::max(overflow, label.at + reach - rect->right());
  }
  // The right margin M that holds the last label whole. The rect and its margin share a fixed
  // width T = W + Mc (Mc the margin now); the last tick sits at share s of the rect, so its
  // label ends s (T - M) + reach from the rect's left, which must stay within T:
  // M >= (reach - (1 - s) T) / s = (o - (1 - s) Mc) / s, o how far it reaches past the rect now.
  const double lastShare = (shown.back().at - rect->left()) / std::max(1, rect->width());
  const int current = rect->margins().right();
  const double needed =
      std::max(0.0, (overflow - (1 - lastShare) * current + 2) / std::max(0.05, lastShare));
  QMargins margins = rect->minimumMargins();
  const int right = static_cast<int>(std::ceil(needed));
  const bool changed =
      std::abs(margins.right() - right) > 1 || axis->tickLabelRotation() != (slant ? kSlant : 0);
  if (!changed) return false;
  axis->setTickLabelRotation(slant ? kSlant : 0);
  margins.setRight(right);
  rect->setMinimumMargins(margins);
  return true;
}

}  // namespace fl::widgets
