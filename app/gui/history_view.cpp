#include "app/gui/history_view.h"

#include <QColor>
#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "app/gui/export_stem.h"
#include "app/gui/history_model.h"
#include "app/gui/run_edit.h"
#include "core/engine/spoken_list.h"
#include "core/engine/system_metrics.h"
#include "core/store/run_export.h"
#include "core/store/run_store.h"
#include "core/store/setting_use.h"
#include "core/study/study_store.h"
#include "core/text/utf8.h"
#include "widgets/checklist_menu.h"
#include "widgets/file_dialogs.h"
#include "widgets/frozen_columns_view.h"
#include "widgets/text_dialogs.h"
#include "widgets/text_table_model.h"
#include "widgets/verdict_colors.h"

namespace fl::gui {

namespace {

// The status filter's entry for archived runs.
const QString kArchived = QStringLiteral("archived");

// "run #4", "3 runs": for the status bar's account of an action.
QString runsText(const std::vector<int64_t>& ids) {
  return ids.size() == 1 ? QString("run #%1").arg(ids.front()) : QString("%1 runs").arg(ids.size());
}

// Runs without a value (a metric they never reported, a setting they do not use) go last in
// either order: a descending sort by a metric used to put them on top, above the best run.
class MissingValuesLast : public QSortFilterProxyModel {
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;

 protected:
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override {
    const bool leftMissing = !left.data(sortRole()).isValid();
    const bool rightMissing = !right.data(sortRole()).isValid();
    // A descending sort asks lessThan(right, left): a missing value is then the smaller one.
    if (leftMissing != rightMissing)
      return sortOrder() == Qt::AscendingOrder ? rightMissing : leftMissing;
    return QSortFilterProxyModel::lessThan(left, right);
  }
};

QTableView* makeStudiesTable(QWidget* parent) {
  auto* table = new QTableView(parent);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setSelectionMode(QAbstractItemView::SingleSelection);
  table->verticalHeader()->hide();
  // Columns as wide as their contents, as the runs' table below: a stretched last column put
  // "created" far from its date on a wide screen.
  table->horizontalHeader()->setStretchLastSection(false);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  return table;
}

// The column of a machine figure ("metric:system/rss_mib:last").
bool isMachineFigure(const QString& key) {
  return key.startsWith(QStringLiteral("metric:") + kSystemPrefix);
}

}  // namespace

HistoryView::HistoryView(store::RunStore& store, const ExperimentRegistry& registry,
                         QWidget* parent)
    : QWidget(parent),
      m_store(store),
      m_registry(registry),
      m_model(new HistoryModel(&registry, this)),
      m_proxy(new MissingValuesLast(this)),
      m_table(new widgets::FrozenColumnsView(HistoryModel::kFrozenColumns, this)),
      m_studiesModel(new widgets::TextTableModel(this)),
      m_studies(makeStudiesTable(this)),
      m_text(new QLineEdit(this)),
      m_status(new QComboBox(this)),
      m_archive(new QPushButton(this)),
      m_experiment(new QComboBox(this)),
      m_tag(new QLineEdit(this)),
      m_typing(new QTimer(this)) {
  auto* filters = buildFilters();
  auto* actions = buildActions();
  setUpTables();
  layOut(filters, actions);
  connectFiltersAndTables();
}

QHBoxLayout* HistoryView::buildFilters() {
  auto* filters = new QHBoxLayout;
  m_text->setPlaceholderText("filter: name, notes, setting (linear, seed=42) or id (#43)");
  m_tag->setPlaceholderText("tag (any part of one)");
  m_status->addItems(
      {"any status", "finished", "running", "cancelled", "failed", "interrupted", "queued"});
  // Archived runs are left out of every other choice, as `fourierlab-cli runs list` leaves them.
  m_status->addItem(kArchived);
  m_status->setItemData(m_status->count() - 1,
                        "The archived runs alone: hidden from History and `runs list` until "
                        "unarchived",
                        Qt::ToolTipRole);
  m_experiment->addItem("any experiment");
  filters->addWidget(m_text, 2);
  filters->addWidget(m_experiment);
  filters->addWidget(m_status);
  filters->addWidget(m_tag, 1);
  return filters;
}

QHBoxLayout* HistoryView::buildActions() {
  auto* open = new QPushButton("Open", this);
  auto* compare = new QPushButton("Compare", this);
  compare->setToolTip(
      "Overlay the selected runs' curves on shared axes, with a table of the "
      "config values that differ (Ctrl+Shift+C)");
  auto* resume = new QPushButton("Resume", this);
  resume->setToolTip("Continue an interrupted or cancelled run from its last checkpoint");
  auto* rename = new QPushButton("Rename…", this);
  auto* tag = new QPushButton("Tag…", this);
  auto* note = new QPushButton("Note…", this);
  auto* exportButton = new QPushButton("Export…", this);
  auto* remove = new QPushButton("Delete…", this);
  m_archive->setText("Archive");
  // The actions on a row of their own: beside the filters they squeezed the text field to a
  // few letters at 1280 x 720.
  auto* actions = new QHBoxLayout;
  for (auto* b : {open, compare, resume, rename, tag, note, m_archive, exportButton, remove})
    actions->addWidget(b);
  actions->addStretch(1);
  if (m_store.isReadOnly())
    for (auto* b : {resume, rename, tag, note, m_archive, remove}) {
      b->setEnabled(false);
      b->setToolTip(QString("The run store %1: its runs can be opened, compared and exported, "
                            "not changed")
                        .arg(QString::fromStdString(m_store.readOnlyBecause())));
    }
  connect(open, &QPushButton::clicked, this, [this] {
    auto ids = selectedRunsFor("Open", 1);
    if (!ids.empty()) emit openRequested(ids.front());
  });
  connect(compare, &QPushButton::clicked, this, &HistoryView::compareSelected);
  connect(resume, &QPushButton::clicked, this, [this] {
    auto ids = selectedRunsFor("Resume", 1);
    if (!ids.empty()) emit resumeRequested(ids.front());
  });
  connect(rename, &QPushButton::clicked, this, [this] { askEdit("rename"); });
  connect(tag, &QPushButton::clicked, this, [this] { askEdit("tag"); });
  connect(note, &QPushButton::clicked, this, [this] { askEdit("note"); });
  connect(exportButton, &QPushButton::clicked, this, &HistoryView::askExport);
  connect(remove, &QPushButton::clicked, this, &HistoryView::askDelete);
  connect(m_archive, &QPushButton::clicked, this, [this] {
    const bool archive = m_status->currentText() != kArchived;
    const auto ids = selectedRunsFor(archive ? "Archive" : "Unarchive", 1);
    if (ids.empty()) return;
    try {
      for (auto id : ids) m_store.setArchived(id, archive);
      // The runs leave the list they were in: say where they went.
      const QString them = ids.size() == 1 ? "it" : "them";
      emit done(archive ? QString("Archived %1: the status filter's \"archived\" lists %2")
                              .arg(runsText(ids), them)
                        : QString("Unarchived %1: History and `runs list` list %2 again")
                              .arg(runsText(ids), them));
    } catch (const std::exception& e) {
      emit storeError(e.what());
    }
    refresh();
  });
  return actions;
}

void HistoryView::setUpTables() {
  m_studies->setModel(m_studiesModel);
  m_studies->setToolTip("Double-click a study to open its view: progress, figure and table");
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(HistoryModel::kSortRole);
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  m_table->frozenView()->setSortingEnabled(false);
}

// The studies above the runs, each under its title; the runs' filters and actions above them.
void HistoryView::layOut(QHBoxLayout* filters, QHBoxLayout* actions) {
  auto* layout = new QVBoxLayout(this);
  auto* studiesBox = new QWidget(this);
  auto* studiesLayout = new QVBoxLayout(studiesBox);
  studiesLayout->setContentsMargins(0, 0, 0, 0);
  studiesLayout->addWidget(new QLabel("<b>Studies</b>", studiesBox));
  studiesLayout->addWidget(m_studies);
  auto* runsBox = new QWidget(this);
  auto* runsLayout = new QVBoxLayout(runsBox);
  runsLayout->setContentsMargins(0, 0, 0, 0);
  m_runsTitle = new QLabel("<b>Runs</b>", runsBox);
  m_runsTitle->setObjectName("runsTitle");
  // Filters are kept between sessions: one left from the last hid the run just trained, with
  // "filtered by text" the only hint. The title offers to clear them.
  connect(m_runsTitle, &QLabel::linkActivated, this, [this] { clearFilters(); });
  runsLayout->addWidget(m_runsTitle);
  runsLayout->addLayout(filters);
  runsLayout->addLayout(actions);
  runsLayout->addWidget(m_table, 1);
  m_split = new QSplitter(Qt::Vertical, this);
  m_split->addWidget(studiesBox);
  m_split->addWidget(runsBox);
  m_split->setStretchFactor(0, 0);
  m_split->setStretchFactor(1, 1);
  connect(m_split, &QSplitter::splitterMoved, this, [this] { m_studiesSizedByHand = true; });
  layout->addWidget(m_split);
}

void HistoryView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitStudiesPane();
}

void HistoryView::fitStudiesPane() {
  if (!m_split) return;  // not laid out yet
  const int total = m_split->height() - m_split->handleWidth();
  if (m_studiesSizedByHand || total < 100) return;
  const int rows = std::clamp(m_studiesModel->rowCount(), 1, kStudyRowsShown);
  auto* title = m_split->widget(0)->layout()->itemAt(0)->widget();
  const int wanted = title->sizeHint().height() + m_split->widget(0)->layout()->spacing() +
                     m_studies->horizontalHeader()->sizeHint().height() +
                     rows * m_studies->verticalHeader()->defaultSectionSize() +
                     style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 2 * m_studies->frameWidth();
  const int studies = std::min(wanted, total * 2 / 5);
  m_split->setSizes({studies, total - studies});
}

void HistoryView::connectFiltersAndTables() {
  // Typing refreshes once it pauses (150 ms), not at every key: each refresh reads the store.
  m_typing->setSingleShot(true);
  m_typing->setInterval(150);
  connect(m_typing, &QTimer::timeout, this, &HistoryView::refresh);
  connect(m_text, &QLineEdit::textChanged, m_typing, qOverload<>(&QTimer::start));
  connect(m_tag, &QLineEdit::textChanged, m_typing, qOverload<>(&QTimer::start));
  connect(m_status, &QComboBox::currentIndexChanged, this, &HistoryView::refresh);
  connect(m_experiment, &QComboBox::currentIndexChanged, this, &HistoryView::refresh);
  m_table->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_table->horizontalHeader(), &QHeaderView::customContextMenuRequested, this,
          &HistoryView::askColumns);
  m_table->horizontalHeader()->setToolTip("Right-click: choose the columns shown");
  connect(m_table->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this,
          [this](int column, Qt::SortOrder order) {
            const QString key = m_model->key(column);
            if (key.isEmpty()) return;
            m_sortKey = key;
            m_sortOrder = order;
          });
  connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const QModelIndex source = m_proxy->mapToSource(index);
    if (source.isValid()) emit openRequested(m_model->run(source.row()).id);
  });
  connect(m_studies, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    emit studyOpenRequested(m_studiesModel->rowKey(index.row()).toLongLong());
  });
}

std::vector<int64_t> HistoryView::shownIds() const {
  std::vector<int64_t> ids;
  for (int r = 0; r < m_proxy->rowCount(); ++r)
    ids.push_back(m_model->run(m_proxy->mapToSource(m_proxy->index(r, 0)).row()).id);
  return ids;
}

void HistoryView::compareSelected() {
  auto ids = selectedRunsFor("Compare", 2);
  if (ids.size() >= 2) emit compareRequested(ids);
}

std::vector<int64_t> HistoryView::selectedRunsFor(const QString& action, size_t least) {
  auto ids = selectedIds();
  // A click with too few rows selected did nothing, and said nothing.
  if (ids.size() < least)
    emit done(QString("%1: select %2 in the list first")
                  .arg(action, least > 1 ? QString("%1 or more runs").arg(least) : "a run"));
  return ids.size() < least ? std::vector<int64_t>{} : ids;
}

std::vector<int64_t> HistoryView::selectedIds() const {
  std::set<int> rows;
  for (const auto& index : m_table->selectionModel()->selectedIndexes()) rows.insert(index.row());
  std::vector<int64_t> ids;
  for (int r : rows)
    ids.push_back(m_model->run(m_proxy->mapToSource(m_proxy->index(r, 0)).row()).id);
  return ids;
}

void HistoryView::selectIds(const std::vector<int64_t>& ids) {
  m_table->clearSelection();
  for (auto id : ids) {
    const int row = m_model->rowOf(id);
    if (row < 0) continue;
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    m_table->selectionModel()->select(index,
                                      QItemSelectionModel::Select | QItemSelectionModel::Rows);
  }
}

bool HistoryView::sortByKey(const QString& key, Qt::SortOrder order) {
  m_sortKey = key;
  m_sortOrder = order;
  const int column = m_model->column(key);
  if (column < 0) return false;
  m_table->sortByColumn(column, order);
  return true;
}

QString HistoryView::sortKey() const { return m_sortKey; }

void HistoryView::refreshStudies() {
  std::vector<study::StudyRecord> studies;
  try {
    studies = study::StudyStore(m_store).list();
  } catch (const std::exception& e) {
    emit storeError(e.what());
    return;
  }
  QVector<QVector<widgets::TextCell>> rows;
  QVector<QVariant> keys;
  // Newest first, as the runs below: a study a terminal just started was past the pane's rows.
  std::reverse(studies.begin(), studies.end());
  for (const auto& s : studies) {
    const int64_t finished = study::countOf(s.statusCounts, RunStatus::Finished);
    const int64_t failed = study::countOf(s.statusCounts, RunStatus::Failed);
    const QString status = QString::fromStdString(toString(s.status()));
    rows.push_back({{QString::number(s.id), static_cast<qlonglong>(s.id), {}, {}},
                    {QString::fromStdString(s.name),
                     {},
                     s.unreadable.empty() ? QColor() : widgets::verdictBadColor(),
                     QString::fromStdString(s.unreadable.empty() ? s.spec.title
                                                                 : "Unreadable: " + s.unreadable)},
                    {QString::fromStdString(s.experiment), {}, {}, {}},
                    {QString::number(s.cells), static_cast<qlonglong>(s.cells), {}, {}},
                    {QString::number(finished), static_cast<qlonglong>(finished), {}, {}},
                    {QString::number(failed),
                     static_cast<qlonglong>(failed),
                     failed ? widgets::verdictBadColor() : QColor(),
                     {}},
                    {status, {}, {}, {}},
                    {QDateTime::fromSecsSinceEpoch(static_cast<qint64>(s.created))
                         .toString("yyyy-MM-dd hh:mm"),
                     s.created,
                     {},
                     {}},
                    {QString::fromStdString(study::settingsText(s.spec)), {}, {}, {}}});
    keys.push_back(static_cast<qlonglong>(s.id));
  }
  m_studiesModel->setRows(
      {"id", "study", "experiment", "runs", "finished", "failed", "status", "created", "settings"},
      std::move(rows), std::move(keys));
  m_studies->resizeColumnsToContents();
  fitStudiesPane();
}

void HistoryView::refresh() {
  refreshStudies();
  store::RunFilter filter;
  filter.text = m_text->text().toStdString();
  filter.usesSetting = store::settingUseOf(m_registry);
  filter.tagPart = m_tag->text().trimmed().toStdString();
  const bool archived = m_status->currentText() == kArchived;
  m_archive->setText(archived ? "Unarchive" : "Archive");
  m_archive->setToolTip(archived ? "List the selected runs in History and `runs list` again"
                                 : "Hide the selected runs from History and `runs list` (the "
                                   "status filter's \"archived\" lists them)");
  if (archived)
    filter.onlyArchived = true;
  else if (m_status->currentIndex() > 0)
    filter.status = store::parseRunStatus(m_status->currentText().toStdString());
  if (m_experiment->currentIndex() > 0)
    filter.experiment = m_experiment->currentText().toStdString();
  std::vector<store::RunRecord> runs;
  try {
    // The experiment list offers every experiment in the store, whatever the other filters.
    QStringList experiments;
    for (const auto& name : m_store.experimentNames()) experiments << QString::fromStdString(name);
    const QString current = m_experiment->currentText();
    m_experiment->blockSignals(true);
    while (m_experiment->count() > 1) m_experiment->removeItem(1);
    m_experiment->addItems(experiments);
    m_experiment->setCurrentText(current);
    m_experiment->blockSignals(false);
    runs = m_store.listRuns(filter);
    // A study run stored before studies named their runs reads as its study names runs now.
    const auto studyNames = study::StudyStore(m_store).namesOfUnnamedRuns();
    for (auto& run : runs)
      if (auto name = studyNames.find(run.id); run.name.empty() && name != studyNames.end())
        run.name = name->second;
  } catch (const std::exception& e) {
    emit storeError(e.what());
    return;
  }
  showListedCount(static_cast<int64_t>(runs.size()));
  const auto selected = selectedIds();
  const QString sortKey = m_sortKey;
  const Qt::SortOrder sortOrder = m_sortOrder;
  m_model->setRuns(std::move(runs));
  // The same column as before, wherever the new columns put it.
  if (!sortByKey(sortKey, sortOrder)) {
    m_sortKey = sortKey;  // kept for when a later listing has that column again
    m_table->sortByColumn(0, Qt::AscendingOrder);
    m_sortKey = sortKey;
    m_sortOrder = sortOrder;
  }
  applyHiddenColumns();
  m_table->resizeColumnsToContents();
  // A long verdict is elided (its tooltip has all of it) so the metric columns stay in view.
  for (const char* key : {"verdict", "name"}) {
    const int c = m_model->column(key);
    if (c >= 0 && m_table->columnWidth(c) > 260) m_table->setColumnWidth(c, 260);
  }
  selectIds(selected);
}

bool HistoryView::isColumnHiddenByChoice(const QString& key) const {
  return m_hiddenColumns.contains(key) || (isMachineFigure(key) && !m_shownColumns.contains(key));
}

void HistoryView::setColumnShown(const QString& key, bool shown) {
  m_hiddenColumns.removeAll(key);
  m_shownColumns.removeAll(key);
  if (!shown) m_hiddenColumns << key;
  if (shown && isMachineFigure(key)) m_shownColumns << key;
  applyHiddenColumns();
}

void HistoryView::applyHiddenColumns() {
  for (int c = 0; c < m_model->columnCount(); ++c)
    m_table->setColumnHidden(
        c, c >= HistoryModel::kFrozenColumns && isColumnHiddenByChoice(m_model->key(c)));
}

void HistoryView::askColumns(const QPoint& at) {
  widgets::ChecklistMenu menu(this);
  auto* all = menu.addAction("Show every column");
  connect(all, &QAction::triggered, this, [this] {
    for (int c = HistoryModel::kFrozenColumns; c < m_model->columnCount(); ++c)
      setColumnShown(m_model->key(c), true);
  });
  menu.addSeparator();
  for (int c = HistoryModel::kFrozenColumns; c < m_model->columnCount(); ++c) {
    const QString key = m_model->key(c);
    auto* tick = menu.addAction(m_model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString());
    tick->setCheckable(true);
    tick->setChecked(!isColumnHiddenByChoice(key));
    connect(tick, &QAction::toggled, this, [this, key](bool on) { setColumnShown(key, on); });
  }
  menu.exec(m_table->horizontalHeader()->mapToGlobal(at));
}

void HistoryView::showListedCount(int64_t listed) {
  QStringList filters;
  if (!m_text->text().trimmed().isEmpty()) filters << "text";
  if (!m_tag->text().trimmed().isEmpty()) filters << "tag";
  if (m_experiment->currentIndex() > 0) filters << "experiment";
  const bool archived = m_status->currentText() == kArchived;
  if (m_status->currentIndex() > 0 && !archived) filters << "status";
  if (filters.isEmpty() && !archived) {
    m_runsTitle->setText(QString("<b>Runs</b> (%1)").arg(listed));
    return;
  }
  int64_t all = 0;
  try {
    all = m_store.listedRunCount();
  } catch (const std::exception&) {
    all = -1;
  }
  const QString of = archived   ? QString("%1 archived").arg(listed)
                     : all >= 0 ? QString("%1 of %2").arg(listed).arg(all)
                                : QString::number(listed);
  m_runsTitle->setText(QString("<b>Runs</b> (%1, filtered by %2) · <a href='#all'>show all</a>")
                           .arg(of, filters.isEmpty() ? "status" : filters.join(", ")));
}

void HistoryView::clearFilters() {
  {
    // One listing for the four changes, not one per field.
    const QSignalBlocker text(m_text), tag(m_tag), experiment(m_experiment), status(m_status);
    m_text->clear();
    m_tag->clear();
    m_experiment->setCurrentIndex(0);
    m_status->setCurrentIndex(0);
  }
  refresh();
}

bool HistoryView::refuseDeletingLiveRuns(const std::vector<int64_t>& ids) {
  // A waiting or training run's rows are still written (its writer would fail on the missing
  // rows, and the queue would lose its run): as `runs delete` does, nothing is deleted and the
  // runs are named. Stopping keeps a checkpoint, so a researcher loses nothing by stopping
  // first; cancelling here would throw away training they did not ask to lose.
  QStringList live;
  try {
    for (auto id : ids) {
      const auto run = m_store.run(id);
      const bool storedLive =
          run && (run->status == RunStatus::Running || run->status == RunStatus::Queued);
      if ((m_isLive && m_isLive(id)) || storedLive) live << QString("#%1").arg(id);
    }
  } catch (const std::exception& e) {
    emit storeError(e.what());
    return true;
  }
  if (live.isEmpty()) return false;
  emit storeError(QString("Nothing was deleted: run(s) %1 are still waiting or training. Stop "
                          "them first (the Runs dock's Stop, or the study's Stop; each keeps a "
                          "checkpoint), then delete them.")
                      .arg(live.join(", ")));
  return true;
}

QString HistoryView::studiesMissing(const std::vector<int64_t>& ids, bool deleted) const {
  std::map<int64_t, std::vector<int64_t>> runsOfStudy;
  try {
    const study::StudyStore studies(m_store);
    for (const auto id : ids)
      for (const auto& [studyId, axes] : studies.studiesOfRun(id))
        runsOfStudy[studyId].push_back(id);
  } catch (const std::exception&) {
    return {};  // the question is asked all the same; the deletion says what fails
  }
  QStringList said;
  for (const auto& [studyId, runs] : runsOfStudy) {
    QStringList named;
    for (const auto id : runs) named << QString("#%1").arg(id);
    const bool one = runs.size() == 1;
    const QString it = one ? "it" : "them";
    if (deleted)
      said << QString("Study %1 now misses %2 %3 (its Resume study trains %4 again).")
                  .arg(studyId)
                  .arg(one ? "run" : "runs", named.join(", "), it);
    else
      said << QString(
                  "%1 %2 %3 of study %4, which then misses %5 (its Resume study trains %5 "
                  "again).")
                  .arg(one ? "Run" : "Runs", named.join(", "), one ? "is a run" : "are runs")
                  .arg(studyId)
                  .arg(it);
  }
  return said.join(" ");
}

int HistoryView::deleteRuns(const std::vector<int64_t>& ids) {
  if (ids.empty() || refuseDeletingLiveRuns(ids)) return 0;
  const QString missing = studiesMissing(ids, /*deleted=*/true);
  int deleted = 0;
  try {
    deleted = m_store.deleteRuns(ids);
  } catch (const std::exception& e) {
    emit storeError(e.what());
  }
  refresh();
  if (deleted > 0) {
    emit runsDeleted(ids);
    emit done(QString("Deleted %1 run(s).").arg(deleted) +
              (missing.isEmpty() ? QString() : " " + missing));
  }
  return deleted;
}

bool HistoryView::exportRuns(const std::vector<int64_t>& ids, const QString& path, QString* error) {
  std::vector<store::RunRecord> runs;
  for (auto id : ids)
    if (auto r = m_store.run(id)) runs.push_back(*r);
  // The CLI's export: complete files or none, a failure named (a full disk, a missing folder).
  std::vector<std::string> written;
  try {
    written = store::exportRunsToFile(m_store, &m_registry, runs, path.toStdString(),
                                      path.endsWith(".json", Qt::CaseInsensitive));
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  emit done(QString("Exported %1 run(s) to %2")
                .arg(runs.size())
                .arg(QString::fromStdString(spokenList(written))));
  return true;
}

void HistoryView::askDelete() {
  const auto ids = selectedRunsFor("Delete", 1);
  if (ids.empty() || refuseDeletingLiveRuns(ids)) return;  // before asking to confirm
  // The runs by id and name, so that what goes is read before it goes.
  constexpr size_t kNamedRuns = 8;
  QStringList named;
  const int nameColumn = m_model->column("name");
  for (size_t i = 0; i < ids.size() && i < kNamedRuns; ++i) {
    const int row = m_model->rowOf(ids[i]);
    const QString name =
        row >= 0 ? m_model->data(m_model->index(row, nameColumn), Qt::DisplayRole).toString()
                 : QString();
    named << QString("#%1%2").arg(ids[i]).arg(name.isEmpty() ? QString() : " " + name);
  }
  if (ids.size() > kNamedRuns) named << QString("and %1 more").arg(ids.size() - kNamedRuns);
  const QString missing = studiesMissing(ids);
  // No is the default: Enter on this dialog must never delete.
  const auto answer = QMessageBox::question(
      this, "Delete runs",
      QString("Delete %1 with %2 metrics, snapshots and checkpoints?\n\n%3\n\n%4This cannot "
              "be undone.")
          .arg(ids.size() == 1 ? QString("this run") : QString("these %1 runs").arg(ids.size()),
               ids.size() == 1 ? "its" : "their", named.join("\n"),
               missing.isEmpty() ? QString() : missing + "\n\n"),
      QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
  if (answer == QMessageBox::Yes) deleteRuns(ids);
}

void HistoryView::askExport() {
  const auto ids = selectedRunsFor("Export", 1);
  if (ids.empty()) return;
  // Named by its runs, as the plots' files are: "runs.csv" overwrote the last export.
  const QString path = widgets::askSaveFileName(this, "Export runs", exportStem(ids) + ".csv",
                                                "Metrics CSV (*.csv);;Everything as JSON (*.json)");
  if (path.isEmpty()) return;
  QString error;
  if (!exportRuns(ids, path, &error)) emit storeError(error);
}

void HistoryView::askEdit(const QString& what) {
  const auto ids = selectedRunsFor(what == "rename" ? "Rename" : what == "tag" ? "Tag" : "Note", 1);
  if (ids.empty()) return;
  std::vector<store::RunRecord> runs;
  try {
    for (auto id : ids)
      if (auto r = m_store.run(id)) runs.push_back(std::move(*r));
  } catch (const std::exception& e) {
    emit storeError(e.what());
    return;
  }
  if (runs.empty()) return;
  // The dialog starts with what the runs hold: OK without typing changes nothing.
  std::vector<std::string> names, notes;
  std::vector<std::vector<std::string>> tagsOfRuns;
  for (const auto& r : runs) {
    names.push_back(r.name);
    notes.push_back(r.notes);
    tagsOfRuns.push_back(r.tags);
  }
  const QString which = runs.size() == 1 ? QString("run #%1").arg(runs.front().id)
                                         : QString("the %1 selected runs").arg(runs.size());
  const auto differ = [&](const std::vector<std::string>& values) {
    return runs.size() > 1 && sharedValue(values).empty() &&
           std::any_of(values.begin(), values.end(), [](const auto& v) { return !v.empty(); });
  };
  bool ok = false;
  try {
    if (what == "rename") {
      const QString label = "Name of " + which +
                            (differ(names) ? " (their names differ: this one replaces them)" : "");
      const QString text =
          widgets::askText(this, "Rename", label, QString::fromStdString(sharedValue(names)), &ok);
      if (!ok) return;
      // A blank name is refused, as `runs rename` refuses it: it took the generated name off
      // for good ("demo, edited: epochs 20" is not made again), the legends left with an id.
      if (fl::text::isBlank(text.toStdString())) {
        emit done(QString("A name cannot be blank: %1 keeps %2")
                      .arg(which, runs.size() == 1 ? "its name" : "their names"));
        return;
      }
      for (const auto& r : runs) m_store.rename(r.id, text.trimmed().toStdString());
      emit done(QString("Renamed %1 to '%2'").arg(which, text.trimmed()));
    } else if (what == "note") {
      const QString label =
          "Notes of " + which + (differ(notes) ? " (their notes differ: this replaces them)" : "");
      const QString text = QInputDialog::getMultiLineText(
          this, "Note", label, QString::fromStdString(sharedValue(notes)), &ok);
      if (!ok) return;
      for (const auto& r : runs) m_store.setNotes(r.id, text.toStdString());
      emit done(text.isEmpty() ? QString("Cleared the notes of %1").arg(which)
                               : QString("Noted %1").arg(which));
    } else {
      const auto shown = sharedTags(tagsOfRuns);
      QString shownText;
      for (const auto& t : shown)
        shownText += (shownText.isEmpty() ? "" : ", ") + QString::fromStdString(t);
      const QString label =
          "Tags of " + which + ", comma separated: take one out to remove it" +
          (runs.size() > 1 ? QString(" (tags only some of them hold are kept)") : QString());
      const QString text = widgets::askText(this, "Tags", label, shownText, &ok);
      if (!ok) return;
      const TagEdit edit = tagEdit(shown, parseTagList(text.toStdString()));
      for (const auto& tag : edit.added)
        if (auto problem = store::tagProblem(tag)) throw std::invalid_argument(*problem);
      for (const auto& r : runs) {
        if (!edit.added.empty()) m_store.addTags(r.id, edit.added);
        for (const auto& tag : edit.removed) m_store.removeTag(r.id, tag);
      }
      QStringList changes;
      for (const auto& tag : edit.added) changes << "+" + QString::fromStdString(tag);
      for (const auto& tag : edit.removed) changes << "-" + QString::fromStdString(tag);
      emit done(changes.isEmpty() ? QString("The tags of %1 are unchanged").arg(which)
                                  : QString("Tagged %1: %2").arg(which, changes.join(" ")));
    }
  } catch (const std::exception& e) {
    emit storeError(e.what());
  }
  refresh();
  emit runsEdited(ids);
}

void HistoryView::saveSettings(QSettings& settings) const {
  settings.setValue("history/text", m_text->text());
  settings.setValue("history/tag", m_tag->text());
  settings.setValue("history/status", m_status->currentText());
  settings.setValue("history/experiment", m_experiment->currentText());
  settings.setValue("history/sortKey", m_sortKey);
  settings.setValue("history/sortOrder", static_cast<int>(m_sortOrder));
  settings.setValue("history/hiddenColumns", m_hiddenColumns);
  settings.setValue("history/shownColumns", m_shownColumns);
}

void HistoryView::restoreSettings(const QSettings& settings) {
  m_text->setText(settings.value("history/text").toString());
  m_tag->setText(settings.value("history/tag").toString());
  m_status->setCurrentText(settings.value("history/status", "any status").toString());
  // The experiment list is filled from the store on refresh; keep the wish until then.
  const QString experiment = settings.value("history/experiment").toString();
  if (!experiment.isEmpty() && m_experiment->findText(experiment) < 0)
    m_experiment->addItem(experiment);
  m_experiment->setCurrentText(experiment.isEmpty() ? "any experiment" : experiment);
  // By key: the columns of the next listing need not be those of the last one.
  m_sortKey = settings.value("history/sortKey", "id").toString();
  m_sortOrder = static_cast<Qt::SortOrder>(
      settings.value("history/sortOrder", static_cast<int>(Qt::DescendingOrder)).toInt());
  m_hiddenColumns = settings.value("history/hiddenColumns").toStringList();
  m_shownColumns = settings.value("history/shownColumns").toStringList();
}

}  // namespace fl::gui
