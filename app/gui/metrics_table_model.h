// MetricsTableModel: the latest value of every metric of the shown runs (a row per run, a
// column per metric key), read from their RunViews. setRuns() when the shown runs change;
// update() repaints the values (and adds columns for keys seen for the first time).
#pragma once

#include <QAbstractTableModel>
#include <QStringList>

#include <QColor>

#include <cstdint>
#include <functional>
#include <vector>

namespace fl::widgets {
class RunColors;
}

namespace fl::gui {

class RunViews;

class MetricsTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  MetricsTableModel(RunViews& views, widgets::RunColors& colors, QObject* parent = nullptr);

  void setRuns(std::vector<int64_t> runIds);
  const std::vector<int64_t>& runs() const { return m_runs; }
  void update();
  int column(const QString& key) const;  // -1 when no shown run has that metric
  // The swatch of a run's row: its own colour unless set (a grouped run takes its group's, the
  // colour its curves are drawn in).
  void setColorOf(std::function<QColor(int64_t)> colorOf) { m_colorOf = std::move(colorOf); }
  void coloursChanged();  // the swatches drawn again (a regroup)

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QStringList currentKeys() const;

  RunViews& m_views;
  widgets::RunColors& m_colors;
  std::function<QColor(int64_t)> m_colorOf;
  std::vector<int64_t> m_runs;
  QStringList m_keys;
};

}  // namespace fl::gui
