#include "widgets/study_table_model.h"

#include <QColor>

#include <cmath>

#include "core/engine/config_diff.h"
#include "core/study/agreement.h"
#include "core/study/study_table.h"
#include "widgets/verdict_colors.h"

namespace fl::widgets {

namespace {

QString stat(double v) { return QString::fromStdString(study::formatStat(v)); }
QString meanStd(double mean, double spread) {
  return QString::fromStdString(study::formatMeanStd(mean, spread));
}

}  // namespace

QString StudyTableModel::verdictWord(const study::Agreement& agreement) {
  // The word `sweep table` prints: a verdict read in the window and quoted from the CLI is the
  // same text (it was "differs" here, "DIFFERS" there).
  return QString::fromStdString(study::agreementWord(agreement));
}

void StudyTableModel::setAggregate(std::vector<study::AggregateCell> cells,
                                   std::vector<std::string> axisOrder,
                                   std::vector<std::string> metrics,
                                   std::optional<study::StudyReferences> references) {
  beginResetModel();
  m_cells = std::move(cells);
  m_references = std::move(references);
  m_columns.clear();
  m_titles.clear();
  bool arms = false;
  for (const auto& c : m_cells) arms = arms || !c.arm.empty();
  if (arms) {
    m_columns.push_back({Kind::Arm, ""});
    m_titles << "arm";
  }
  for (const auto& axis : axisOrder) {
    m_columns.push_back({Kind::Axis, axis});
    m_titles << QString::fromStdString(axis);
  }
  m_columns.push_back({Kind::Runs, ""});
  m_titles << "runs";
  for (const auto& metric : metrics) {
    const QString m = QString::fromStdString(metric);
    m_columns.push_back({Kind::Mean, metric});
    m_titles << m;
    if (m_references) {
      m_columns.push_back({Kind::Paper, metric});
      m_titles << m + " paper";
      m_columns.push_back({Kind::Verdict, metric});
      m_titles << m + " verdict";
    }
  }
  endResetModel();
}

int StudyTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_cells.size());
}

int StudyTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_columns.size());
}

QVariant StudyTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) return m_titles.value(section);
  // The rule beside the verdicts it produced.
  if (role == Qt::ToolTipRole && section >= 0 && section < columnCount() &&
      m_columns[static_cast<size_t>(section)].kind == Kind::Verdict)
    return QString::fromStdString(study::agreementRuleText());
  // Where the paper's values come from: a spread the paper printed, or one computed from the
  // authors' saved predictions, reads the same in the column.
  if (role == Qt::ToolTipRole && section >= 0 && section < columnCount() &&
      m_columns[static_cast<size_t>(section)].kind == Kind::Paper && m_references &&
      !m_references->source.empty())
    return QString::fromStdString("The paper's values: " + m_references->source);
  return {};
}

QString StudyTableModel::text(int row, const QString& title) const {
  const int c = column(title);
  if (c < 0 || row < 0 || row >= rowCount()) return {};
  return cellData(m_cells[static_cast<size_t>(row)], m_columns[static_cast<size_t>(c)],
                  Qt::DisplayRole)
      .toString();
}

QVariant StudyTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  return cellData(m_cells[static_cast<size_t>(index.row())],
                  m_columns[static_cast<size_t>(index.column())], role);
}

QVariant StudyTableModel::cellData(const study::AggregateCell& cell, const Column& column,
                                   int role) const {
  auto statsOf = [&]() -> const study::MetricStats* {
    auto it = cell.metrics.find(column.key);
    return it == cell.metrics.end() ? nullptr : &it->second;
  };
  auto reference = [&]() -> std::optional<study::ReferenceValue> {
    if (!m_references) return std::nullopt;
    return study::findReference(*m_references, cell.config, column.key);
  };
  switch (column.kind) {
    case Kind::Arm:
      if (role == Qt::DisplayRole || role == kSortRole) return QString::fromStdString(cell.arm);
      return {};
    case Kind::Axis: {
      if (!cell.axes.contains(column.key))
        return role == Qt::DisplayRole ? QVariant("") : QVariant();
      const auto& v = cell.axes.at(column.key);
      if (role == kSortRole && v.is_number()) return v.get<double>();
      if (role == Qt::DisplayRole || role == kSortRole)
        return QString::fromStdString(settingText(v));
      return {};
    }
    case Kind::Runs: {
      int total = 0;
      for (const auto& [status, n] : cell.statusCounts) total += n;
      if (role == kSortRole) return cell.finished();
      if (role == Qt::DisplayRole) return QString("%1/%2").arg(cell.finished()).arg(total);
      if (role == Qt::ToolTipRole) {
        QStringList parts;
        for (const auto& [status, n] : cell.statusCounts)
          parts << QString("%1 %2").arg(n).arg(QString::fromStdString(study::toString(status)));
        return parts.join(", ");
      }
      if (role == Qt::ForegroundRole && cell.statusCounts.count(RunStatus::Failed))
        return verdictBadColor();
      return {};
    }
    case Kind::Mean: {
      const auto* s = statsOf();
      if (role == kSortRole) return s && std::isfinite(s->mean) ? QVariant(s->mean) : QVariant();
      if (role == Qt::DisplayRole) {
        if (!s || s->n == 0) return "-";
        return s->n > 1 ? meanStd(s->mean, s->std) : stat(s->mean);
      }
      if (role == Qt::ToolTipRole && s) {
        QStringList values;
        for (double v : s->values) values << stat(v);
        return QString("n = %1: %2").arg(s->n).arg(values.join(", "));
      }
      return {};
    }
    case Kind::Paper: {
      const auto ref = reference();
      if (role == kSortRole) return ref ? QVariant(ref->mean) : QVariant();
      if (role != Qt::DisplayRole) return {};
      if (!ref) return "";
      return ref->std ? meanStd(ref->mean, *ref->std) : stat(ref->mean);
    }
    case Kind::Verdict: {
      const auto ref = reference();
      const auto* s = statsOf();
      if (ref && !cell.compared()) {  // a setting that departs from the paper's: no verdict
        if (role == Qt::DisplayRole || role == kSortRole) return QString(study::kNotCompared);
        if (role == Qt::ForegroundRole) return notJudgedColor();
        if (role == Qt::ToolTipRole) {
          QStringList departures;
          for (const auto& d : cell.departures) departures << QString::fromStdString(d);
          return "Departs from the paper's experiment: " + departures.join(", ");
        }
        return {};
      }
      const auto agreement = ref && s ? study::judgeAgreement(*s, *ref) : study::Agreement{};
      if (role == Qt::DisplayRole || role == kSortRole) return verdictWord(agreement);
      if (role == Qt::ForegroundRole && agreement.agrees) return verdictColor(agreement.agrees);
      if (role == Qt::ToolTipRole && agreement.agrees)
        return QString::fromStdString(agreement.explanation(*s, *ref) + "\n" +
                                      study::agreementRuleText());
      return {};
    }
  }
  return {};
}

}  // namespace fl::widgets
