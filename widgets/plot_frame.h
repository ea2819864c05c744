// The common frame of every FourierLab plot: a bold title row, axis labels, a one-column legend
// in its own column right of the axes (so it never hides data and long run names are never
// cut), a minimum size for dashboard cells, and few x ticks so labels stay apart in small panels.
#pragma once

#include <QString>

class QCustomPlot;

namespace fl::widgets {

void setUpPlotFrame(QCustomPlot* plot, const QString& title, const QString& xLabel,
                    const QString& yLabel, bool legend);

// Shows the legend when it has between 1 and kMaxLegendEntries entries; past that it would
// squeeze the axes, and hovering names the curves instead. A hidden legend gives its room back.
constexpr int kMaxLegendEntries = 10;
void fitLegend(QCustomPlot* plot);

// As many x ticks as the axis has room for (one per ~70 px, 1 to 6), so labels never touch in
// a narrow cell. Uses the axis width of the last layout; call before each replot.
void fitTicks(QCustomPlot* plot);

// Writes the plot as SVG at its current size (QCustomPlot saves PNG and PDF itself).
bool savePlotSvg(QCustomPlot* plot, const QString& path);

}  // namespace fl::widgets
