#include "app/gui/runs_dock.h"

#include <QHeaderView>
#include <QMenu>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

#include "app/gui/runs_table_model.h"
#include "widgets/progress_delegate.h"

namespace fl::gui {

namespace {

// Asks for three rows, not QTableView's default third of the window: the plots above get the
// height at 1280 x 720, and the dock can still be dragged taller.
class RunsTableView : public QTableView {
 public:
  using QTableView::QTableView;
  QSize sizeHint() const override {
    return {QTableView::sizeHint().width(), horizontalHeader()->sizeHint().height() +
                                                3 * verticalHeader()->defaultSectionSize() +
                                                2 * frameWidth()};
  }
};

}  // namespace

RunsDock::RunsDock(RunsTableModel* model, QWidget* parent)
    : QDockWidget("Runs", parent), m_model(model), m_table(new RunsTableView(this)) {
  setObjectName("runs");
  m_table->setModel(model);
  m_table->setItemDelegateForColumn(RunsTableModel::kProgress,
                                    new widgets::ProgressDelegate(m_table));
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setColumnWidth(RunsTableModel::kProgress, 150);
  m_table->setToolTip("Click a run to show it; Ctrl- or Shift-click several to overlay them");
  auto* panel = new QWidget(this);
  auto* layout = new QVBoxLayout(panel);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(m_table);
  auto* stop = new QPushButton("Stop the shown run", panel);
  stop->setToolTip("Cancel the shown run after its current step; it keeps a checkpoint (Ctrl+.)");
  layout->addWidget(stop, 0, Qt::AlignRight);
  setWidget(panel);
  connect(stop, &QPushButton::clicked, this, &RunsDock::stopRequested);
  m_table->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_table, &QTableView::customContextMenuRequested, this, [this](const QPoint& at) {
    if (QMenu* menu = menuForRow(m_table->indexAt(at).row())) {
      menu->exec(m_table->viewport()->mapToGlobal(at));
      menu->deleteLater();
    }
  });
  // A click, not any change of selection: rows added by the queue never move the display.
  connect(m_table, &QTableView::clicked, this, [this] {
    std::vector<int64_t> ids;
    for (const auto& index : m_table->selectionModel()->selectedRows())
      ids.push_back(m_model->runAt(index.row()));
    const int64_t current = m_model->runAt(m_table->currentIndex().row());
    if (auto it = std::find(ids.begin(), ids.end(), current); it != ids.end())
      std::rotate(ids.begin(), it, it + 1);
    if (!ids.empty()) emit showRequested(ids);
  });
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
  return menu;
}

}  // namespace fl::gui
