// The common frame of every FourierLab plot: a bold title row, axis labels, a legend in its own
// column right of the axes (so it never hides data), a minimum size for dashboard cells, and
// few x ticks so labels stay apart in small panels.
#pragma once

#include <QColor>
#include <QFont>
#include <QList>
#include <QPair>
#include <QPen>
#include <QString>

#include <climits>

class QCustomPlot;
class QCPColorGradient;
class QCPGraph;
class QCPTextElement;

namespace fl::widgets {

void setUpPlotFrame(QCustomPlot* plot, const QString& title, const QString& xLabel,
                    const QString& yLabel, bool legend);

// The legend's share of the plot's width at most: longer names are elided in their middle, so
// the axes keep the rest. A legend takes only what its names need; at 0.28 a comparison's
// "#2 fourier N=4" was elided in a 1280-wide window's panels ("#2 fo…r N=4").
constexpr double kLegendWidthShare = 0.34;

// A legend name as drawn in `width` pixels: whole when it fits, else its start and its last word
// whole with "…" between ("#21 fo… mse_argmax"): a curve's name starts with its run's number
// and ends with what sets it apart from its neighbours (the metric of a two-metric panel, the
// seed), so both stay; where the last word leaves no room, its start and its end ("#21…argmax").
// Settings' names ("frequencies=4") are cut first, their values kept ("freq…=4", "f…=4").
QString legendName(const QString& name, const QFont& font, int width);

// Curve plots name at most this many curves in a legend: more rows would take the plot's room
// and still not say which line is which at a glance; the hover readout names them all.
constexpr int kCompactLegendEntries = 6;

// Lays the legend out for the plot's current size: every entry named, one column when they fit
// the height, two when that fits the width share, none (hover names the curves) past that or
// past `maxEntries`; names elided to the width share. Call before each replot. Returns whether
// the legend is shown.
bool fitLegend(QCustomPlot* plot, int maxEntries = INT_MAX);

// A legend of compared runs' several series: a key per run, in its colour, and a key per line
// style, in grey (the colour is a run's), instead of a row per curve.
QPen runKeyPen(const QColor& runColor);
QPen styleKeyPen(const QPen& line);  // `line`'s style and dashes, in grey
// Replaces the legend's rows by these keys (curves without points named and drawn as given;
// the axes never see them) and returns them, for their owner to remove.
QList<QCPGraph*> showLegendKeys(QCustomPlot* plot, const QList<QPair<QString, QPen>>& keys);

// As many x ticks as the axis has room for (one per ~70 px, 1 to 6), so labels never touch in
// a narrow cell. Uses the plot's width now; call on a resize and before each replot.
void fitTicks(QCustomPlot* plot);

// Curves of bounded values (an accuracy) read on their bounds' whole range and this share of
// it beyond either end: a line at 0 or 1 drawn on the axis line would be hidden by it.
constexpr double kBoundedCurveMargin = 0.03;

// What a panel that has nothing of the shown run says: "yet" only while the run can still give
// it; an ended run (finished, failed, ...) never will (standard attention has no filter to plot).
QString noDataCaption(bool runEnded);

// The colours of a heatmap of values of one sign: dark violet through blue and green to yellow
// (viridis's stops), every one readable on white; QCustomPlot's thermal scale ends in white, so
// the largest cell looked like a missing one. NaN cells are transparent (blank).
QCPColorGradient sequentialGradient();

// What a note only the screen can honour ("8 runs: hover to read them") reads in a saved plot,
// where no pointer hovers; set again whenever the note's text changes.
void setSavedText(QCPTextElement* note, const QString& saved);

// The bold title row setUpPlotFrame() gave the plot (null for a plot it did not frame).
QCPTextElement* plotTitle(QCustomPlot* plot);

// Saved plots are drawn at their size on screen, or wider where their legend's names or their
// title would be cut there (up to 1600 px): a saved figure names its curves whole. Notes with a
// saved text (setSavedText) read it there.
// Writes the plot as SVG (QCustomPlot saves PNG and PDF itself).
bool savePlotSvg(QCustomPlot* plot, const QString& path);
// The plot as the file's name says: .svg (savePlotSvg), .pdf, else PNG at twice its pixels.
// False when the file cannot be written.
bool savePlotImage(QCustomPlot* plot, const QString& path);

}  // namespace fl::widgets
