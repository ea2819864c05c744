// Marks at named places on a plot's x axis, asked for by a snapshot's meta "x_marks"
// ([{"at": 20, "label": "period 10"}, ...]): where a reader should look, such as the paper's
// periods on a frequency axis. Over curves they are dashed lines with a label; over an image,
// where a line would hide the very column it points at, they are ticks on a top axis. A mark
// outside the drawn x range is left out rather than stretching the axis to it.
#pragma once

#include <QColor>
#include <QFont>
#include <QList>
#include <QString>
#include <vector>

#include "core/engine/events.h"

class QCustomPlot;
class QCPAbstractItem;

namespace fl::widgets {

struct XMark {
  double at = 0;
  QString label;
};

// The snapshot's marks; none when its meta has no well-formed "x_marks".
std::vector<XMark> xMarks(const Snapshot& snapshot);

// What draws one plot's marks: show() replaces the previous marks with new ones, after the
// plot's x range is set.
class XMarkItems {
 public:
  enum class Style { Lines, TopAxisTicks };
  XMarkItems(QCustomPlot* plot, Style style, QColor color = QColor(90, 90, 90));
  void show(const std::vector<XMark>& marks);
  // The same marks again, for the plot's new width: labels that did not fit may now, and the
  // other way round.
  void refit();

 private:
  QFont labelFont() const;
  // Whether each mark's label is drawn: not where it would overlap a label kept before it.
  std::vector<bool> labelsThatFit(const std::vector<XMark>& marks) const;
  void showLines(const std::vector<XMark>& marks);
  void showTopTicks(const std::vector<XMark>& marks);

  QCustomPlot* m_plot;
  Style m_style;
  QColor m_color;
  QList<QCPAbstractItem*> m_items;
  std::vector<XMark> m_marks;  // the last shown
};

}  // namespace fl::widgets
