// HistoryModel: the stored runs the History lists, as a table: id and name first (the view
// keeps them in place), then experiment, status, verdict, created, tags, the config values that
// differ between the listed runs and each metric's last / min / max. Every column has a key
// ("id", "config:frequencies", "metric:test/kl:last") that stays the same however the listed
// runs change the columns, so a sort or a test finds its column by key, not by position. A
// column where every listed run has no value (a mix of experiments) is left out. The config
// columns come in the order the listed runs' experiments declare their parameters (the
// Configure form's order), the first listed run's experiment first; without a registry, sorted.
// Numbers (ids, config values, metrics) sort as numbers through kSortRole. A config value the
// run does not use (a linear head's frequencies) reads "(not used)", greyed, and sets no runs
// apart; its tooltip says why and what the config holds. A shortened paper run's verdict reads
// "not compared", with the departures in its tooltip.
#pragma once

#include <QAbstractTableModel>
#include <QColor>
#include <QStringList>

#include <functional>
#include <map>
#include <vector>

#include "core/store/run_store.h"

namespace fl {
class ExperimentRegistry;
}

namespace fl::gui {

class HistoryModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  // The registry may be null (the config columns are then sorted by key).
  explicit HistoryModel(const ExperimentRegistry* registry, QObject* parent = nullptr)
      : QAbstractTableModel(parent), m_registry(registry) {}

  void setRuns(std::vector<store::RunRecord> runs);
  // The colour of a run on the plots, invalid for one that is not there: its id cell shows it,
  // so a row is matched with its curves as in the Runs table. Call onPlotsChanged() when the
  // runs on the plots or their colours change.
  void setPlotColor(std::function<QColor(int64_t)> colorOnPlots) {
    m_plotColor = std::move(colorOnPlots);
  }
  void onPlotsChanged();
  const store::RunRecord& run(int row) const { return m_runs.at(static_cast<size_t>(row)); }
  int rowOf(int64_t runId) const;

  // The column with this key, or -1.
  int column(const QString& key) const { return m_keys.indexOf(key); }
  QString key(int column) const { return m_keys.value(column); }
  const QStringList& keys() const { return m_keys; }
  static constexpr int kFrozenColumns = 2;  // id, name

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  static constexpr int kSortRole = Qt::UserRole + 43;
  // The verdict of a run one to three settings away from a paper preset (a shortened paper
  // run): greyed, its tooltip naming the preset and the departures.
  static constexpr const char* kNotComparedWithPaper = "not compared";

 private:
  QVariant value(size_t row, const QString& key, int role) const;
  std::vector<std::string> configColumns() const;
  QString unusedTip(const store::RunRecord& run, const std::string& key) const;
  // whyNotComparedWithPaper of the run, as text, worked out once per run id.
  const QString& whyNotCompared(const store::RunRecord& run);

  const ExperimentRegistry* m_registry;
  std::function<QColor(int64_t)> m_plotColor;

  std::vector<store::RunRecord> m_runs;
  std::vector<nlohmann::json> m_comparedConfigs;  // each run's, as comparedValues reads it
  std::vector<QString> m_notCompared;             // each run's whyNotCompared, or empty
  std::map<int64_t, QString> m_whyNotComparedOf;  // by run id: a run's config never changes
  QStringList m_keys;
  QStringList m_titles;
};

}  // namespace fl::gui
