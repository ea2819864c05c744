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
// centres. Without ticks (or with a count that does not match) cells sit at their index.
std::pair<double, double> layOutCells(QCPAxis* axis, const std::vector<float>& ticks, int cells);

}  // namespace fl::widgets
