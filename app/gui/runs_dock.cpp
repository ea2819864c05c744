#include "app/gui/runs_dock.h"

#include <QAbstractItemView>
#include <QColorDialog>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "app/gui/runs_table_model.h"
#include "widgets/one_line_rows.h"
#include "widgets/progress_delegate.h"

namespace fl::gui {

namespace {

// Asks for three rows, not QTableView's default third of the window: the plots above get the
// height at 1280 x 720, and the dock can still be dragged taller. With no rows it says why and
// what fills it, instead of showing a blank grid (a window opened on a stored run trains none).
class RunsTableView : public QTableView {
 public:
  RunsTableView(std::function<QString()> searchText, QWidget* parent)
      : QTableView(parent), m_searchText(std::move(searchText)) {}
  QSize sizeHint() const override {
    return {QTableView::sizeHint().width(), horizontalHeader()->sizeHint().height() +
                                                3 * verticalHeader()->defaultSectionSize() +
                                                2 * frameWidth()};
  }
  // What the empty table says: no match for the search, or how runs get here.
  QString emptyText() const {
    if (model() && model()->rowCount() > 0) return {};
    const QString search = m_searchText();
    if (!search.isEmpty()) return QString("No run here matches \u201c%1\u201d").arg(search);
    return "The runs trained or opened in this window are listed here: Run or Run comparison "
           "starts one, a study's Run study starts its runs, and History opens past ones.";
  }

 protected:
  void paintEvent(QPaintEvent* event) override {
    QTableView::paintEvent(event);
    const QString text = emptyText();
    if (text.isEmpty()) return;
    QPainter painter(viewport());
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(viewport()->rect().adjusted(8, 4, -8, -4), Qt::AlignCenter | Qt::TextWordWrap,
                     text);
  }

 private:
  std::function<QString()> m_searchText;
};

// The search's filter, with pinned runs on top; otherwise the rows keep the queue's order.
class PinnedFirst : public QSortFilterProxyModel {
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;

 protected:
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override {
    const bool leftPinned = left.data(RunsTableModel::kPinnedRole).toBool();
    const bool rightPinned = right.data(RunsTableModel::kPinnedRole).toBool();
    if (leftPinned != rightPinned) return leftPinned;
    return left.row() < right.row();
  }
};

}  // namespace

// Columns as wide as what they hold: the name gets the room (at 100 px each, "demo, edited:
// epochs 600, samples 2000" wrapped to "demo, edited: / epochs 600, ..." beside an ETA column
// holding "-"), the verdict the rest.
void RunsDock::sizeColumns() {
  const QFontMetrics metrics(m_table->font());
  const auto fit = [&](std::initializer_list<const char*> samples, int extra = 0) {
    int width = 0;
    for (const char* sample : samples) width = std::max(width, metrics.horizontalAdvance(sample));
    return width + 20 + extra;  // the cell's margins
  };
  const int box = m_table->style()->pixelMetric(QStyle::PM_IndicatorWidth);
  m_table->setColumnWidth(RunsTableModel::kRun, fit({"#00000"}, box + metrics.height() + 8));
  m_table->setColumnWidth(RunsTableModel::kName, 28 * metrics.averageCharWidth() + 20);
  m_table->setColumnWidth(RunsTableModel::kStatus, fit({"interrupted", "cancelled", "waiting"}));
  m_table->setColumnWidth(RunsTableModel::kProgress, std::max(150, fit({"step 000000/000000"})));
  m_table->setColumnWidth(RunsTableModel::kEta, fit({"00:00:00", "ETA"}));
  m_table->setColumnWidth(RunsTableModel::kThreads, fit({"threads"}));
  m_table->setColumnWidth(RunsTableModel::kDevice, fit({"cuda:0", "device"}));
}

RunsDock::RunsDock(RunsTableModel* model, QWidget* parent)
    : QDockWidget("Runs", parent),
      m_model(model),
      m_filter(new PinnedFirst(this)),
      m_table(new RunsTableView([this] { return m_search->text(); }, this)),
      m_search(new QLineEdit(this)),
      m_groupChoice(new QComboBox(this)),
      m_titleTimer(new QTimer(this)) {
  setObjectName("runs");
  // Pinned runs first, then the queue's order; the search only leaves rows out.
  m_filter->setSourceModel(model);
  m_filter->setFilterKeyColumn(-1);
  m_filter->setFilterCaseSensitivity(Qt::CaseInsensitive);
  m_filter->sort(0);
  m_table->setModel(m_filter);
  // A run just launched (or a study's next run) comes into view: below a full table it was
  // added out of sight, and the researcher saw nothing happen.
  connect(m_filter, &QAbstractItemModel::rowsInserted, this,
          [this](const QModelIndex& parent, int, int last) {
            // Once the view has laid the new rows out: before, its scroll range lacks them.
            QTimer::singleShot(
                0, m_table, [this, row = QPersistentModelIndex(m_filter->index(last, 0, parent))] {
                  // Not under the pointer: a study's runs, starting one by one, scrolled the
                  // table as the researcher clicked, and the click took another run.
                  if (!row.isValid() || m_table->viewport()->underMouse()) return;
                  // Laid out now: the view's own delayed layout may come after this, and the
                  // scroll range then lacked the new row (the row above it came into view).
                  m_table->doItemsLayout();
                  m_table->scrollTo(row);
                });
          });
  m_table->setItemDelegateForColumn(RunsTableModel::kProgress,
                                    new widgets::ProgressDelegate(m_table));
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_table->verticalHeader()->hide();
  widgets::setOneLineRows(m_table);
  m_table->horizontalHeader()->setStretchLastSection(true);
  sizeColumns();
  m_table->setToolTip("Click a run to show it; Ctrl- or Shift-click several to overlay them");
  auto* panel = new QWidget(this);
  auto* layout = new QVBoxLayout(panel);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(m_table);
  auto* row = new QHBoxLayout;
  m_search->setPlaceholderText("search runs: id, name, status, device, verdict");
  m_search->setClearButtonEnabled(true);
  connect(m_search, &QLineEdit::textChanged, m_filter,
          &QSortFilterProxyModel::setFilterFixedString);
  connect(m_search, &QLineEdit::textChanged, m_table->viewport(),
          qOverload<>(&QWidget::update));  // the empty table's words follow the search
  row->addWidget(m_search, 1);
  m_groupChoice->setToolTip(
      "Group the runs on the plots: each group of two or more is drawn as its members' mean with "
      "a band of one standard deviation. Setting: the seeds of one config averaged.");
  m_groupChoice->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  updateGroupChoices();
  connect(m_groupChoice, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index >= 0)
      emit groupByChosen(GroupBy::parse(m_groupChoice->itemData(index).toString().toStdString()));
  });
  row->addWidget(m_groupChoice);
  auto* stop = m_stop = new QPushButton("Stop the shown run", panel);
  setStopEnabled(false, kNothingToStop);  // until a run that trains is shown
  row->addWidget(stop);
  layout->addLayout(row);
  setWidget(panel);
  connect(stop, &QPushButton::clicked, this, &RunsDock::stopRequested);
  m_table->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_table, &QTableView::customContextMenuRequested, this, [this](const QPoint& at) {
    const QModelIndex index = m_filter->mapToSource(m_table->indexAt(at));
    if (QMenu* menu = menuForRow(index.isValid() ? index.row() : -1)) {
      menu->exec(m_table->viewport()->mapToGlobal(at));
      menu->deleteLater();
    }
  });
  // Counting reads every row: at most four times a second, not once per run that reported
  // (a study of hundreds of runs repaints rows dozens of times a tick).
  m_titleTimer->setSingleShot(true);
  m_titleTimer->setInterval(250);
  connect(m_titleTimer, &QTimer::timeout, this, [this] {
    updateTitle();
    updateGroupChoices();
  });
  auto countSoon = [this] {
    if (!m_titleTimer->isActive()) m_titleTimer->start();
  };
  connect(model, &QAbstractItemModel::dataChanged, this, countSoon);
  connect(model, &QAbstractItemModel::rowsInserted, this, countSoon);
  connect(model, &QAbstractItemModel::rowsRemoved, this, countSoon);
  // Ticking an eye is a click on the row too: that click must not show the run alone after.
  connect(m_model, &RunsTableModel::shownToggled, this, [this] {
    m_eyeToggled = true;
    QTimer::singleShot(0, this, [this] { m_eyeToggled = false; });
  });
  // A click, not any change of selection: rows added by the queue never move the display.
  connect(m_table, &QTableView::clicked, this, [this] {
    if (m_eyeToggled) return;
    std::vector<int64_t> ids;
    for (const auto& index : m_table->selectionModel()->selectedRows())
      ids.push_back(runAtViewRow(index.row()));
    const int64_t current = runAtViewRow(m_table->currentIndex().row());
    if (auto it = std::find(ids.begin(), ids.end(), current); it != ids.end())
      std::rotate(ids.begin(), it, it + 1);
    if (!ids.empty()) emit showRequested(ids);
  });
}

QString RunsDock::emptyTableText() const {
  return static_cast<const RunsTableView*>(m_table)->emptyText();
}

QMenu* RunsDock::menuForRow(int row) {
  const int64_t id = m_model->runAt(row);
  if (id == 0) return nullptr;
  auto* menu = new QMenu(this);
  connect(menu->addAction(QString("Show run #%1").arg(id)), &QAction::triggered, this,
          [this, id] { emit showRequested({id}); });
  auto* stop = menu->addAction("Stop (keeps a checkpoint)");
  stop->setEnabled(m_model->isLive(id));
  connect(stop, &QAction::triggered, this, [this, id] { emit stopRunRequested(id); });
  auto* resume = menu->addAction("Resume from its last checkpoint");
  resume->setEnabled(m_model->isResumable(id));
  connect(resume, &QAction::triggered, this, [this, id] { emit resumeRequested(id); });
  const bool pinned = m_model->data(m_model->index(row, 0), RunsTableModel::kPinnedRole).toBool();
  connect(menu->addAction(pinned ? "Unpin" : "Pin to the top"), &QAction::triggered, this,
          [this, id, pinned] { emit pinRequested(id, !pinned); });
  menu->addSeparator();
  connect(menu->addAction("Colour…"), &QAction::triggered, this, [this, id] {
    const QColor color = QColorDialog::getColor(
        m_model->data(m_model->index(m_model->rowOf(id), RunsTableModel::kRun), Qt::DecorationRole)
            .value<QColor>(),
        this, QString("Colour of run #%1").arg(id));
    if (color.isValid()) emit colorChosen(id, color);
  });
  connect(menu->addAction("Palette colour"), &QAction::triggered, this,
          [this, id] { emit colorChosen(id, QColor()); });
  return menu;
}

void RunsDock::updateTitle() {
  // In the order a run lives them; states with no run are left out.
  static const char* const order[] = {"running",   "waiting",     "queued", "finished",
                                      "cancelled", "interrupted", "failed"};
  std::map<QString, int> counts;
  for (int row = 0; row < m_model->rowCount(); ++row)
    ++counts[m_model->index(row, RunsTableModel::kStatus).data().toString()];
  QStringList parts;
  for (const char* state : order)
    if (auto it = counts.find(state); it != counts.end()) {
      parts << QString("%1 %2").arg(it->second).arg(state);
      counts.erase(it);
    }
  for (const auto& [state, count] : counts)
    if (!state.isEmpty()) parts << QString("%1 %2").arg(count).arg(state);
  setWindowTitle(parts.isEmpty() ? "Runs" : "Runs: " + parts.join(" · "));
}

void RunsDock::setGroupBy(const GroupBy& by) {
  int index = m_groupChoice->findData(QString::fromStdString(by.name()));
  if (index < 0) {
    // A key none of the listed runs sets apart (yet): offered all the same, as chosen.
    m_groupChoice->addItem(QString("Group: %1").arg(QString::fromStdString(by.label())),
                           QString::fromStdString(by.name()));
    index = m_groupChoice->count() - 1;
  }
  m_groupChoice->setCurrentIndex(index);
}

GroupBy RunsDock::groupBy() const {
  return GroupBy::parse(m_groupChoice->currentData().toString().toStdString());
}

void RunsDock::setStopEnabled(bool enabled, const QString& why) {
  m_stop->setEnabled(enabled);
  // Grey, it says why: it was enabled on a finished run and did nothing when clicked.
  m_stop->setToolTip(why);
}

void RunsDock::scrollToRun(int64_t runId) {
  // Queued after the scrolls of the rows just inserted, which are queued as they come.
  QTimer::singleShot(0, m_table, [this, runId] {
    const int row = m_model->rowOf(runId);
    if (row < 0) return;
    const QModelIndex shown = m_filter->mapFromSource(m_model->index(row, 0));
    if (!shown.isValid()) return;
    m_table->doItemsLayout();  // as for a new row: its scroll range may lack the run's row yet
    m_table->scrollTo(shown);
  });
}

void RunsDock::selectRuns(const std::vector<int64_t>& runIds) {
  QItemSelection rows;
  for (auto id : runIds) {
    const int row = m_model->rowOf(id);
    if (row < 0) continue;
    const QModelIndex shown = m_filter->mapFromSource(m_model->index(row, 0));
    if (shown.isValid()) rows.select(shown, shown);
  }
  m_table->selectionModel()->select(
      rows, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void RunsDock::updateGroupChoices() {
  const GroupBy chosen = groupBy();
  std::vector<GroupBy> choices{{}, {GroupBy::Kind::Study, {}}, {GroupBy::Kind::Setting, {}}};
  std::set<std::string> keys;
  for (const auto& key : m_model->differingConfigKeys()) keys.insert(key);
  if (m_extraGroupKeys)
    for (const auto& key : m_extraGroupKeys()) keys.insert(key);
  keys.erase("seed");  // a seed's groups would be single runs
  for (const auto& key : keys) choices.push_back({GroupBy::Kind::Key, key});
  if (std::find(choices.begin(), choices.end(), chosen) == choices.end()) choices.push_back(chosen);
  QStringList names;
  for (const auto& by : choices) names << QString::fromStdString(by.name());
  QStringList offered;
  for (int i = 0; i < m_groupChoice->count(); ++i) offered << m_groupChoice->itemData(i).toString();
  // Not under the reader's pointer: an open list is left as it is until it closes.
  if (names == offered || m_groupChoice->view()->isVisible()) return;
  // Made again without a word: the choice itself does not change.
  const QSignalBlocker quiet(m_groupChoice);
  m_groupChoice->clear();
  for (const auto& by : choices)
    m_groupChoice->addItem(QString("Group: %1").arg(QString::fromStdString(by.label())),
                           QString::fromStdString(by.name()));
  m_groupChoice->setCurrentIndex(m_groupChoice->findData(QString::fromStdString(chosen.name())));
}

int64_t RunsDock::runAtViewRow(int row) const {
  return m_model->runAt(m_filter->mapToSource(m_filter->index(row, 0)).row());
}

}  // namespace fl::gui
