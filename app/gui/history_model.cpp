#include "app/gui/history_model.h"

#include <QColor>
#include <QDateTime>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "app/gui/metric_order.h"
#include "core/engine/config.h"
#include "core/engine/config_diff.h"
#include "core/engine/registry.h"
#include "core/store/not_compared.h"
#include "widgets/verdict_colors.h"

namespace fl::gui {

namespace {

const store::MetricSummary* summaryOf(const store::RunRecord& run, const std::string& key) {
  for (const auto& m : run.metrics)
    if (m.key == key) return &m;
  return nullptr;
}

QString jsonText(const nlohmann::json& v) { return QString::fromStdString(settingText(v)); }

}  // namespace

void HistoryModel::setRuns(std::vector<store::RunRecord> runs) {
  beginResetModel();
  m_runs = std::move(runs);
  m_comparedConfigs.clear();
  m_notCompared.clear();
  std::map<std::string, std::optional<std::vector<ParamSpec>>> paramsOf;  // per experiment, once
  for (const auto& r : m_runs) {
    auto [it, fresh] = paramsOf.try_emplace(r.experiment);
    if (fresh && m_registry)
      if (const auto experiment = m_registry->find(r.experiment))
        it->second = experiment->allParams();
    m_comparedConfigs.push_back(it->second ? comparedValues(*it->second, r.config) : r.config);
    // A shortened paper run has no verdicts; a blank cell read as "not checked yet". Only once
    // finished: a running or cancelled run read "not compared" as if judged.
    m_notCompared.push_back(store::mayReadNotCompared(r) ? whyNotCompared(r) : QString());
  }
  // "trained on": the device the run really used (cuda:0, cpu), not the config's "auto".
  m_keys =
      QStringList{"id", "name", "experiment", "status", "verdict", "device", "created", "tags"};
  m_titles =
      QStringList{"id", "name", "experiment", "status", "verdict", "trained on", "created", "tags"};
  for (const auto& k : configColumns()) {
    m_keys << "config:" + QString::fromStdString(k);
    m_titles << QString::fromStdString(k);
  }
  QStringList metrics;
  for (const auto& r : m_runs)
    for (const auto& m : r.metrics) metrics << QString::fromStdString(m.key);
  for (const auto& m : inReadingOrder(metrics))
    for (const char* stat : {"last", "min", "max"}) {
      m_keys << "metric:" + m + ":" + stat;
      m_titles << QString("%1 (%2)").arg(m, stat);
    }
  // Columns where no listed run has a value say nothing: left out (the first ones stay).
  for (int c = static_cast<int>(m_keys.size()) - 1; c >= kFrozenColumns; --c) {
    bool any = false;
    for (size_t row = 0; row < m_runs.size(); ++row) {
      const QVariant v = value(row, m_keys[c], kSortRole);
      any = any || (v.isValid() && !v.toString().isEmpty());
    }
    if (!any) {
      m_keys.removeAt(c);
      m_titles.removeAt(c);
    }
  }
  endResetModel();
}

const QString& HistoryModel::whyNotCompared(const store::RunRecord& run) {
  // A run's config never changes: its sentence is worked out once, not at every refresh of the
  // list (each one validates the run against every paper preset).
  auto [it, fresh] = m_whyNotComparedOf.try_emplace(run.id);
  if (fresh && m_registry)
    it->second = QString::fromStdString(store::whyNotCompared(*m_registry, run));
  return it->second;
}

// The config values that differ between the listed runs of one experiment, in their
// experiments' order (a single run's: all it uses). A value a run does not use (a linear head's
// frequencies) sets it apart from none, and neither does a parameter another experiment lacks:
// beside an addition run, the Fourier head runs' shared `variance` differs in nothing.
std::vector<std::string> HistoryModel::configColumns() const {
  std::vector<std::string> experiments;
  std::vector<const nlohmann::json*> configs;
  std::map<std::string, std::vector<ParamSpec>> declared;
  for (size_t i = 0; i < m_runs.size(); ++i) {
    const auto& name = m_runs[i].experiment;
    experiments.push_back(name);
    configs.push_back(&m_comparedConfigs[i]);
    if (!declared.count(name))
      if (const auto experiment = m_registry ? m_registry->find(name) : nullptr)
        declared.emplace(name, experiment->allParams());
  }
  // One run listed (a filter down to it): nothing differs, so every value it trained with that
  // it uses is shown, as its row's config; no column at all said nothing of it.
  if (m_runs.size() == 1 && m_comparedConfigs.front().is_object()) {
    std::vector<std::string> used;
    for (const auto& [key, value] : m_comparedConfigs.front().items())
      if (!isUnusedValue(value)) used.push_back(key);
    std::vector<std::vector<ParamSpec>> order;
    if (auto it = declared.find(experiments.front()); it != declared.end())
      order.push_back(it->second);
    return inDeclarationOrder(used, order);
  }
  return differingKeysWithinExperiments(experiments, configs, declared);
}

// "Not used by this run (used only when head is fourier): 12".
QString HistoryModel::unusedTip(const store::RunRecord& run, const std::string& key) const {
  const auto experiment = m_registry ? m_registry->find(run.experiment) : nullptr;
  if (!experiment) return {};
  const auto params = experiment->allParams();
  const ParamSpec* spec = findParam(params, key);
  if (!spec) return {};
  return QString("Not used by this run (%1): %2")
      .arg(QString::fromStdString(spec->conditionDescription()),
           jsonText(configValue(run.config, key)));
}

int HistoryModel::rowOf(int64_t runId) const {
  for (size_t i = 0; i < m_runs.size(); ++i)
    if (m_runs[i].id == runId) return static_cast<int>(i);
  return -1;
}

int HistoryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int HistoryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_keys.size());
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) return m_titles.value(section);
  if (role == Qt::UserRole) return m_keys.value(section);
  return {};
}

void HistoryModel::onPlotsChanged() {
  const int idColumn = column("id");
  if (idColumn >= 0 && rowCount() > 0)
    emit dataChanged(index(0, idColumn), index(rowCount() - 1, idColumn), {Qt::DecorationRole});
}

QVariant HistoryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  return value(static_cast<size_t>(index.row()), m_keys[index.column()], role);
}

QVariant HistoryModel::value(size_t row, const QString& key, int role) const {
  const store::RunRecord& r = m_runs[row];
  const bool display = role == Qt::DisplayRole;
  const bool sort = role == kSortRole;
  if (key == "id") {
    if (display) return QString::number(r.id);
    if (sort || role == Qt::UserRole) return QVariant::fromValue<qlonglong>(r.id);
    if (role == Qt::DecorationRole && m_plotColor)
      if (const QColor color = m_plotColor(r.id); color.isValid()) return color;
    return {};
  }
  if (key == "name") return display || sort ? QVariant(QString::fromStdString(r.name)) : QVariant();
  if (key == "experiment")
    return display || sort ? QVariant(QString::fromStdString(r.experiment)) : QVariant();
  if (key == "status") {
    if (display || sort) return QString::fromStdString(toString(r.status));
    if (role == Qt::ForegroundRole && r.status == RunStatus::Failed)
      return widgets::verdictBadColor();
    if (role == Qt::ToolTipRole && !r.message.empty()) return QString::fromStdString(r.message);
    return {};
  }
  if (key == "verdict") {
    if (const QString& why = m_notCompared[row]; !why.isEmpty()) {
      if (display || sort) return QString(kNotComparedWithPaper);
      if (role == Qt::ForegroundRole) return widgets::notJudgedColor();
      if (role == Qt::ToolTipRole) return why[0].toUpper() + why.mid(1);
      return {};
    }
    const auto passed = verdictsPassed(r.verdicts);
    if (display || sort) return QString::fromStdString(verdictHeadline(r.verdicts));
    if (role == Qt::ToolTipRole && !r.verdicts.empty())
      return QString::fromStdString(verdictDetails(r.verdicts));
    if (role == Qt::ForegroundRole && passed) return widgets::verdictColor(passed);
    return {};
  }
  if (key == "device")
    return display || sort ? QVariant(QString::fromStdString(r.device)) : QVariant();
  if (key == "created") {
    if (sort) return r.created;
    if (display)
      return QDateTime::fromSecsSinceEpoch(static_cast<qint64>(r.created))
          .toString("yyyy-MM-dd hh:mm");
    return {};
  }
  if (key == "tags") {
    QStringList tags;
    for (const auto& t : r.tags) tags << QString::fromStdString(t);
    return display || sort ? QVariant(tags.join(", ")) : QVariant();
  }
  if (key.startsWith("config:")) {
    const std::string k = key.mid(7).toStdString();
    const nlohmann::json& compared = m_comparedConfigs[row];
    if (!compared.is_object() || !compared.contains(k) || compared[k].is_null()) return {};
    const auto& v = compared[k];
    if (isUnusedValue(v)) {
      // Said, greyed, and sorted with the runs that have no value.
      if (display) return QString(kUnusedValue);
      if (role == Qt::ForegroundRole) return QColor(Qt::gray);
      if (role == Qt::ToolTipRole) return unusedTip(r, k);
      return {};
    }
    if (sort && v.is_number()) return v.get<double>();
    return display || sort ? QVariant(jsonText(v)) : QVariant();
  }
  if (key.startsWith("metric:")) {
    const int split = static_cast<int>(key.lastIndexOf(':'));
    const auto* m = summaryOf(r, key.mid(7, split - 7).toStdString());
    if (!m) return {};
    const QString stat = key.mid(split + 1);
    const double v = stat == "last" ? m->last : stat == "min" ? m->min : m->max;
    if (!std::isfinite(v)) return display ? QVariant("-") : QVariant();
    if (sort) return v;
    if (display) return QString::number(v, 'g', 5);
    if (role == Qt::ToolTipRole)
      return QString("at step %1")
          .arg(stat == "last"  ? m->lastStep
               : stat == "min" ? m->minStep
                               : m->maxStep);
    return {};
  }
  return {};
}

}  // namespace fl::gui
