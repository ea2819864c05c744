// Lays the cells of a QCPColorMap along an axis whose coordinates are SnapshotAxis ticks.
// QCPColorMap spaces its cells evenly between two coordinates, so evenly spaced ticks
// (frequencies 0..K) map linearly and the axis reads in tick units; uneven ones (evaluation
// lengths 64, 128, 256, 512) are drawn by index and labelled with their tick values.
//
//   const auto [lo, hi] = layOutCells(plot->yAxis, ticks, rows);
//   map->data()->setValueRange(QCPRange(lo, hi));
#pragma once

#include <utility>
#include <vector>

class QCPAxis;

namespace fl::widgets {

// Installs the ticker `axis` needs and returns the coordinates of the first and last cell
// centres; for a single cell, its edges (QCPColorMap stretches one cell over its range). Without
// ticks (or with a count that does not match) cells sit at their index.
std::pair<double, double> layOutCells(QCPAxis* axis, const std::vector<float>& ticks, int cells);

// Shows the cells from `first` to `last` (their centres, or one cell's edges, as layOutCells
// gives them) whole:
// QCPColorMap draws each cell half a cell either side of its centre, and a plot rescaled to its
// data stops at the outer centres, cutting the first and last cells in half (a two-layer
// heatmap showed half of each layer, its ticks on its edges, and a mark at the last frequency
// drawn over the colour scale).
void showWholeCells(QCPAxis* axis, double first, double last, int cells);

}  // namespace fl::widgets
