#include "app/gui/study_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <set>

#include "app/gui/run_grouping.h"
#include "app/gui/run_queue.h"
#include "app/gui/run_views.h"
#include "app/gui/view_refresh.h"
#include "core/engine/config_diff.h"
#include "core/engine/system_metrics.h"
#include "core/store/run_store.h"
#include "core/study/paper_departure.h"
#include "core/study/study_aggregate.h"
#include "core/study/study_claims.h"
#include "core/study/study_expansion.h"
#include "core/study/study_figure.h"
#include "core/study/study_table.h"
#include "widgets/flow_layout.h"
#include "widgets/one_line_rows.h"
#include "widgets/parallel_coordinates.h"
#include "widgets/report_dialog.h"
#include "widgets/study_figure_plot.h"
#include "widgets/study_progress_grid.h"
#include "widgets/study_table_model.h"
#include "widgets/verdict_colors.h"

namespace fl::gui {

namespace {

// A study's description up to its first sentence's end (at most kLeadCharacters): the whole
// of a long one (up to 1400 characters) took the tab's height at 1280 x 720 and hid what
// departs under it. The whole is the title's tooltip.
constexpr int kLeadCharacters = 240;
QString leadSentence(const QString& text) {
  static const QRegularExpression end("\\. (?=[A-Z])");
  const auto match = end.match(text);
  QString lead = match.hasMatch() ? text.left(match.capturedStart() + 1) : text;
  if (lead.size() > kLeadCharacters) lead = lead.left(kLeadCharacters).trimmed() + "…";
  return lead;
}

QString settingLabel(const study::StudyRunResult& r) {
  QStringList parts;
  if (!r.arm.empty()) parts << QString::fromStdString(r.arm) + ":";
  for (const auto& [key, value] : r.axes.items())
    parts << QString::fromStdString(key + "=" + settingText(value));
  return parts.join(' ');
}

// The study's axes (sorted, as the axes' JSON objects list them) and whether it has arms.
struct SettingParts {
  bool arms = false;
  std::set<std::string> keys;
};

SettingParts settingParts(const std::vector<study::StudyRunResult>& results) {
  SettingParts parts;
  for (const auto& r : results) {
    parts.arms = parts.arms || !r.arm.empty();
    for (const auto& [key, value] : r.axes.items()) parts.keys.insert(key);
  }
  return parts;
}

// The grid's short label: the values alone, in the order settingHeader names them; "–" where
// a setting has no value for an axis (an arm without it).
QString settingValues(const study::StudyRunResult& r, const SettingParts& parts) {
  QStringList values;
  if (parts.arms) values << QString::fromStdString(r.arm.empty() ? "–" : r.arm);
  for (const auto& key : parts.keys)
    values << (r.axes.contains(key) ? QString::fromStdString(settingText(r.axes.at(key)))
                                    : QString("–"));
  return values.join(" · ");
}

// What settingValues' parts are: "arm · dataset · frequencies · gamma".
QString settingHeader(const SettingParts& parts) {
  QStringList names;
  if (parts.arms) names << "arm";
  for (const auto& key : parts.keys) names << QString::fromStdString(key);
  return names.join(" · ");
}

std::string settingKey(const study::StudyRunResult& r) { return r.arm + "|" + r.axes.dump(); }

// Which of a run's values the study's statistics take: "last" (its final value) or "min".
std::string statOf(const study::StudySpec& spec) {
  return spec.references ? spec.references->stat : "last";
}

// The runs that started, as parallel coordinates: "arm" (when the study has arms) and each of
// `axes`, then `metric` as aggregate() reads it (a finished run's final or lowest value; the
// other runs have none).
widgets::ParallelData parallelData(const std::vector<study::StudyRunResult>& results,
                                   const std::vector<std::string>& axes, const std::string& metric,
                                   const std::string& stat) {
  widgets::ParallelData data;
  const bool arms = settingParts(results).arms;
  if (arms) data.parameters << "arm";
  for (const auto& a : axes) data.parameters << QString::fromStdString(a);
  data.metric = QString::fromStdString(metric);
  for (const auto& r : results) {
    if (!r.runId) continue;
    widgets::ParallelRun run;
    run.runId = r.runId;
    run.label = QString("%1 seed=%2 (%3)")
                    .arg(settingLabel(r))
                    .arg(r.seed)
                    .arg(QString::fromStdString(study::toString(r.status)));
    if (arms) run.values.push_back({std::nullopt, QString::fromStdString(r.arm)});
    for (const auto& a : axes) {
      widgets::ParallelValue value;
      if (r.axes.contains(a)) {
        const auto& v = r.axes.at(a);
        if (v.is_number()) value.number = v.get<double>();
        value.text = QString::fromStdString(settingText(v));
      }
      run.values.push_back(value);
    }
    const auto& values = stat == "min" ? r.lowest : r.last;
    if (r.status == RunStatus::Finished)
      if (auto it = values.find(metric); it != values.end()) run.metric = it->second;
    data.runs.push_back(run);
  }
  return data;
}

QComboBox* choice(QWidget* parent, const QString& tip) {
  auto* box = new QComboBox(parent);
  box->setToolTip(tip);
  box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  // As wide as its longest choice when there is room, narrower (elided) when not: six choices
  // at their full width held the window wider than a 1280-pixel screen.
  box->setMinimumWidth(box->fontMetrics().horizontalAdvance("x") + 50);
  return box;
}

}  // namespace

StudyView::StudyView(store::RunStore& store, RunViews& views, RunQueue& queue, QWidget* parent)
    : QWidget(parent),
      m_store(store),
      m_views(views),
      m_queue(queue),
      m_title(new QLabel(this)),
      m_summary(new QLabel(this)),
      m_resume(new QPushButton("Resume study", this)),
      m_stop(new QPushButton("Stop study", this)),
      m_grid(new widgets::StudyProgressGrid(this)),
      m_view(choice(this, "The paper-style figure, or every run as parallel coordinates")),
      m_metric(choice(this, "The metric on the y axis (the study's figure may show several)")),
      m_x(choice(this, "The axis on the x axis")),
      m_group(choice(this, "One line per value of this axis")),
      m_panel(choice(this, "One row of panels per value of this axis")),
      m_band(choice(this, "The band drawn around each mean line, over the seeds")),
      m_figurePages(new QStackedWidget(this)),
      m_figure(new widgets::StudyFigurePlot(this)),
      m_figureNote(new QLabel(this)),
      m_parallel(new widgets::ParallelCoordinatesPlot(this)),
      m_parallelNote(new QLabel(this)),
      m_compareBrushed(new QPushButton("Compare brushed runs", this)),
      m_tableModel(new widgets::StudyTableModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_table(new QTableView(this)),
      m_redraw(new QTimer(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buildHeader());
  m_summary->setTextFormat(Qt::RichText);
  m_summary->setWordWrap(true);
  layout->addWidget(m_summary);
  QWidget* gridPane = buildGridPane();
  QWidget* figurePane = buildFigurePane();
  setUpTable();
  layout->addWidget(splitPanes(gridPane, figurePane), 1);
  connectControls();
  setStudy(0);
}

// The study's title, with Resume and Stop beside it.
QHBoxLayout* StudyView::buildHeader() {
  auto* header = new QHBoxLayout;
  m_title->setTextFormat(Qt::RichText);
  m_title->setWordWrap(true);
  header->addWidget(m_title, 1);
  header->addWidget(m_resume);
  header->addWidget(m_stop);
  return header;
}

// The progress grid, scrolling, over its legend of statuses.
QWidget* StudyView::buildGridPane() {
  auto* gridBox = new QWidget(this);
  auto* gridLayout = new QVBoxLayout(gridBox);
  gridLayout->setContentsMargins(0, 0, 0, 0);
  auto* gridScroll = new QScrollArea(gridBox);
  gridScroll->setWidget(m_grid);
  // The grid takes the pane's width (its labels give way to the seed columns) and its own
  // height (many settings scroll).
  gridScroll->setWidgetResizable(true);
  gridScroll->setFrameShape(QFrame::NoFrame);
  gridLayout->addWidget(gridScroll, 1);
  QString legend;
  // Named as the header counts them: a colour stands for several states ("2 interrupted" were
  // drawn in the colour the legend called "cancelled", "1 not started" in "waiting").
  for (const auto& [status, words] :
       {std::pair{study::CellStatus(RunStatus::Finished), "finished"},
        std::pair{study::CellStatus(RunStatus::Running), "running"},
        std::pair{study::CellStatus(), "waiting or not started"},
        std::pair{study::CellStatus(RunStatus::Failed), "failed"},
        std::pair{study::CellStatus(RunStatus::Cancelled), "cancelled or interrupted"}})
    // Each swatch bound to its word: the label wraps only between states (it wrapped between a
    // swatch and its word, so each colour sat beside the next state's name).
    legend += QString("<span style='color:%1'>&#9632;</span>&nbsp;%2&nbsp; ")
                  .arg(widgets::StudyProgressGrid::statusColor(status).name(),
                       QString(words).replace(' ', "&nbsp;"));
  auto* legendLabel = new QLabel(legend + "<br>Click a setting to compare its runs", gridBox);
  legendLabel->setTextFormat(Qt::RichText);
  legendLabel->setWordWrap(true);  // wraps rather than holding the pane (and window) wide
  gridLayout->addWidget(legendLabel);
  return gridBox;
}

// The figure's choices (view, metric, x, lines, panels, band) over the figure, or a note saying
// why there is none, or the parallel coordinates.
QWidget* StudyView::buildFigurePane() {
  auto* figureBox = new QWidget(this);
  auto* figureLayout = new QVBoxLayout(figureBox);
  figureLayout->setContentsMargins(0, 0, 0, 0);
  // The choices wrap onto a second row in a narrow pane rather than squeeze to a few letters;
  // each label stays beside its combo.
  m_controls = new QWidget(figureBox);
  auto* controls = new widgets::FlowLayout(m_controls);
  controls->setContentsMargins(0, 0, 0, 0);
  for (auto [label, box] : {std::pair<const char*, QComboBox*>{"view", m_view},
                            {"metric", m_metric},
                            {"x", m_x},
                            {"lines", m_group},
                            {"panels", m_panel},
                            {"band", m_band}}) {
    auto* choice = new QWidget(m_controls);
    auto* row = new QHBoxLayout(choice);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(new QLabel(label, choice));
    row->addWidget(box);
    controls->addWidget(choice);
  }
  figureLayout->addWidget(m_controls);
  m_figureNote->setAlignment(Qt::AlignCenter);
  m_figureNote->setWordWrap(true);
  m_figurePages->addWidget(m_figureNote);
  // A figure of many rows keeps readable panels and scrolls rather than squeezing them.
  auto* figureScroll = new QScrollArea(figureBox);
  figureScroll->setWidget(m_figure);
  figureScroll->setWidgetResizable(true);
  figureScroll->setFrameShape(QFrame::NoFrame);
  m_figurePages->addWidget(figureScroll);
  m_figurePages->addWidget(buildParallelPane());
  figureLayout->addWidget(m_figurePages, 1);
  m_band->addItems({"half", "std", "minmax", "none"});
  m_band->setItemData(0, "mean ± 0.67 std: a 50% interval, as the Fourier head paper draws",
                      Qt::ToolTipRole);
  return figureBox;
}

// The runs as parallel coordinates, over a line saying what they show and leave out, beside the
// button that compares the brushed runs.
QWidget* StudyView::buildParallelPane() {
  auto* pane = new QWidget(this);
  auto* layout = new QVBoxLayout(pane);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_parallel, 1);
  auto* row = new QHBoxLayout;
  m_parallelNote->setWordWrap(true);
  row->addWidget(m_parallelNote, 1);
  m_compareBrushed->setToolTip(
      QString("Compare the runs inside every brushed range (the first %1: more lines do not "
              "read). Double-click a line to compare its run with them")
          .arg(kMaxCompared));
  m_compareBrushed->setEnabled(false);  // until runs are drawn
  row->addWidget(m_compareBrushed);
  layout->addLayout(row);
  return pane;
}

void StudyView::setUpTable() {
  m_proxy->setSourceModel(m_tableModel);
  m_proxy->setSortRole(widgets::StudyTableModel::kSortRole);
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  // The study's own order (the paper's rows) until a header is clicked: an arrow on the first
  // column claimed a sort the rows did not follow.
  m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  m_proxy->sort(-1);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  widgets::setOneLineRows(m_table);
  m_table->setToolTip(
      "Mean ± std over seeds per setting, beside the paper's value and verdict. "
      "Double-click a setting to compare its runs");
}

// The grid beside the figure, over the table.
QSplitter* StudyView::splitPanes(QWidget* gridBox, QWidget* figureBox) {
  auto* top = m_top = new QSplitter(Qt::Horizontal, this);
  top->addWidget(gridBox);
  top->addWidget(figureBox);
  top->setStretchFactor(0, 1);
  top->setStretchFactor(1, 3);
  auto* split = m_split = new QSplitter(Qt::Vertical, this);
  split->addWidget(top);
  split->addWidget(m_table);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  for (auto* splitter : {top, split})
    connect(splitter, &QSplitter::splitterMoved, this, [this] { m_panesSizedByHand = true; });
  return split;
}

void StudyView::connectControls() {
  m_redraw->setSingleShot(true);
  m_redraw->setInterval(500);
  connect(m_redraw, &QTimer::timeout, this, &StudyView::refresh);
  // Choosing one of the study's declared figures sets the choices to it.
  connect(m_view, &QComboBox::currentIndexChanged, this, [this] {
    if (m_filling) return;
    if (const auto* figure = chosenFigure()) showDeclaredFigure(*figure);
  });
  for (auto* box : {m_view, m_metric, m_x, m_group, m_panel, m_band})
    connect(box, &QComboBox::currentIndexChanged, this, [this] {
      if (m_filling) return;
      showOneRolePerAxis();
      drawFigure();
      fitPanes();
    });
  connect(m_summary, &QLabel::linkActivated, this, [this](const QString& link) {
    if (link == "claims" && m_record && !m_claimsHtml.isEmpty())
      widgets::showReport(this,
                          QString("Claims of study %1 %2")
                              .arg(m_studyId)
                              .arg(QString::fromStdString(m_record->name)),
                          m_claimsHtml);
  });
  connect(m_grid, &widgets::StudyProgressGrid::rowClicked, this, [this](int row) {
    const auto& rows = m_grid->rows();
    if (row < 0 || row >= rows.size()) return;
    std::vector<int64_t> ids;
    for (const auto& cell : rows[row].cells)
      if (cell.runId) ids.push_back(cell.runId);
    if (!ids.empty()) emit compareRequested(ids);
  });
  connect(
      m_parallel, &widgets::ParallelCoordinatesPlot::brushedRunsChanged, this,
      [this](const std::vector<int64_t>& ids) {
        m_compareBrushed->setEnabled(!ids.empty());
        m_compareBrushed->setText(
            ids.size() > kMaxCompared
                ? QString("Compare brushed runs (first %1 of %2)").arg(kMaxCompared).arg(ids.size())
                : QString("Compare brushed runs (%1)").arg(ids.size()));
      });
  connect(m_parallel, &widgets::ParallelCoordinatesPlot::runDoubleClicked, this,
          [this](int64_t runId) { compareBrushed(runId); });
  connect(m_compareBrushed, &QPushButton::clicked, this, [this] { compareBrushed(); });
  connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    compareSetting(m_tableModel->cell(m_proxy->mapToSource(index).row()));
  });
  connect(&m_queue, &RunQueue::runEnded, this, [this](int64_t, int64_t studyId) {
    if (studyId && studyId == m_studyId && !m_redraw->isActive()) m_redraw->start();
  });
  connect(m_resume, &QPushButton::clicked, this, [this] {
    if (!m_studyId) return;
    emit resumeRequested(m_studyId);
    refresh();  // the queue holds the study now: Stop, not Resume
  });
  connect(m_stop, &QPushButton::clicked, this, [this] {
    if (!m_studyId) return;
    emit stopRequested(m_studyId);
    refresh();
  });
}

bool StudyView::setStudy(int64_t studyId) {
  m_studyId = 0;
  m_record.reset();
  m_departs.clear();
  if (studyId != 0) {
    m_record = study::StudyStore(m_store).study(studyId);
    if (!m_record) return false;
    m_studyId = studyId;
    // The spec never changes while it is shown: its departures are found once (two expansions
    // of up to hundreds of cells), not at every refresh a finishing run asks for.
    if (const auto experiment = m_queue.registry().find(m_record->spec.experiment))
      m_departs = QString::fromStdString(study::departureNote(*experiment, m_record->spec));
  }
  fillChoices();
  m_parallel->clearBrushes();  // another study's ranges mean nothing here
  refresh();
  m_panesSizedByHand = false;
  fitPanes();
  return true;
}

void StudyView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // Once the splitters inside have their new sizes: read now, they still had the old ones (a
  // first layout read a 100-px pane and held the grid to 40 px).
  QTimer::singleShot(0, this, &StudyView::fitPanes);
}

void StudyView::fitPanes() {
  // Every resize fits them again (the view is laid out after the study is set, and a window
  // resized at start-up once left the grid 60 px wide), until the researcher drags a splitter.
  const int total = m_top->width(), height = m_split->height();
  if (!m_studyId || m_panesSizedByHand || m_top->sizes().size() != 2 ||
      m_split->sizes().size() != 2)
    return;
  const int wanted =
      m_grid->sizeHint().width() + style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 8;
  const int grid = std::min(wanted, total * 2 / 5);
  if (total >= 200 && grid > m_top->sizes()[0])
    m_top->setSizes({grid, total - grid - m_top->handleWidth()});
  if (height < kFigureMinimumHeight + 60) return;  // no room for more table than it has

  // The figure's rows at a readable height where there is room, the table the rest, between
  // kTableRowsAtLeast and kTableRowsShown of its rows.
  const int rows = m_table->model()->rowCount();
  const int tableFrame = m_table->horizontalHeader()->sizeHint().height() +
                         style()->pixelMetric(QStyle::PM_ScrollBarExtent) +
                         2 * m_table->frameWidth();
  const int row = m_table->verticalHeader()->defaultSectionSize();
  const int tableMost = tableFrame + std::min(rows, kTableRowsShown) * row;
  const int tableLeast = tableFrame + std::min(rows, kTableRowsAtLeast) * row;
  const bool figureShown = m_figurePages->currentWidget() != m_figureNote && !parallelChosen();
  const int figureWanted = m_controls->heightForWidth(m_controls->width()) + 6 +
                           (figureShown ? std::max(m_figure->readableHeight(), kFigureMinimumHeight)
                                        : kFigureMinimumHeight);
  const int handle = m_split->handleWidth();
  int table = std::clamp(height - handle - figureWanted, tableLeast, tableMost);
  table = std::min(table, height - kFigureMinimumHeight - handle);
  if (table != m_split->sizes()[1]) m_split->setSizes({height - table - handle, table});
}

// The study's declared figure shown in the view box: each one its own entry where the study
// declares several (a study file's second figure had no way to be drawn as declared).
const study::FigureLayout* StudyView::chosenFigure() const {
  if (!m_record || parallelChosen()) return nullptr;
  const auto& figures = m_record->spec.figures;
  const int i = m_view->currentData().toInt();
  return i >= 0 && i < static_cast<int>(figures.size()) ? &figures[i] : nullptr;
}

void StudyView::fillChoices() {
  m_filling = true;
  const bool parallel = m_view->count() > 0 && parallelChosen();
  for (auto* box : {m_view, m_metric, m_x, m_group, m_panel}) box->clear();
  const auto* figures = m_record ? &m_record->spec.figures : nullptr;
  // Each declared figure by its number and name ("paper figure" for one or none), with its
  // selection of settings: it stays applied while the figure is chosen, whatever the boxes say.
  const size_t declared = figures ? figures->size() : 0;
  // A paper's figure where the study is a paper's (its numbers, or built in); a study file's
  // own is its figure: a researcher's study had read "paper figure".
  const auto experiment = m_record ? m_queue.registry().find(m_record->spec.experiment) : nullptr;
  const bool papers =
      m_record && (m_record->spec.references ||
                   (experiment && study::declaredStudyOf(*experiment, m_record->spec)));
  for (size_t i = 0; i < std::max<size_t>(declared, 1); ++i) {
    QString text = declared > 1 ? QString("figure %1").arg(i + 1)
                   : papers     ? QString("paper figure")
                                : QString("study figure");
    if (i < declared) {
      const auto& f = (*figures)[i];
      QStringList metrics;
      for (const auto& m : f.metrics) metrics << QString::fromStdString(m);
      if (!f.name.empty())
        text += ": " + QString::fromStdString(f.name);
      else if (declared > 1)
        text += QString(": %1 against %2").arg(metrics.join(", "), QString::fromStdString(f.x));
      QStringList where;
      for (const auto& [key, value] : f.where.items())
        where << QString::fromStdString(key + " = " + settingText(value));
      if (!where.isEmpty()) text += " (" + where.join(", ") + ")";
    }
    m_view->addItem(text, int(i));
  }
  m_view->addItem("parallel coordinates", -1);
  m_view->setCurrentIndex(parallel ? m_view->count() - 1 : 0);
  if (m_record) {
    const auto& spec = m_record->spec;
    const auto axes = study::figureAxesOf(spec);
    // Each figure's metrics side by side first, then each metric alone.
    std::vector<std::string> metrics;
    for (const auto& f : spec.figures)
      if (f.metrics.size() > 1) {
        QStringList joined;
        for (const auto& m : f.metrics) joined << QString::fromStdString(m);
        if (m_metric->findData(joined) < 0) m_metric->addItem(joined.join(", "), joined);
      }
    if (!spec.figures.empty())
      for (const auto& m : spec.figures.front().metrics) metrics.push_back(m);
    if (spec.table)
      for (const auto& m : spec.table->metrics) metrics.push_back(m);
    for (const auto& f : spec.figures)
      for (const auto& m : f.metrics) metrics.push_back(m);
    if (spec.references)
      for (const auto& row : spec.references->rows)
        for (const auto& [m, v] : row.values) metrics.push_back(m);
    std::set<std::string> seen;
    for (const auto& m : metrics)
      if (seen.insert(m).second)
        m_metric->addItem(QString::fromStdString(m), QStringList{QString::fromStdString(m)});
    // Lines are never a mean over different settings: without an axis chosen, whatever else
    // varies still draws lines of its own, so "(none)" read as ignored.
    m_group->addItem("(auto)", QString());
    m_group->setItemData(0,
                         "One line per setting of the axes that vary besides x and panels; "
                         "an axis chosen here comes first in their names",
                         Qt::ToolTipRole);
    m_panel->addItem("(none)", QString());
    for (const auto& a : axes) {
      const QString axis = QString::fromStdString(a);
      m_x->addItem(axis, axis);
      m_group->addItem(axis, axis);
      m_panel->addItem(axis, axis);
    }
    // Metrics with a number in their names (val/ppl@256) are drawn against it too.
    if (std::any_of(metrics.begin(), metrics.end(),
                    [](const std::string& m) { return m.find('@') != std::string::npos; })) {
      std::string title = "@ (the number in the metrics' names)";
      for (const auto& f : spec.figures)
        if (f.x == study::kMetricSuffixX && !f.xTitle.empty()) title = f.xTitle;
      m_x->addItem(QString::fromStdString(title), QString(study::kMetricSuffixX));
    }
    if (!spec.figures.empty())
      showDeclaredFigure(spec.figures.front());
    else if (axes.size() > 1)
      m_group->setCurrentIndex(2);  // the second axis
  }
  m_filling = false;
}

void StudyView::showDeclaredFigure(const study::FigureLayout& figure) {
  const bool filling = m_filling;
  m_filling = true;
  QStringList metrics;
  for (const auto& m : figure.metrics) metrics << QString::fromStdString(m);
  if (const int at = m_metric->findData(metrics); at >= 0) m_metric->setCurrentIndex(at);
  m_x->setCurrentIndex(m_x->findData(QString::fromStdString(figure.x)));
  m_group->setCurrentIndex(std::max(0, m_group->findData(QString::fromStdString(figure.group))));
  m_panel->setCurrentIndex(std::max(0, m_panel->findData(QString::fromStdString(figure.panel))));
  m_band->setCurrentText(QString::fromStdString(figure.band));
  m_filling = filling;
}

void StudyView::showOneRolePerAxis() {
  // An axis is the x axis, the lines or the panels, not two of them: the figure drops the later
  // role, and so do the boxes, where they had gone on naming it ("lines: dataset" over a
  // figure whose lines were the heads).
  const QString x = m_x->currentData().toString();
  const QString group = m_group->currentData().toString();
  const QString panel = m_panel->currentData().toString();
  // Set back quietly: the figure is drawn once, after.
  const bool filling = m_filling;
  m_filling = true;
  if (!group.isEmpty() && group == x) m_group->setCurrentIndex(0);  // (auto)
  if (!panel.isEmpty() && (panel == x || panel == m_group->currentData().toString()))
    m_panel->setCurrentIndex(0);  // (none)
  m_filling = filling;
}

study::FigureLayout StudyView::chosenLayout() const {
  study::FigureLayout layout;
  const auto& spec = m_record->spec;
  layout.x = m_x->currentData().toString().toStdString();
  for (const auto& m : m_metric->currentData().toStringList())
    layout.metrics.push_back(m.toStdString());
  layout.group = m_group->currentData().toString().toStdString();
  layout.panel = m_panel->currentData().toString().toStdString();
  if (layout.group == layout.x) layout.group.clear();
  if (layout.panel == layout.x || layout.panel == layout.group) layout.panel.clear();
  layout.band = m_band->currentText().toStdString();
  // The study's own figure for this x lends its titles and scale: the one chosen where it
  // draws along this x, else the first that does.
  const study::FigureLayout* lender = chosenFigure();
  if (lender && lender->x != layout.x) lender = nullptr;
  for (const auto& f : spec.figures)
    if (!lender && f.x == layout.x) lender = &f;
  if (lender) {
    layout.xTitle = lender->xTitle;
    layout.yTitles = lender->yTitles;
    layout.logX = lender->logX;
    layout.categoricalX = lender->categoricalX;
  }
  // The chosen figure's own selection of settings (a file's figure of one dataset).
  if (const auto* figure = chosenFigure()) layout.where = figure->where;
  if (const auto experiment = m_queue.registry().find(spec.experiment))
    study::addMetricAxes(layout, experiment->panels());
  return layout;
}

void StudyView::apply(const RunDeltas& deltas) {
  if (!m_studyId) return;
  for (const auto& [id, delta] : deltas)
    if (delta.statusChanged && m_queue.studyOf(id) == m_studyId && !m_redraw->isActive())
      m_redraw->start();
}

void StudyView::refresh() {
  m_results.clear();
  m_cells.clear();
  m_resume->setEnabled(false);
  m_stop->setEnabled(false);
  if (!m_record) {
    m_title->setText(
        "<h3>No study shown</h3>Launch one with <b>Run study</b> (a built-in study, or "
        "parameters given several values with their ⋯ buttons), or open one from History.");
    m_title->setToolTip({});
    m_summary->clear();
    m_grid->setRows({}, {});
    m_tableModel->setAggregate({}, {}, {}, std::nullopt);
    m_figureNote->setText("");
    m_figurePages->setCurrentWidget(m_figureNote);
    return;
  }
  const auto& spec = m_record->spec;
  try {
    m_results = study::StudyStore(m_store).results(m_studyId);
  } catch (const std::exception& e) {
    m_summary->setText(QString("Cannot read the study: %1").arg(e.what()));
    return;
  }
  // The runs live in this window over the store's rows: their status now and every value they
  // reported. A run not live here is as the store has it; where this window's view of it says
  // otherwise, another process (`sweep resume`) changed it, and the view is read again.
  study::StatusCounts<int64_t> counts;
  std::vector<int64_t> runIds;
  for (const auto& r : m_results)
    if (r.runId) runIds.push_back(r.runId);
  const std::vector<int64_t> reloaded = refreshViews(m_views, m_queue, m_store, runIds);
  for (auto& r : m_results) {
    const RunView* view = r.runId ? m_views.find(r.runId) : nullptr;
    if (view && m_queue.isLive(r.runId) && m_queue.studyOf(r.runId) == m_studyId) {
      r.status = view->status();
      for (const auto& [key, series] : view->metrics()) {
        if (series.values.empty()) continue;
        r.last[key] = series.values.back();
        r.lowest[key] = *std::min_element(series.values.begin(), series.values.end());
      }
    }
    ++counts[r.status];
  }
  if (!reloaded.empty()) emit runsReloaded(reloaded);
  // Resume has work while a run is not finished and the queue holds none of the study; Stop
  // while the queue does.
  const bool queued = m_queue.hasStudyWork(m_studyId);
  const bool unfinished = counts.size() > counts.count(RunStatus::Finished);
  // A run training that this window does not train is another process's (the store marks a
  // dead process's runs interrupted when opened): that process goes on with the study, and
  // Resume here only added workers beside it.
  QStringList elsewhere;
  for (const auto& r : m_results)
    if (r.runId && r.status == RunStatus::Running && !m_queue.isLive(r.runId))
      elsewhere << QString::number(r.runId);
  m_resume->setEnabled(unfinished && !queued && elsewhere.isEmpty() && !m_store.isReadOnly());
  m_stop->setEnabled(queued);
  // Grey says why: another process's runs are stopped by Stop the shown run, which asks that
  // process.
  m_stop->setToolTip(
      queued ? "Cancel the study's waiting and training runs (each keeps a checkpoint)"
      : !elsewhere.isEmpty()
          ? "This window trains none of the study: another process does (run " +
                elsewhere.join(", ") +
                "). With one of them shown, Stop the shown run asks that process to stop"
          : "This window trains none of the study's runs");
  m_resume->setToolTip(
      !unfinished            ? "Every run of the study finished"
      : queued               ? "The study's unfinished runs are queued or training"
      : !elsewhere.isEmpty() ? "Another process trains this study (run " + elsewhere.join(", ") +
                                   " running there; `fourierlab-cli sweep run` or `sweep "
                                   "resume`): it goes on with the rest. Stop it there to "
                                   "resume the study here"
      : m_store.isReadOnly() ? "The run store " + QString::fromStdString(m_store.readOnlyBecause())
                             : "Queue the study's unfinished runs (finished ones are kept; "
                               "interrupted ones continue from their checkpoints)");
  // The description speaks of the declared study; what this one changed is said under it.
  const auto experiment = m_queue.registry().find(spec.experiment);
  m_cells = study::aggregate(m_results, statOf(spec));
  if (experiment) study::markDepartures(*experiment, spec, m_cells);
  const QString description = QString::fromStdString(spec.description);
  const QString lead = leadSentence(description);
  // Where the paper's values come from (the paper's table, the data behind its figure, spreads
  // computed from the authors' saved predictions) is said where they are shown, on hover: a line
  // of its own cost the table its last row at 1280x720.
  const QString source =
      spec.references ? QString::fromStdString(spec.references->source) : QString();
  QStringList hoverFor, tips;
  if (lead != description) hoverFor << "the whole description", tips << description;
  if (!source.isEmpty())
    hoverFor << "where the paper's values come from", tips << "The paper's values: " + source;
  // Its name leads, as History and `sweep list` call it; the title follows: a study named
  // "t1short" read "Study 1: Table 1: KL divergence ...", named nowhere else so.
  const std::string& name = m_record->name;
  const std::string heading = spec.title.empty() || spec.title == name
                                  ? (spec.title.empty() ? name : spec.title)
                              : name.empty() ? spec.title
                                             : name + " — " + spec.title;
  m_title->setText(
      QString("<h3>Study %1 %2</h3>%3%4%5")
          .arg(m_studyId)
          .arg(
              QString::fromStdString(heading).toHtmlEscaped(), lead.toHtmlEscaped(),
              hoverFor.isEmpty() ? QString() : " <i>(hover for " + hoverFor.join(" and ") + ")</i>",
              m_departs.isEmpty()
                  ? QString()
                  : "<br><span style='color:#a05a00'>" + m_departs.toHtmlEscaped() +
                        (spec.references
                             ? " " + QString::fromStdString(study::paperPointsNote(m_cells))
                                         .toHtmlEscaped()
                             : QString()) +
                        "</span>"));
  m_title->setToolTip(tips.join("\n\n"));
  QStringList parts;
  for (const auto& [status, n] : counts)
    if (status) parts << QString("%1 %2").arg(n).arg(QString::fromStdString(toString(*status)));
  if (counts.count(std::nullopt)) parts << QString("%1 not started").arg(counts[std::nullopt]);
  // How its runs train together, kept for its resumes (recorded when it first trained, read
  // again here: a Resume may have just recorded it).
  const auto recorded = study::StudyStore(m_store).study(m_studyId);
  const std::string batch = recorded ? recorded->batch : std::string();
  const QString reused = QString::fromStdString(study::reusedRunsText(m_results));
  // What every run of it was set to: beside the Configure form's defaults (samples 5000, epochs
  // 500), a study at epochs 10 read as one at full length.
  QStringList fixed;
  if (!spec.preset.empty()) fixed << "preset " + QString::fromStdString(spec.preset);
  for (const auto& [key, value] : spec.overrides.items())
    fixed << QString::fromStdString(key + " " + configValueText(value));
  m_summary->setText(QString("<b>%1 runs</b>: %2%3%4%5")
                         .arg(m_results.size())
                         .arg(parts.join(", "),
                              batch.empty() ? QString()
                                            : QString(" &nbsp; batch %1, as it first trained")
                                                  .arg(QString::fromStdString(batch)),
                              fixed.isEmpty()
                                  ? QString()
                                  : " &nbsp; <b>set</b>: " + fixed.join(", ").toHtmlEscaped(),
                              reused.isEmpty() ? QString() : "<br>" + reused.toHtmlEscaped()));
  // In the verdicts' red, above the table and figure that rank them: a leaking filter's low
  // loss had stood among the others' without a mark.
  if (const std::string judged = study::failedJudgementsText(m_cells); !judged.empty())
    m_summary->setText(
        m_summary->text() +
        QString("<br><span style='color:%1'>%2</span>")
            .arg(widgets::verdictColorName(false), QString::fromStdString(judged).toHtmlEscaped()));
  showClaims(spec.claims);
  drawGrid(m_cells);
  study::StudyTableInput input;
  input.cells = m_cells;
  input.references = spec.references ? &*spec.references : nullptr;
  const auto metrics =
      study::defaultMetrics(input, spec.table ? spec.table->metrics : std::vector<std::string>{});
  m_tableModel->setAggregate(m_cells, study::axisOrderOf(spec), metrics, spec.references);
  if (m_metric->count() == 0 && !metrics.empty()) {
    // A study without a declared figure: its metrics, known once runs report them.
    m_filling = true;
    for (const auto& m : metrics)
      m_metric->addItem(QString::fromStdString(m), QStringList{QString::fromStdString(m)});
    m_filling = false;
  }
  m_table->resizeColumnsToContents();
  drawFigure();
  fitPanes();  // the figure may have appeared, or changed its rows
}

// Beside the run counts, how the study's claims stand over the seeds so far, counted by outcome
// (green holds, red contradicted, grey unresolved or not yet measured); each claim with its
// numbers, and the rule, in the tooltip and in a window of their own ("read them": a tooltip
// goes when the pointer moves, and cannot be copied). One line, so the figure and table keep the
// room on a small screen; `sweep table` prints the same list.
void StudyView::showClaims(const std::vector<study::StudyClaim>& claims) {
  m_summary->setToolTip({});
  m_claimsHtml.clear();
  if (claims.empty()) return;
  std::map<study::ClaimOutcome, int> counts;
  QStringList lines;
  auto colourOf = [](study::ClaimOutcome outcome) {
    return widgets::verdictColorName(
        outcome == study::ClaimOutcome::Holds          ? std::optional<bool>(true)
        : outcome == study::ClaimOutcome::Contradicted ? std::optional<bool>(false)
                                                       : std::nullopt);
  };
  const auto experiment = m_queue.registry().find(m_record->spec.experiment);
  const auto verdicts = study::judgeClaims(
      claims, m_cells, experiment ? experiment->allParams() : std::vector<ParamSpec>{});
  // Settings a claim was judged at: not a claim not measured as a whole, nor a setting whose
  // runs are too few or depart from the study's ("judged at 8 settings" had counted 4 of them).
  size_t settings = 0;
  for (const auto& verdict : verdicts) {
    ++counts[verdict.outcome];
    settings += verdict.atSetting && verdict.outcome != study::ClaimOutcome::NotMeasured &&
                verdict.outcome != study::ClaimOutcome::NotJudged;
    lines << QString("<p style='color:%1'>%2</p>")
                 .arg(colourOf(verdict.outcome),
                      QString::fromStdString(verdict.summary()).toHtmlEscaped());
  }
  QStringList parts;
  for (const auto& [outcome, n] : counts)
    parts << QString("<span style='color:%1'>%2 %3</span>")
                 .arg(colourOf(outcome))
                 .arg(n)
                 .arg(QString::fromStdString(study::toString(outcome)));
  m_summary->setText(m_summary->text() + " &nbsp; <b>Claims over seeds</b> <i>" +
                     QString::fromStdString(study::claimsScale(m_record->spec)).toHtmlEscaped() +
                     "</i>: " + parts.join(", ") +
                     // A claim judged at several settings counts once per setting.
                     (verdicts.size() == claims.size() && settings == claims.size()
                          ? QString()
                          : QString(" (%1 claim%2, judged at %3 setting%4)")
                                .arg(claims.size())
                                .arg(claims.size() == 1 ? "" : "s")
                                .arg(settings == 0 ? QString("no") : QString::number(settings))
                                .arg(settings == 1 ? "" : "s")) +
                     " <a href='claims'>read them</a> <i>(or hover)</i>");
  m_claimsHtml = "<p>" +
                 QString::fromStdString(study::claimsScaleText(m_record->spec)).toHtmlEscaped() +
                 "</p>" + lines.join("") + "<p>" +
                 QString::fromStdString(study::claimRuleText()).toHtmlEscaped() + "</p>";
  m_summary->setToolTip(m_claimsHtml);
}

void StudyView::drawGrid(const std::vector<study::AggregateCell>&) {
  std::vector<int64_t> seeds = m_record->spec.seeds;
  if (seeds.empty())
    for (const auto& r : m_results)
      if (std::find(seeds.begin(), seeds.end(), r.seed) == seeds.end()) seeds.push_back(r.seed);
  QStringList columns;
  // The seeds themselves: "seed 1" elided to the cell's width read "se." in every column.
  for (auto s : seeds) columns << QString::number(s);
  QVector<widgets::GridRow> rows;
  std::map<std::string, int> rowOf;
  const SettingParts parts = settingParts(m_results);
  for (const auto& r : m_results) {
    auto [it, added] = rowOf.emplace(settingKey(r), static_cast<int>(rows.size()));
    if (added) {
      widgets::GridRow row;
      row.label = settingValues(r, parts);
      row.description = settingLabel(r);
      row.cells.resize(static_cast<int>(seeds.size()));
      rows.push_back(row);
    }
    const int column =
        static_cast<int>(std::find(seeds.begin(), seeds.end(), r.seed) - seeds.begin());
    if (column >= rows[it->second].cells.size()) continue;
    widgets::GridCell& cell = rows[it->second].cells[column];
    cell.runId = r.runId;
    cell.status = r.runId && m_queue.isWaiting(r.runId) ? RunStatus::Queued : r.status;
    QString tip = QString("%1 seed=%2\n").arg(settingLabel(r)).arg(r.seed);
    tip += r.runId ? QString("run #%1: %2%3")
                         .arg(r.runId)
                         .arg(QString::fromStdString(study::toString(cell.status)),
                              r.reused ? " (trained before the study, taken as it is: same "
                                         "settings and seed)"
                                       : "")
                   : QString("not started yet");
    for (const auto& [key, value] : r.last)
      if (key.rfind("train/", 0) != 0 && !isSystemMetric(key))
        tip += QString("\n%1 %2").arg(QString::fromStdString(key)).arg(value, 0, 'g', 4);
    if (!r.message.empty() && r.status != RunStatus::Finished)
      tip += "\n" + QString::fromStdString(r.message);
    cell.toolTip = tip;
  }
  m_grid->setRows(rows, columns, settingHeader(parts));
}

bool StudyView::parallelChosen() const { return m_view->currentData().toInt() < 0; }

void StudyView::drawFigure() {
  // The parallel coordinates take the metric alone: the figure's other choices wait.
  for (auto* box : {m_x, m_group, m_panel, m_band}) box->setEnabled(!parallelChosen());
  if (parallelChosen() && m_record && m_metric->count() > 0) {
    drawParallel();
    return;
  }
  if (!m_record || m_x->count() == 0 || m_metric->count() == 0) {
    m_figureNote->setText(
        !m_record ? ""
        // Metrics a study does not declare are known from its finished runs.
        : m_metric->count() == 0
            ? (std::any_of(m_cells.begin(), m_cells.end(),
                           [](const study::AggregateCell& c) { return c.finished() > 0; })
                   ? "This study's runs report no metric to draw."
                   : "The figure appears as the first runs finish.")
            : "This study varies no setting but the seed: there is no axis to draw a figure "
              "along.\n"
              "The table below has every number (drag the divider to give it room);\n"
              "view: parallel coordinates compares the runs.");
    m_figurePages->setCurrentWidget(m_figureNote);
    return;
  }
  const auto& spec = m_record->spec;
  try {
    // The departure is said above, under the description (in the same colour): not again in
    // the figure, whose panels have little height at 1280x720. `sweep plot` writes it in.
    const std::string title = spec.title.empty() ? m_record->name : spec.title;
    const auto layout = chosenLayout();
    auto figure =
        study::buildStudyFigure(m_cells, layout, spec.references ? &*spec.references : nullptr,
                                study::figureAxesOf(spec), title);
    // Nor the figure's title where the header right above says it, or where it only says what
    // the view's choices beside it say ("table1: test/kl against head").
    if (figure.title == title || layout.title.empty()) figure.title.clear();
    m_figure->setFigure(figure);
    m_figurePages->setCurrentIndex(1);
  } catch (const std::invalid_argument& e) {
    // Typically: no run has finished yet. Said in place of the figure.
    QString why = QString::fromStdString(e.what());
    const auto* figureError = dynamic_cast<const study::FigureError*>(&e);
    if (figureError && figureError->kind() == study::FigureError::Kind::NoFinishedRun)
      why = "The figure appears as the first runs finish.";  // (the CLI's words name --metric)
    m_figureNote->setText(why);
    m_figurePages->setCurrentWidget(m_figureNote);
  }
}

void StudyView::drawParallel() {
  const auto& spec = m_record->spec;
  const QStringList metrics = m_metric->currentData().toStringList();
  const QString metric = metrics.isEmpty() ? QString() : metrics.front();
  const std::string stat = statOf(spec);
  m_parallel->setData(
      parallelData(m_results, study::axisOrderOf(spec), metric.toStdString(), stat));
  QStringList note;
  note << QString("Last axis and colour: %1, each finished run's %2 value%3")
              .arg(metric, stat == "min" ? "lowest" : "final",
                   metrics.size() > 1 ? " (the first of the chosen metrics)" : "");
  const size_t waiting = m_results.size() - m_parallel->data().runs.size();
  if (waiting)
    note << (waiting == 1 ? QString("1 run not started yet is not drawn")
                          : QString("%1 runs not started yet are not drawn").arg(waiting));
  m_parallelNote->setText(note.join(". ") + ".");
  m_figurePages->setCurrentWidget(m_parallel->parentWidget());
}

void StudyView::compareBrushed(int64_t first) {
  std::vector<int64_t> ids;
  if (first) ids.push_back(first);
  for (auto id : m_parallel->brushedRuns())
    if (ids.size() < kMaxCompared && id != first) ids.push_back(id);
  if (!ids.empty()) emit compareRequested(ids);
}

void StudyView::compareSetting(const study::AggregateCell& cell) {
  std::vector<int64_t> ids;
  for (auto id : cell.runIds)
    if (id) ids.push_back(id);
  if (!ids.empty()) emit compareRequested(ids);
}

}  // namespace fl::gui
