// A stable colour per run: the same run id gets the same colour in every plot and table.
#pragma once

#include <QColor>

#include <cstdint>

namespace fl::widgets {

inline QColor runColor(int64_t runId) {
  // A qualitative palette (Tableau 10), cycled by id.
  static const QColor palette[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
                                   QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75),
                                   QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34),
                                   QColor(23, 190, 207)};
  return palette[static_cast<size_t>((runId % 10 + 10) % 10)];
}

// Shade `position` of a colour, for several curves of one run in one panel (one per metric key
// or snapshot row): the run stays recognisable by hue while its curves differ. Alternates darker
// and lighter so that six or so shades stay apart instead of sliding into black.
inline QColor shade(const QColor& color, int position) {
  if (position <= 0) return color;
  const int step = (position + 1) / 2;  // 1, 1, 2, 2, 3, ...
  return position % 2 == 1 ? color.darker(100 + 45 * step) : color.lighter(100 + 35 * step);
}

}  // namespace fl::widgets
