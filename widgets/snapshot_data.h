// Reading a Snapshot for plotting: its rows over the last axis, the string lists its meta may
// carry ("row_labels", "labels", see core/engine/panel_spec.h) and axis titles. Pure functions,
// no widgets, so every panel reads snapshots the same way.
//
//   QVector<double> x, y;
//   for (int64_t r = 0; r < rowCount(s); ++r) rowOf(s, r, x, y);  // x from the last axis's ticks
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include <cstdint>

#include "core/engine/events.h"

namespace fl::widgets {

// Rows of a snapshot seen as (rows, width): every axis but the last is folded into rows.
int64_t rowCount(const Snapshot& s);

// Row `row` over the last axis: x from that axis's ticks (the index when it has none).
bool rowOf(const Snapshot& s, int64_t row, QVector<double>& x, QVector<double>& y);

// meta[key] as strings; empty when absent or not an array of strings.
QStringList metaStrings(const Snapshot& s, const char* key);

// "length (tokens)", or the label alone when the axis has no unit.
QString axisTitle(const SnapshotAxis& axis);

}  // namespace fl::widgets
