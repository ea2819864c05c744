// Colours of runs. A run's colour follows from its number (run 1 the palette's first, run 11
// the first again), so it is the same in every session; runs shown together never share one:
// a run that would clash with another one on screen (runs 3 and 13) takes the first colour none
// of them has, and keeps it for the session. One RunColors serves the whole window, so a run has
// the same colour in every plot and table. A colour the reader picks for a run is kept for the
// session and taken by no other run shown with it. Within one run, the series of a panel differ by
// line style (seriesPen), never by paler shades of the run's colour.
//
//   RunColors colors;
//   colors.makeDistinct({3, 13});      // shown together: two colours
//   plot->setCurve(name, colors.of(3), ...);
#pragma once

#include <QColor>
#include <QPen>
#include <QString>

#include <cstdint>
#include <map>
#include <vector>

namespace fl::widgets {

// Ten hues readable on white and far apart from each other as thin lines, in the order runs take
// them.
int runPaletteSize();
QColor runPaletteColor(int index);

class RunColors {
 public:
  // The run's colour: its number's at first sight (unless made distinct), then always the same.
  QColor of(int64_t runId);
  // Runs shown together get pairwise distinct colours (as long as the palette has enough);
  // runs with a chosen colour and then earlier runs in the list keep theirs.
  void makeDistinct(const std::vector<int64_t>& runIds);
  // The reader's colour for a run: kept until chosen again (an invalid colour: back to the
  // palette).
  void choose(int64_t runId, const QColor& color);
  bool isChosen(int64_t runId) const { return m_chosen.count(runId) > 0; }

 private:
  std::map<int64_t, int> m_index;
  std::map<int64_t, QColor> m_chosen;
};

// The pen of series `position` among one run's series in a panel: the run's colour, a line
// style per position (solid, dashed, dotted, dash-dot, dash-dot-dot, long dashes, long dash-dot,
// sparse dots), darker past eight.
QPen seriesPen(const QColor& runColor, int position, double width = 1.6);

// A pen's line style as text, the same for pens drawn alike whatever their colour or width
// ("" solid, "4 2" dashes): what tells one run's series apart (custom dashes all share
// Qt::CustomDashLine, so the pen style alone does not).
QString lineStyleOf(const QPen& pen);

// The neutral colour of a truth (the same for every run: drawn once, not per run).
QColor truthColor();

}  // namespace fl::widgets
