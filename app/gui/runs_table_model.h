// RunsTableModel: the Runs dock's table: one row per run of the queue (a resumed run keeps its
// row), read from the RunViews: status, progress (steps, or epochs for epoch-based runs), ETA,
// threads, device and the verdict or the reason it failed. Rows are added when the queue adds
// a run, removed when it forgets a deleted one, and repainted by dataChanged when a run
// reports, never rebuilt. The run column carries the run's colour swatch and an eye: a check box
// saying whether the run is on the plots, which toggles it there (shownToggled).
#pragma once

#include <QAbstractTableModel>

#include <cstdint>
#include <functional>

#include "app/gui/run_view.h"

namespace fl::widgets {
class RunColors;
}

namespace fl::gui {

class RunQueue;
class RunViews;

class RunsTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kRun, kName, kStatus, kProgress, kEta, kThreads, kDevice, kVerdict, kColumnCount };
  // Any column: whether the row's run is pinned (RunView::pinned).
  static constexpr int kPinnedRole = Qt::UserRole + 1;

  RunsTableModel(const RunQueue& queue, RunViews& views, widgets::RunColors& colors,
                 QObject* parent = nullptr);

  // The rows of runs that reported (or changed state) since the last call are repainted.
  void update(const RunDeltas& deltas);
  void updateRun(int64_t runId);
  int64_t runAt(int row) const;
  int rowOf(int64_t runId) const;
  // Waiting or training in the queue.
  bool isLive(int64_t runId) const;
  // Cancelled, interrupted or failed, and not live: Resume continues it.
  bool isResumable(int64_t runId) const;
  // Which runs are on the plots (the eye); call shownChanged() when that changes.
  void setShownCheck(std::function<bool(int64_t)> isShown) { m_isShown = std::move(isShown); }
  void shownChanged();
  // The config keys whose values differ among the rows' runs of one experiment, sorted, the seed
  // left out (its groups would be single runs): what the Runs dock offers to group by.
  std::vector<std::string> differingConfigKeys() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role) override;

  // What the Progress column says: "step 300/1000" or "epoch 3/10".
  static QString progressText(const RunView& view);
  // From the rate since `from` (RunView::sessionStart): "-" until a second progress arrives.
  static QString etaText(const ProgressEvent& progress, const std::optional<ProgressEvent>& from);

 signals:
  // The eye of a run's row was ticked (put it on the plots) or cleared (take it off).
  void shownToggled(int64_t runId, bool shown);

 private:
  void rowAdded();

  const RunQueue& m_queue;
  RunViews& m_views;
  widgets::RunColors& m_colors;
  std::function<bool(int64_t)> m_isShown;
  int m_rows = 0;
};

}  // namespace fl::gui
