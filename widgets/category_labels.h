// Category labels under bars ("full", "-low MLP", ..., "-high both"): one text per bar, level
// where each fits the room between bars, slanted 30 degrees where it does not. A slanted label
// reaches right of its bar, so the plot keeps a right margin that holds the last one whole (it
// ran past the plot's edge, or into the legend beside it).
#pragma once

#include <QStringList>
#include <QVector>

class QCustomPlot;
class QCPAxis;

namespace fl::widgets {

// Puts `labels` at the keys `at` of the plot's x axis.
void setCategoryLabels(QCPAxis* axis, const QVector<double>& at, const QStringList& labels);
// The plot's x axis back to numbers (no labels, no slant, no margin kept for them).
void clearCategoryLabels(QCustomPlot* plot);
// Levels or slants the labels for the plot's laid-out width and sizes its right margin. Called
// after each layout (QCustomPlot::afterLayout); returns whether that changed anything, in which
// case the plot wants another replot to lay out with it.
bool fitCategoryLabels(QCustomPlot* plot);

}  // namespace fl::widgets
