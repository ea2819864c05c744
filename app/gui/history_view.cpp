#include "app/gui/history_view.h"

#include <QColor>
#include <QComboBox>
#include <QDateTime>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>
#include <set>

#include "core/engine/reference_check.h"
#include "core/store/run_export.h"
#include "core/store/run_store.h"
#include "widgets/run_colors.h"

namespace fl::gui {

namespace {

QTableWidgetItem* textItem(const QString& text) {
  auto* i = new QTableWidgetItem(text);
  i->setFlags(i->flags() & ~Qt::ItemIsEditable);
  return i;
}

QTableWidgetItem* numberItem(double v) {
  auto* i = textItem(std::isfinite(v) ? QString::number(v, 'g', 5) : "-");
  i->setData(Qt::EditRole, v);  // sorts as a number
  return i;
}

// Config keys whose values differ between the listed runs: the columns worth showing.
std::vector<std::string> differingKeys(const std::vector<store::RunRecord>& runs) {
  std::set<std::string> keys;
  for (const auto& r : runs)
    for (const auto& [k, v] : r.config.items()) keys.insert(k);
  std::vector<std::string> out;
  for (const auto& k : keys) {
    std::set<std::string> seen;
    for (const auto& r : runs) seen.insert(r.config.value(k, nlohmann::json()).dump());
    if (seen.size() > 1) out.push_back(k);
  }
  return out;
}

}  // namespace

HistoryView::HistoryView(store::RunStore& store, QWidget* parent)
    : QWidget(parent), m_store(store), m_table(new QTableWidget(this)), m_text(new QLineEdit(this)),
      m_status(new QComboBox(this)), m_experiment(new QComboBox(this)), m_tag(new QLineEdit(this)),
      m_typing(new QTimer(this)) {
  auto* layout = new QVBoxLayout(this);
  auto* filters = new QHBoxLayout;
  m_text->setPlaceholderText("filter: name, notes, experiment");
  m_tag->setPlaceholderText("tag");
  m_status->addItems({"any status", "finished", "running", "cancelled", "failed", "interrupted", "queued"});
  m_experiment->addItem("any experiment");
  filters->addWidget(m_text, 2);
  filters->addWidget(m_experiment);
  filters->addWidget(m_status);
  filters->addWidget(m_tag, 1);
  auto* open = new QPushButton("Open", this);
  auto* compare = new QPushButton("Compare", this);
  compare->setToolTip("Overlay the selected runs' curves on shared axes, with a table of the "
                      "config values that differ (Ctrl+Shift+C)");
  auto* resume = new QPushButton("Resume", this);
  resume->setToolTip("Continue an interrupted or cancelled run from its last checkpoint");
  auto* rename = new QPushButton("Rename…", this);
  auto* tag = new QPushButton("Tag…", this);
  auto* note = new QPushButton("Note…", this);
  auto* exportButton = new QPushButton("Export…", this);
  auto* remove = new QPushButton("Delete…", this);
  for (auto* b : {open, compare, resume, rename, tag, note, exportButton, remove}) filters->addWidget(b);
  layout->addLayout(filters);
  layout->addWidget(m_table, 1);
  m_table->setSortingEnabled(true);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->verticalHeader()->hide();

  // Typing refreshes once it pauses (150 ms), not at every key: each refresh reads the store.
  m_typing->setSingleShot(true);
  m_typing->setInterval(150);
  connect(m_typing, &QTimer::timeout, this, &HistoryView::refresh);
  connect(m_text, &QLineEdit::textChanged, m_typing, qOverload<>(&QTimer::start));
  connect(m_tag, &QLineEdit::textChanged, m_typing, qOverload<>(&QTimer::start));
  connect(m_status, &QComboBox::currentIndexChanged, this, &HistoryView::refresh);
  connect(m_experiment, &QComboBox::currentIndexChanged, this, &HistoryView::refresh);
  connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    emit openRequested(m_table->item(row, 0)->data(Qt::EditRole).toLongLong());
  });
  connect(open, &QPushButton::clicked, this, [this] {
    auto ids = selectedIds();
    if (!ids.empty()) emit openRequested(ids.front());
  });
  connect(compare, &QPushButton::clicked, this, [this] {
    auto ids = selectedIds();
    if (ids.size() >= 2) emit compareRequested(ids);
  });
  connect(resume, &QPushButton::clicked, this, [this] {
    auto ids = selectedIds();
    if (!ids.empty()) emit resumeRequested(ids.front());
  });
  connect(rename, &QPushButton::clicked, this, [this] { askEdit("rename"); });
  connect(tag, &QPushButton::clicked, this, [this] { askEdit("tag"); });
  connect(note, &QPushButton::clicked, this, [this] { askEdit("note"); });
  connect(exportButton, &QPushButton::clicked, this, &HistoryView::askExport);
  connect(remove, &QPushButton::clicked, this, &HistoryView::askDelete);
}

std::vector<int64_t> HistoryView::selectedIds() const {
  std::set<int> rows;
  for (auto* i : m_table->selectedItems()) rows.insert(i->row());
  std::vector<int64_t> ids;
  for (int r : rows) ids.push_back(m_table->item(r, 0)->data(Qt::EditRole).toLongLong());
  return ids;
}

void HistoryView::refresh() {
  store::RunFilter filter;
  filter.text = m_text->text().toStdString();
  filter.tag = m_tag->text().trimmed().toStdString();
  if (m_status->currentIndex() > 0) filter.status = store::parseRunStatus(m_status->currentText().toStdString());
  if (m_experiment->currentIndex() > 0) filter.experiment = m_experiment->currentText().toStdString();
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
  } catch (const std::exception& e) {
    emit storeError(e.what());
    return;
  }
  QStringList metricKeys;
  for (const auto& r : runs)
    for (const auto& m : r.metrics)
      if (!metricKeys.contains(QString::fromStdString(m.key))) metricKeys << QString::fromStdString(m.key);
  const auto params = differingKeys(runs);
  QStringList headers{"id", "experiment", "name", "status", "created", "tags"};
  for (const auto& p : params) headers << QString::fromStdString(p);
  for (const auto& k : metricKeys) headers << k + " (last)" << k + " (min)" << k + " (max)";
  m_table->setSortingEnabled(false);
  m_table->clear();
  m_table->setColumnCount(headers.size());
  m_table->setHorizontalHeaderLabels(headers);
  m_table->setRowCount(static_cast<int>(runs.size()));
  const int metricBase = 6 + static_cast<int>(params.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    const int row = static_cast<int>(i);
    auto* id = numberItem(static_cast<double>(r.id));
    id->setForeground(widgets::runColor(r.id));
    m_table->setItem(row, 0, id);
    m_table->setItem(row, 1, textItem(QString::fromStdString(r.experiment)));
    m_table->setItem(row, 2, textItem(QString::fromStdString(r.name)));
    // A finished run's message is its verdicts ("LEAKS -- detail; val/loss 1.2 vs paper 0.3"):
    // the first one's headline beside the status, all of it in the tooltip. Failed runs and
    // bad verdicts in red.
    const QString message = QString::fromStdString(r.message);
    QString status = QString::fromStdString(toString(r.status));
    const QString headline = QString::fromStdString(verdictHeadline(r.message));
    if (r.status == RunStatus::Finished && !headline.isEmpty()) status += ": " + headline;
    auto* statusItem = textItem(status);
    statusItem->setToolTip(message);
    if (r.status == RunStatus::Failed || headline.contains("LEAKS") || headline.contains("outside"))
      statusItem->setForeground(QColor(170, 0, 0));
    m_table->setItem(row, 3, statusItem);
    m_table->setItem(row, 4, textItem(QDateTime::fromSecsSinceEpoch(static_cast<qint64>(r.created)).toString("yyyy-MM-dd hh:mm")));
    QStringList tags;
    for (const auto& t : r.tags) tags << QString::fromStdString(t);
    m_table->setItem(row, 5, textItem(tags.join(", ")));
    for (size_t p = 0; p < params.size(); ++p) {
      const auto v = r.config.value(params[p], nlohmann::json());
      m_table->setItem(row, 6 + static_cast<int>(p),
                       v.is_number() ? numberItem(v.get<double>())
                                     : textItem(QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump())));
    }
    for (const auto& m : r.metrics) {
      const int column = metricBase + 3 * static_cast<int>(metricKeys.indexOf(QString::fromStdString(m.key)));
      m_table->setItem(row, column, numberItem(m.last));
      m_table->setItem(row, column + 1, numberItem(m.min));
      m_table->setItem(row, column + 2, numberItem(m.max));
    }
  }
  m_table->setSortingEnabled(true);
  m_table->resizeColumnsToContents();
  // A long verdict is elided (its tooltip has all of it) so the metric columns stay in view.
  if (m_table->columnWidth(3) > 280) m_table->setColumnWidth(3, 280);
}

int HistoryView::deleteRuns(const std::vector<int64_t>& ids) {
  int deleted = 0;
  try {
    deleted = m_store.deleteRuns(ids);
  } catch (const std::exception& e) {
    emit storeError(e.what());
  }
  refresh();
  return deleted;
}

bool HistoryView::exportRuns(const std::vector<int64_t>& ids, const QString& path, QString* error) {
  std::vector<store::RunRecord> runs;
  for (auto id : ids)
    if (auto r = m_store.run(id)) runs.push_back(*r);
  // The CLI's export: complete files or none, a failure named (a full disk, a missing folder).
  try {
    store::exportRunsToFile(m_store, runs, path.toStdString(),
                            path.endsWith(".json", Qt::CaseInsensitive));
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return true;
}

void HistoryView::askDelete() {
  const auto ids = selectedIds();
  if (ids.empty()) return;
  if (QMessageBox::question(this, "Delete runs",
                            QString("Delete %1 run(s) with their metrics, snapshots and checkpoints? "
                                    "This cannot be undone.").arg(ids.size())) == QMessageBox::Yes)
    deleteRuns(ids);
}

void HistoryView::askExport() {
  const auto ids = selectedIds();
  if (ids.empty()) return;
  const QString path = QFileDialog::getSaveFileName(this, "Export runs", "runs.csv",
                                                    "Metrics CSV (*.csv);;Everything as JSON (*.json)");
  if (path.isEmpty()) return;
  QString error;
  if (!exportRuns(ids, path, &error)) emit storeError(error);
}

void HistoryView::askEdit(const QString& what) {
  const auto ids = selectedIds();
  if (ids.empty()) return;
  bool ok = false;
  const QString text = QInputDialog::getText(this, what, what == "tag" ? "Tags (comma separated)" : what, QLineEdit::Normal, "", &ok);
  if (!ok) return;
  try {
    for (auto id : ids) {
      if (what == "rename") m_store.rename(id, text.toStdString());
      else if (what == "note") m_store.setNotes(id, text.toStdString());
      else {
        std::vector<std::string> tags;
        for (const auto& t : text.split(',', Qt::SkipEmptyParts))
          if (!t.trimmed().isEmpty()) tags.push_back(t.trimmed().toStdString());
        m_store.addTags(id, tags);
      }
    }
  } catch (const std::exception& e) {
    emit storeError(e.what());
  }
  refresh();
}

void HistoryView::saveSettings(QSettings& settings) const {
  settings.setValue("history/text", m_text->text());
  settings.setValue("history/tag", m_tag->text());
  settings.setValue("history/status", m_status->currentText());
  settings.setValue("history/experiment", m_experiment->currentText());
  settings.setValue("history/sortColumn", m_table->horizontalHeader()->sortIndicatorSection());
  settings.setValue("history/sortOrder", static_cast<int>(m_table->horizontalHeader()->sortIndicatorOrder()));
}

void HistoryView::restoreSettings(const QSettings& settings) {
  m_text->setText(settings.value("history/text").toString());
  m_tag->setText(settings.value("history/tag").toString());
  m_status->setCurrentText(settings.value("history/status", "any status").toString());
  // The experiment list is filled from the store on refresh; keep the wish until then.
  const QString experiment = settings.value("history/experiment").toString();
  if (!experiment.isEmpty() && m_experiment->findText(experiment) < 0) m_experiment->addItem(experiment);
  m_experiment->setCurrentText(experiment.isEmpty() ? "any experiment" : experiment);
  if (settings.contains("history/sortColumn"))
    m_table->sortByColumn(settings.value("history/sortColumn").toInt(),
                          static_cast<Qt::SortOrder>(settings.value("history/sortOrder").toInt()));
}

}  // namespace fl::gui
