// The common frame of every FourierLab plot: a bold title row, axis labels, a legend in its own
// row under the axes (so it never hides data), a minimum size for dashboard cells, and few
// x ticks so labels stay apart in small panels.
#pragma once

#include <QString>

class QCustomPlot;

namespace fl::widgets {

void setUpPlotFrame(QCustomPlot* plot, const QString& title, const QString& xLabel,
                    const QString& yLabel, bool legend);

// Writes the plot as SVG at its current size (QCustomPlot saves PNG and PDF itself).
bool savePlotSvg(QCustomPlot* plot, const QString& path);

}  // namespace fl::widgets
