// StudyProgressGrid: a study's runs at a glance: one row per setting (its axis values), one cell
// per seed, coloured by the run's status (finished, training, waiting, failed, cancelled or
// interrupted). Hovering a cell names its run and its final metrics; clicking a row's label or
// a cell asks for that setting's runs (the owner compares them). Qt only: the owner fills it
// from the study's results.
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include <cstdint>

#include "core/study/cell_status.h"

namespace fl::widgets {

struct GridCell {
  int64_t runId = 0;         // 0: not started
  study::CellStatus status;  // its run's; none while it has no run
  QString toolTip;
};

struct GridRow {
  QString label;        // as drawn: "Fourier head · gmm2 · 12" (the header names the parts)
  QString description;  // its tooltip: "Fourier head: dataset=gmm2 frequencies=12"
  QVector<GridCell> cells;
};

class StudyProgressGrid : public QWidget {
  Q_OBJECT

 public:
  explicit StudyProgressGrid(QWidget* parent = nullptr);

  // labelHeader: what the row labels are ("arm · dataset · frequencies"), drawn above them.
  void setRows(QVector<GridRow> rows, QStringList columnLabels, QString labelHeader = {});
  const QVector<GridRow>& rows() const { return m_rows; }
  // The colour a status is drawn in (the legend under the grid uses the same).
  static QColor statusColor(const study::CellStatus& status);
  // The cell (row, column) under a point, or (-1, -1); a row's label gives column -1.
  std::pair<int, int> cellAt(const QPoint& point) const;
  QRect cellRect(int row, int column) const;
  // Wide enough for every label (up to a cap) and seed column; narrower, the labels give way
  // (elided in the middle) so that every seed column stays in view.
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 signals:
  void rowClicked(int row);

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  int columnCount() const;
  int naturalLabelWidth() const;
  int labelWidth() const;  // as drawn at the current width

  QVector<GridRow> m_rows;
  QStringList m_columns;
  QString m_labelHeader;
  static constexpr int kCell = 16;
  static constexpr int kGap = 3;
  static constexpr int kHeader = 18;
  static constexpr int kMinLabel = 90;
};

}  // namespace fl::widgets
