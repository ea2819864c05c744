#include "app/gui/runs_table_model.h"

#include <QColor>
#include <QFont>

#include <algorithm>

#include "app/gui/run_queue.h"
#include "app/gui/run_views.h"
#include "core/engine/config_diff.h"
#include "widgets/progress_delegate.h"
#include "widgets/run_colors.h"
#include "widgets/verdict_colors.h"

namespace fl::gui {

RunsTableModel::RunsTableModel(const RunQueue& queue, RunViews& views, widgets::RunColors& colors,
                               QObject* parent)
    : QAbstractTableModel(parent), m_queue(queue), m_views(views), m_colors(colors) {
  connect(&queue, &RunQueue::runQueued, this, &RunsTableModel::rowAdded);
  connect(&queue, &RunQueue::runEnded, this, [this](int64_t id, int64_t) { updateRun(id); });
  // A deleted run's row goes; the view's selection of the other rows moves with them.
  connect(&queue, &RunQueue::rowAboutToBeForgotten, this,
          [this](int row) { beginRemoveRows({}, row, row); });
  connect(&queue, &RunQueue::rowForgotten, this, [this] {
    --m_rows;
    endRemoveRows();
  });
  m_rows = static_cast<int>(queue.runs().size());
}

void RunsTableModel::rowAdded() {
  const int rows = static_cast<int>(m_queue.runs().size());
  if (rows <= m_rows) return;
  beginInsertRows({}, m_rows, rows - 1);
  m_rows = rows;
  endInsertRows();
}

int64_t RunsTableModel::runAt(int row) const {
  return row >= 0 && row < m_rows ? m_queue.runs()[static_cast<size_t>(row)] : 0;
}

int RunsTableModel::rowOf(int64_t runId) const {
  for (int r = 0; r < m_rows; ++r)
    if (m_queue.runs()[static_cast<size_t>(r)] == runId) return r;
  return -1;
}

bool RunsTableModel::isLive(int64_t runId) const { return m_queue.isLive(runId); }

bool RunsTableModel::isResumable(int64_t runId) const {
  const RunView* view = m_views.find(runId);
  if (!view || isLive(runId)) return false;
  const RunStatus s = view->status();
  return s == RunStatus::Cancelled || s == RunStatus::Interrupted || s == RunStatus::Failed;
}

void RunsTableModel::updateRun(int64_t runId) {
  const int row = rowOf(runId);
  if (row >= 0) emit dataChanged(index(row, 0), index(row, kColumnCount - 1));
}

void RunsTableModel::shownChanged() {
  if (m_rows > 0) emit dataChanged(index(0, kRun), index(m_rows - 1, kRun), {Qt::CheckStateRole});
}

Qt::ItemFlags RunsTableModel::flags(const QModelIndex& index) const {
  Qt::ItemFlags f = QAbstractTableModel::flags(index);
  if (index.column() == kRun && m_isShown) f |= Qt::ItemIsUserCheckable;
  return f;
}

bool RunsTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (index.column() != kRun || role != Qt::CheckStateRole || !m_isShown) return false;
  const int64_t id = runAt(index.row());
  if (!id) return false;
  emit shownToggled(id, value.toInt() == Qt::Checked);
  return true;
}

void RunsTableModel::update(const RunDeltas& deltas) {
  for (const auto& [id, delta] : deltas)
    if (delta.statusChanged || delta.progressed || delta.evaluated()) updateRun(id);
}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : m_rows;
}

int RunsTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* const titles[] = {"run", "name",    "status", "progress",
                                       "ETA", "threads", "device", "verdict / message"};
  return section >= 0 && section < kColumnCount ? titles[section] : QVariant();
}

QString RunsTableModel::progressText(const RunView& view) {
  const auto& p = view.progress();
  if (view.countsEpochs() && p.totalEpochs > 1)
    return QString("epoch %1/%2").arg(p.epoch).arg(p.totalEpochs);
  if (p.totalSteps > 0) return QString("step %1/%2").arg(p.step).arg(p.totalSteps);
  return p.step > 0 ? QString("step %1").arg(p.step) : QString();
}

QString RunsTableModel::etaText(const ProgressEvent& p, const std::optional<ProgressEvent>& from) {
  if (!from || p.step <= from->step || p.totalSteps <= 0 || p.step >= p.totalSteps) return "-";
  const double secondsPerStep =
      (p.wallSeconds - from->wallSeconds) / static_cast<double>(p.step - from->step);
  const double left = std::max(0.0, secondsPerStep * static_cast<double>(p.totalSteps - p.step));
  const int seconds = static_cast<int>(left);
  return QString("%1:%2").arg(seconds / 60).arg(seconds % 60, 2, 10, QChar('0'));
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
  const int64_t id = runAt(index.row());
  const RunView* view = id ? m_views.find(id) : nullptr;
  if (!view) return {};
  const bool waiting = m_queue.isWaiting(id);
  const bool failed = view->status() == RunStatus::Failed;
  const auto passed = verdictsPassed(view->verdicts());
  if (role == kPinnedRole) return view->pinned();
  if (role == Qt::FontRole && view->pinned()) {
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  switch (index.column()) {
    case kRun:
      if (role == Qt::DisplayRole) return QString("#%1").arg(id);
      if (role == Qt::DecorationRole) return m_colors.of(id);
      if (role == Qt::UserRole) return QVariant::fromValue<qlonglong>(id);
      if (role == Qt::CheckStateRole && m_isShown)
        return m_isShown(id) ? Qt::Checked : Qt::Unchecked;
      if (role == Qt::ToolTipRole)
        return "Ticked: on the plots (untick to take it off). Right-click: its colour";
      return {};
    case kName:
      // A pinned run says so where the eye reads first: its name.
      if (role == Qt::DisplayRole)
        return (view->pinned() ? QString("★ ") : QString()) + QString::fromStdString(view->name());
      if (role == Qt::ToolTipRole)
        return QString::fromStdString(view->name()) +
               (view->pinned() ? "\nPinned: kept on top (its menu unpins it)" : "");
      return {};
    case kStatus:
      if (role == Qt::DisplayRole)
        return waiting ? QString("waiting") : QString::fromStdString(toString(view->status()));
      if (role == Qt::ForegroundRole && failed) return widgets::verdictBadColor();
      return {};
    case kProgress: {
      const auto& p = view->progress();
      if (role == Qt::DisplayRole) return progressText(*view);
      if (role == widgets::kProgressRole)
        return p.totalSteps > 0
                   ? QVariant(static_cast<double>(p.step) / static_cast<double>(p.totalSteps))
                   : QVariant(view->status() == RunStatus::Finished ? 1.0 : 0.0);
      return {};
    }
    case kEta:
      if (role == Qt::DisplayRole)
        return view->isTraining() ? etaText(view->progress(), view->sessionStart()) : QString("-");
      return {};
    case kThreads:
      if (role == Qt::DisplayRole) {
        const int threads = m_queue.threadsOf(id);
        return threads > 0 ? QString::number(threads) : QString();
      }
      return {};
    case kDevice:
      if (role == Qt::DisplayRole) return QString::fromStdString(view->device());
      return {};
    case kVerdict: {
      // The verdicts in a few words beside the validation loss they qualify; a failed run's
      // reason; else its message.
      QString text;
      if (!view->verdicts().empty()) {
        text = QString::fromStdString(verdictHeadline(view->verdicts()));
        const auto last = view->lastValues();
        if (auto loss = last.find("val/loss"); loss != last.end())
          text += QString(" (val/loss %1)").arg(loss->second, 0, 'g', 4);
      } else {
        text = QString::fromStdString(view->message());
      }
      if (role == Qt::DisplayRole) return text;
      if (role == Qt::ToolTipRole) {
        const std::string details = verdictDetails(view->verdicts());
        return QString::fromStdString(details.empty() ? view->message() : details);
      }
      if (role == Qt::ForegroundRole) {
        if (failed || passed == false) return widgets::verdictBadColor();
        if (passed == true) return widgets::verdictGoodColor();
      }
      return {};
    }
    default:
      return {};
  }
}

std::vector<std::string> RunsTableModel::differingConfigKeys() const {
  std::vector<const nlohmann::json*> configs;
  std::vector<std::string> experiments;
  for (int row = 0; row < m_rows; ++row)
    if (const RunView* view = m_views.find(runAt(row))) {
      configs.push_back(&view->comparedConfig());
      experiments.push_back(view->experiment());
    }
  // Within each experiment: a key one experiment has and another lacks sets no run apart (the
  // Group menu listed some 40 keys of every experiment in the dock).
  auto keys = fl::differingKeysWithinExperiments(experiments, configs, {});
  std::erase(keys, "seed");
  return keys;
}

}  // namespace fl::gui
