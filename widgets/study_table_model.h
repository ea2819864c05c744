// StudyTableModel: a study's aggregate (core/study/study_aggregate.h) as a sortable table: one
// row per setting (its arm and axis values), how many of its runs finished, and per metric the
// mean ± std over seeds, the paper's value and the verdict (agrees or differs: the rule in
// core/study/agreement.h), computed by the same functions as `fourierlab-cli sweep table`. Columns
// are found by their titles.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>

#include <optional>
#include <vector>

#include "core/study/agreement.h"
#include "core/study/study_aggregate.h"

namespace fl::widgets {

class StudyTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  using QAbstractTableModel::QAbstractTableModel;

  // `references` may be null (a study without the paper's values); `metrics` in column order.
  void setAggregate(std::vector<study::AggregateCell> cells, std::vector<std::string> axisOrder,
                    std::vector<std::string> metrics,
                    std::optional<study::StudyReferences> references);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  int column(const QString& title) const { return m_titles.indexOf(title); }
  const study::AggregateCell& cell(int row) const { return m_cells.at(static_cast<size_t>(row)); }
  QString text(int row, const QString& title) const;

  static constexpr int kSortRole = Qt::UserRole + 42;

  // "agrees", "DIFFERS", "DIFFERS (spread)" or "" (no verdict): study::agreementWord, as
  // `sweep table` prints it.
  static QString verdictWord(const study::Agreement& agreement);

 private:
  enum class Kind { Arm, Axis, Runs, Mean, Paper, Verdict };
  struct Column {
    Kind kind;
    std::string key;  // the axis or the metric
  };
  QVariant cellData(const study::AggregateCell& cell, const Column& column, int role) const;

  std::vector<study::AggregateCell> m_cells;
  std::vector<Column> m_columns;
  QStringList m_titles;
  std::optional<study::StudyReferences> m_references;
};

}  // namespace fl::widgets
