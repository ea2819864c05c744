#include "app/gui/run_display.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSlider>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWidgetAction>

#include <algorithm>
#include <iterator>
#include <set>

#include <qcustomplot.h>

#include "app/gui/export_stem.h"
#include "app/gui/metrics_table_model.h"
#include "app/gui/probe_router.h"
#include "app/gui/run_queue.h"
#include "app/gui/run_views.h"
#include "core/engine/atomic_file.h"
#include "core/engine/config_diff.h"
#include "core/engine/run_name.h"
#include "core/engine/system_usage.h"
#include "core/store/run_batching.h"
#include "core/store/run_export.h"
#include "core/store/run_store.h"
#include "core/store/run_trainer.h"
#include "core/study/study_run_name.h"
#include "core/study/study_store.h"
#include "widgets/dashboard.h"
#include "widgets/metric_plot.h"
#include "widgets/plot_frame.h"
#include "widgets/probe_panel.h"
#include "widgets/run_colors.h"
#include "widgets/snapshot_plot.h"
#include "widgets/text_table_model.h"
#include "widgets/verdict_colors.h"

namespace fl::gui {

namespace {

QString jsonText(const nlohmann::json& v) {
  return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
}

// What each x axis is, for its choice's tooltip.
QString xAxisHelp(XAxis axis) {
  switch (axis) {
    case XAxis::Step:
      return "Optimisation steps";
    case XAxis::Epoch:
      return "Passes over the training data: step / the steps an epoch takes, as the trainer "
             "counts them";
    case XAxis::Tokens:
      return "Tokens the model has read: step x the tokens a step reads (batch x length)";
    case XAxis::WallTime:
      return "Seconds since the run's first metric point, training time only: a resumed run "
             "continues from where its stored points end, without the time it was stopped. A "
             "group's mean ends where its quickest member ended: past it, the mean would be over "
             "fewer members";
  }
  return {};
}

widgets::MetricPlot::XKind xKindOf(XAxis axis) {
  switch (axis) {
    case XAxis::Epoch:
      return widgets::MetricPlot::XKind::Fraction;
    case XAxis::WallTime:
      return widgets::MetricPlot::XKind::Seconds;
    case XAxis::Step:
    case XAxis::Tokens:
      break;
  }
  return widgets::MetricPlot::XKind::Count;
}

QTableView* makeTable(QWidget* parent) {
  auto* table = new QTableView(parent);
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  return table;
}

}  // namespace

RunDisplay::RunDisplay(const ExperimentRegistry& registry, store::RunStore& store, RunViews& views,
                       RunQueue& queue, widgets::RunColors& colors, QWidget* parent)
    : QWidget(parent),
      m_registry(registry),
      m_store(store),
      m_views(views),
      m_queue(queue),
      m_colors(colors),
      m_pages(new QStackedWidget(this)),
      m_welcome(new QLabel(this)),
      m_demo(new QPushButton("Start the demo", this)),
      m_focusLine(new QLabel(this)),
      m_back(new QLabel(this)),
      m_warning(new QLabel(this)),
      m_smoothing(new QSlider(Qt::Horizontal, this)),
      m_smoothingValue(new QLabel(this)),
      m_dashboard(new widgets::Dashboard(this)),
      m_metricsModel(new MetricsTableModel(views, colors, this)),
      m_diffModel(new widgets::TextTableModel(this)),
      m_diffTable(makeTable(this)),
      m_diffButton(new QToolButton(this)),
      m_layoutChoice(new QComboBox(this)),
      m_xAxisChoice(new QComboBox(this)),
      m_probeRouter(std::make_unique<ProbeRouter>(registry, store, queue)) {
  m_dashboard->setColors(&colors);
  // A panel saved from its menu is named by the shown runs, as the export of every panel is.
  m_dashboard->setFileStem([this] { return exportStem(m_shown); });
  // A grouped run's row in its group's colour, the one its curves are drawn in (rows in their
  // own colours matched no curve).
  m_metricsModel->setColorOf(
      [this](int64_t id) { return m_colors.of(m_dashboard->groupLeaderOf(id)); });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  // The focus line (a run's name, status and verdicts) has a row of its own: beside the
  // controls, in a narrow window, it wrapped into a column a word wide.
  auto* focusRow = new QHBoxLayout;
  addFocusLine(focusRow);
  layout->addLayout(focusRow);
  auto* controls = new QHBoxLayout;
  addConfigDiffButton(controls);
  addXAxisChoice(controls);
  addLayoutChoice(controls);
  addSmoothing(controls);
  controls->addStretch(1);
  layout->addLayout(controls);
  m_warning->setWordWrap(true);
  m_warning->setStyleSheet("background: #fff3cd; color: #664d03; padding: 3px;");
  m_warning->setVisible(false);
  layout->addWidget(m_warning);
  layout->addWidget(buildPages(), 1);
  m_diffTable->setModel(m_diffModel);
  setStoreEmpty(false);
  connect(m_demo, &QPushButton::clicked, this, &RunDisplay::demoRequested);
}

void RunDisplay::addFocusLine(QHBoxLayout* row) {
  // The focus line can be long (a run's verdicts): it wraps within its row.
  m_focusLine->setWordWrap(true);
  m_focusLine->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_focusLine->setTextFormat(Qt::RichText);
  row->addWidget(m_focusLine, 1);
  m_back->setTextFormat(Qt::RichText);
  m_back->setVisible(false);
  connect(m_back, &QLabel::linkActivated, this, [this] { backToComparison(); });
  row->addWidget(m_back);
}

void RunDisplay::addConfigDiffButton(QHBoxLayout* controls) {
  // The config differences open on demand, over the plots: a table below them took a third of
  // the height at 1280 x 720.
  m_diffButton->setPopupMode(QToolButton::InstantPopup);
  m_diffButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
  auto* diffMenu = new QMenu(m_diffButton);
  auto* diffAction = new QWidgetAction(diffMenu);
  diffAction->setDefaultWidget(m_diffTable);
  diffMenu->addAction(diffAction);
  m_diffButton->setMenu(diffMenu);
  m_diffButton->setVisible(false);
  controls->addWidget(m_diffButton);
}

void RunDisplay::addXAxisChoice(QHBoxLayout* controls) {
  for (XAxis axis : kXAxes)
    m_xAxisChoice->addItem(
        QString("x: %1").arg(QString::fromStdString(xAxisLabel(axis))).remove(" (s)"),
        QString::fromStdString(xAxisName(axis)));
  m_xAxisChoice->setToolTip(
      "What the curves are drawn over; the hover reads x in the same unit. Those the shown run's "
      "experiment cannot give are greyed out (their tooltips say why).");
  controls->addWidget(m_xAxisChoice);
  connect(m_xAxisChoice, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index < 0) return;
    m_xAxis = kXAxes[index];
    redrawCurves();
  });
  // Picking the item already shown changes no index: "Step", while it stands in for an axis
  // the focused run cannot give, must still become the reader's choice.
  connect(m_xAxisChoice, &QComboBox::activated, this, [this](int index) {
    if (index < 0 || kXAxes[index] == m_xAxis) return;
    m_xAxis = kXAxes[index];
    redrawCurves();
  });
  updateXAxis();
}

void RunDisplay::addLayoutChoice(QHBoxLayout* controls) {
  m_layoutChoice->addItems({"Grid", "Tabs"});
  m_layoutChoice->setToolTip(
      "Grid: every panel at once (double-click a title to maximise it, Esc for all again). "
      "Tabs: one panel fills the area.");
  controls->addWidget(m_layoutChoice);
  connect(m_layoutChoice, &QComboBox::currentIndexChanged, this, [this](int index) {
    m_dashboard->setLayoutMode(index == 1 ? widgets::Dashboard::Layout::Tabs
                                          : widgets::Dashboard::Layout::Grid);
  });
}

void RunDisplay::addSmoothing(QHBoxLayout* controls) {
  auto* smoothingLabel = new QLabel("Smoothing", this);
  controls->addWidget(smoothingLabel);
  m_smoothing->setRange(0, 99);
  m_smoothing->setFixedWidth(120);
  const QString smoothingHelp =
      "EMA weight, as TensorBoard's: each point is weight x the previous smoothed value + "
      "(1 - weight) x its own. 0 draws the raw curve; the raw curve stays faint behind.";
  m_smoothing->setToolTip(smoothingHelp);
  smoothingLabel->setToolTip(smoothingHelp);
  controls->addWidget(m_smoothing);
  m_smoothingValue->setMinimumWidth(QFontMetrics(font()).horizontalAdvance("0.00") + 4);
  m_smoothingValue->setText("0.00");
  controls->addWidget(m_smoothingValue);
  connect(m_smoothing, &QSlider::valueChanged, this, [this](int v) {
    m_dashboard->setSmoothing(v / 100.0);
    m_smoothingValue->setText(QString::number(v / 100.0, 'f', 2));
  });
}

QWidget* RunDisplay::buildPages() {
  // Page 0: what to do when nothing is shown; page 1: the dashboard, scrolling when the
  // window is too small for its panels.
  auto* welcome = new QWidget(this);
  auto* welcomeLayout = new QVBoxLayout(welcome);
  m_welcome->setWordWrap(true);
  m_welcome->setAlignment(Qt::AlignCenter);
  m_welcome->setTextFormat(Qt::RichText);
  welcomeLayout->addStretch(1);
  welcomeLayout->addWidget(m_welcome);
  auto* demoRow = new QHBoxLayout;
  demoRow->addStretch(1);
  m_demo->setToolTip(
      "The Fourier head paper's comparison on gmm2: a linear head against Fourier "
      "heads with N = 4, 12 and 20, side by side (about a minute on two cores)");
  demoRow->addWidget(m_demo);
  demoRow->addStretch(1);
  welcomeLayout->addLayout(demoRow);
  welcomeLayout->addStretch(2);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(m_dashboard);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_pages->addWidget(welcome);
  m_pages->addWidget(scroll);
  return m_pages;
}

RunDisplay::~RunDisplay() = default;

void RunDisplay::setStoreEmpty(bool empty) {
  m_storeEmpty = empty;
  m_welcome->setText(
      empty ? "<h3>This run store is empty</h3><p>Pick an experiment and press <b>Run</b> "
              "(Ctrl+R) to train the form's config, <b>Run comparison</b> for its arms side by "
              "side, or <b>Run study</b> for a paper's table or figure.</p><p>Or start the demo: "
              "the Fourier head paper's comparison, training live.</p>"
            : "<h3>No run shown</h3><p>Press <b>Run</b> (Ctrl+R) to train the form's config, or "
              "open runs from <b>History</b> (Ctrl+H): double-click one, or select several and "
              "Compare.</p>");
  m_demo->setVisible(empty);
  m_pages->setCurrentIndex(m_shown.empty() ? 0 : 1);
}

void RunDisplay::setExperiment(std::shared_ptr<const Experiment> experiment) {
  if (!experiment || (m_experiment && experiment->name() == m_experiment->name())) return;
  m_experiment = std::move(experiment);
  // Nothing of the previous experiment's runs stays: header, curves, tables.
  m_shown.clear();
  m_comparison.clear();
  rebuildPanels();
  m_metricsModel->setRuns({});
  updateXAxis();
  updateFocusLine();
  updateConfigDiff();
  m_warning->setVisible(false);
  setStoreEmpty(m_storeEmpty && !m_everShown);
  emit shownChanged();
}

void RunDisplay::rebuildPanels() {
  m_dashboard->setPanels(withSystemPanels(m_experiment->panels(), gpuUsageReadable()));
  m_dashboard->setSmoothing(m_smoothing->value() / 100.0);  // new plots start unsmoothed
  m_metricsTable = makeTable(m_dashboard);
  m_metricsTable->setModel(m_metricsModel);
  m_metricsTable->setToolTip("The latest value of every metric of the shown runs");
  m_dashboard->addPanelWidget("metrics_table", m_metricsTable, "Latest metrics");
  m_probe = nullptr;
  for (const auto& panel : m_experiment->panels()) {
    if (panel.kind != PanelKind::Probe) continue;
    QList<widgets::ProbeSlider> sliders;
    for (const auto& in : m_experiment->probeInputs())
      sliders << widgets::ProbeSlider{QString::fromStdString(in.name), in.minimum, in.maximum,
                                      in.defaultValue, QString::fromStdString(in.help)};
    QStringList series;
    for (const auto& s : panel.series) series << QString::fromStdString(s);
    m_probe =
        new widgets::ProbePanel(QString::fromStdString(panel.title), series, sliders, m_dashboard);
    m_probe->setToolTip(QString::fromStdString(panel.help));
    m_dashboard->addPanelWidget(QString::fromStdString(panel.id), m_probe,
                                QString::fromStdString(panel.title));
  }
  m_probeRouter->setPanel(m_probe);
}

QString RunDisplay::labelOf(int64_t runId) const { return labelOf(runId, legendNamesOfShown()); }

QString RunDisplay::labelOf(int64_t runId, const std::map<int64_t, std::string>& names) const {
  const RunView* view = m_views.find(runId);
  if (!view) return {};
  // A run's own name labels it. A run a study named ("table1 · dataset=gmm2 head=fourier
  // seed=1", cut by a legend before the part that differs), an unnamed one, or one whose name
  // another shown run has too ("defaults", launched twice with two seeds) is labelled by what
  // sets it apart from the others shown.
  const auto own = names.find(runId);
  const std::string name = own == names.end() ? view->name() : own->second;
  const bool sharedWithAnother = std::any_of(names.begin(), names.end(), [&](const auto& other) {
    return other.first != runId && other.second == name;
  });
  if (!name.empty() && !study::isStudyRunName(name) && !sharedWithAnother)
    return QString::fromStdString(name);
  // A choice reads alone ("fourier"); a number says whose it is ("seed=2", not a bare "2").
  QStringList parts;
  // Runs of several experiments shown: each says whose it is before what sets it apart.
  const bool severalExperiments = std::any_of(m_shown.begin(), m_shown.end(), [&](int64_t id) {
    const RunView* other = m_views.find(id);
    return other && other->experiment() != view->experiment();
  });
  if (severalExperiments) parts << QString::fromStdString(view->experiment());
  const nlohmann::json& config = view->comparedConfig();
  if (m_shown.size() > 1 && config.is_object())
    for (const auto& key : differingKeysOfShown())
      if (config.contains(key) && !isUnusedValue(config[key]))
        parts << (config[key].is_string()
                      ? jsonText(config[key])
                      : QString::fromStdString(key) + "=" + jsonText(config[key]));
  if (parts.isEmpty()) return QString::fromStdString(view->name());
  return parts.join(' ');
}

std::map<int64_t, std::string> RunDisplay::legendNamesOfShown() const {
  // How many shown runs' names have each edit: one they all have ("epochs 2" of a comparison's
  // arms) tells no curve from another, one few have tells the most. Worked out once for all
  // the shown runs: per label, it read every shown run's name again.
  // An edit is held by every shown run whose config has that value, named so or not: a run
  // "defaults, edited: dataset beta, epochs 10, frequencies 4, lr 0.003" beside study runs at
  // epochs 10 and frequencies 4 kept every edit, and its legend was cut to "defa… frequencies
  // 4", without the dataset and lr that set it apart.
  std::vector<const RunView*> views;
  for (auto id : m_shown)
    if (const RunView* view = m_views.find(id)) views.push_back(view);
  std::map<int64_t, std::string> names;
  if (views.size() <= 1) {  // a run alone reads by its whole name
    for (const RunView* view : views) names[view->id()] = view->name();
    return names;
  }
  std::map<std::string, int> holders;
  for (const RunView* view : views)
    for (const auto& edit : editList(view->name(), view->config())) {
      if (holders.count(edit)) continue;
      const std::string key = edit.substr(0, edit.find(' '));
      const nlohmann::json value = configValue(view->config(), key);
      int holding = 0;
      for (const RunView* other : views)
        holding += !value.is_null() && configValue(other->config(), key) == value;
      holders[edit] = std::max(holding, 1);  // "and 2 more" is its run's alone
    }
  std::map<std::string, int> bases;  // how many shown runs' names start so, before the edits
  for (const RunView* view : views) ++bases[withoutEdits(view->name())];
  const int runs = static_cast<int>(views.size());
  const std::vector<std::string> differing = differingKeysOfShown();
  std::vector<LegendRun> legend;
  for (const RunView* view : views) {
    // Of the settings that set the runs apart, those this run uses.
    std::vector<std::string> apart;
    for (const auto& key : differing)
      if (!isUnusedValue(configValue(view->comparedConfig(), key))) apart.push_back(key);
    legend.push_back({view->name(),
                      compactName(view->name(), view->config(), holders, runs,
                                  bases[withoutEdits(view->name())] == 1, apart),
                      &view->config(), apart});
  }
  nameWhatNamesakesName(legend);
  for (size_t i = 0; i < views.size(); ++i) names[views[i]->id()] = legend[i].legend;
  return names;
}

std::vector<std::string> RunDisplay::differingKeysOfShown() const {
  // Within each experiment's runs: compared across experiments, every parameter one of them
  // lacks had differed, and a fourier-head run's legend read "b…… v…=0.01" after its number (bins,
  // variance). Sorted, as the labels have always read them; the config diff puts them in
  // declaration order.
  std::vector<std::string> experiments;
  std::vector<const nlohmann::json*> configs;
  for (auto id : m_shown)
    if (const RunView* v = m_views.find(id)) {
      experiments.push_back(v->experiment());
      configs.push_back(&v->comparedConfig());
    }
  return differingKeysWithinExperiments(experiments, configs, {});
}

void RunDisplay::setShown(std::vector<int64_t> runIds) {
  // Views first (the store is read here, once per run), then the panels of the focused run's
  // experiment.
  std::vector<int64_t> shown;
  for (auto id : runIds)
    if (m_views.get(id) && std::find(shown.begin(), shown.end(), id) == shown.end())
      shown.push_back(id);
  if (shown.empty()) return;
  const RunView* first = m_views.find(shown.front());
  auto experiment = m_registry.find(first->experiment());
  if (experiment && (!m_experiment || experiment->name() != m_experiment->name())) {
    m_experiment = experiment;
    rebuildPanels();
  } else {
    m_dashboard->clearData();
  }
  m_shown = std::move(shown);
  m_everShown = true;
  updateXAxis();  // before drawing: what the focused run can give
  if (m_shown.size() > 1) m_comparison = m_shown;
  m_colors.makeDistinct(m_shown);
  updateWarning();
  m_dashboard->setShownRun(m_shown.front());
  m_dashboard->setShownRunEnded(isTerminal(first->status()));
  const auto legendNames = legendNamesOfShown();
  // The probe asks one run, the first shown: among several it says which, where its colour
  // alone had.
  if (m_probe) {
    m_probe->plot()->setShownRun(
        m_shown.front(), m_colors.of(m_shown.front()),
        m_shown.size() > 1 ? labelOf(m_shown.front(), legendNames) : QString());
    m_probe->plot()->refresh();  // the same run's answer, named anew
  }
  for (auto id : m_shown) m_dashboard->setRunLabel(id, labelOf(id, legendNames));
  regroup();
  for (auto id : m_shown) draw(id);
  m_dashboard->refresh();
  m_probeRouter->setRun(m_shown.front());
  m_metricsModel->setRuns(m_shown);
  updateFocusLine();
  updateConfigDiff();
  m_pages->setCurrentIndex(1);
  if (m_experiment) emit experimentShown(QString::fromStdString(m_experiment->name()));
  emit shownChanged();
}

void RunDisplay::setRunShown(int64_t runId, bool shown) {
  const bool isShown = std::find(m_shown.begin(), m_shown.end(), runId) != m_shown.end();
  if (shown == isShown) return;
  if (shown) {
    std::vector<int64_t> ids = m_shown;
    ids.push_back(runId);
    setShown(ids);
    return;
  }
  std::vector<int64_t> rest;
  std::copy_if(m_shown.begin(), m_shown.end(), std::back_inserter(rest),
               [&](int64_t id) { return id != runId; });
  if (!rest.empty()) {
    setShown(rest);
    return;
  }
  clearShown();
}

void RunDisplay::redraw() {
  if (!m_shown.empty()) setShown(m_shown);
}

void RunDisplay::draw(int64_t runId) {
  const RunView* view = m_views.find(runId);
  if (!view) return;
  drawCurves(runId);
  // Every one, in step order (the heatmaps draw a run's history; the overlays keep the latest),
  // but those a later one of their name superseded.
  const auto& snapshots = view->snapshots();
  for (size_t i = 0; i < snapshots.size(); ++i) {
    if (view->isSuperseded(i)) continue;
    if (runId == focused())
      m_dashboard->addSnapshot(snapshots[i].snapshot, snapshots[i].step);
    else
      m_dashboard->addOverlaySnapshot(runId, snapshots[i].snapshot, snapshots[i].step);
  }
}

void RunDisplay::setGroupBy(const GroupBy& by) {
  if (by == m_groupBy) return;
  m_groupBy = by;
  if (m_shown.empty()) return;
  regroup();
  m_metricsModel->coloursChanged();
  // The overlaid snapshots again, in their group's colour and name (or their own again).
  for (auto id : m_shown)
    if (const RunView* view = m_views.find(id); view && id != focused())
      for (size_t i = 0; i < view->snapshots().size(); ++i)
        if (!view->isSuperseded(i))
          m_dashboard->addOverlaySnapshot(id, view->snapshots()[i].snapshot,
                                          view->snapshots()[i].step);
  redrawCurves();
}

void RunDisplay::regroup() {
  std::vector<GroupedRun> runs;
  study::StudyStore studies(m_store);
  std::map<int64_t, std::string> studyNames;
  for (auto id : m_shown) {
    const RunView* view = m_views.find(id);
    if (!view) continue;
    GroupedRun run{id, &view->comparedConfig(), {}, view->experiment()};
    // The store is read only when grouping by study: the first study holding the run.
    if (m_groupBy.kind == GroupBy::Kind::Study) {
      const auto of = studies.studiesOfRun(id);
      if (!of.empty()) {
        const int64_t studyId = of.front().first;
        if (!studyNames.count(studyId)) {
          const auto record = studies.study(studyId);
          studyNames[studyId] = record ? record->name : "";
        }
        run.study = std::pair(studyId, studyNames[studyId]);
      }
    }
    runs.push_back(run);
  }
  m_groups = groupRuns(runs, m_groupBy);
  m_groupOf.clear();
  m_regrown.clear();  // indices of the groups before; the curves are drawn whole after a regroup
  for (size_t g = 0; g < m_groups.size(); ++g) {
    const auto& members = m_groups[g].members;
    for (auto id : members) {
      m_groupOf[id] = g;
      m_dashboard->clearGroupLabel(id);
      m_dashboard->setGroupLeader(id, members.front());
    }
    if (members.size() > 1)
      m_dashboard->setGroupLabel(members.front(), QString::fromStdString(m_groups[g].label),
                                 static_cast<int>(members.size()));
  }
}

void RunDisplay::drawGroupCurves(const RunGroup& group, const std::set<std::string>* onlyKeys) {
  // Every member over the shown x; a member that cannot give it is left out of the mean, as a
  // run alone would be left off the plots (the warning line names it).
  struct MemberCurve {
    std::vector<double> x;
    const std::vector<double>* values;
  };
  std::map<std::string, std::vector<MemberCurve>, NaturalLess> byKey;  // as a lone run's keys
  for (auto id : group.members) {
    const RunView* view = m_views.find(id);
    const auto x = view ? xAxisOf(*view, shownXAxis()) : std::nullopt;
    if (!x) continue;
    for (const auto& [key, series] : view->metrics())
      if (!onlyKeys || onlyKeys->count(key)) byKey[key].push_back({x->of(series), &series.values});
  }
  const int64_t leader = group.members.front();
  for (auto& [key, curves] : byKey) {
    std::vector<CurveRef> refs;
    for (const auto& c : curves) refs.push_back({&c.x, c.values});
    MeanBand band = meanBand(refs);
    if (shownXAxis() == XAxis::WallTime) band = commonSpan(std::move(band));
    m_dashboard->setMetric(leader, key, band.x, band.mean);
    // Counted against the group's size, as its name counts it ("×4"): a member without this
    // metric, or that cannot give the x, is a run the mean leaves out.
    const int groupSize = static_cast<int>(group.members.size());
    m_dashboard->setMetricBand(leader, key,
                               {std::move(band.low), std::move(band.high), std::move(band.lowest),
                                std::move(band.count), groupSize});
  }
}

void RunDisplay::drawCurves(int64_t runId) {
  const RunView* view = m_views.find(runId);
  if (!view) return;
  if (auto it = m_groupOf.find(runId); it != m_groupOf.end()) {
    const RunGroup& group = m_groups[it->second];
    if (group.members.size() > 1) {
      // The group is drawn once, under its first member.
      if (group.members.front() == runId) drawGroupCurves(group);
      return;
    }
  }
  // A run that cannot give the axis (another experiment's, compared) is left out, not drawn
  // over steps among curves over epochs.
  const auto x = xAxisOf(*view, shownXAxis());
  if (!x) return;
  for (const auto& [key, series] : view->metrics())
    m_dashboard->setMetric(runId, key, x->of(series), series.values);
}

std::optional<RunXAxis> RunDisplay::xAxisOf(const RunView& view, XAxis axis,
                                            std::string* why) const {
  const auto experiment = m_registry.find(view.experiment());
  return RunXAxis::of(axis, experiment.get(), view, why);
}

XAxis RunDisplay::shownXAxis() const {
  const RunView* view = focused() ? m_views.find(focused()) : nullptr;
  return !view || xAxisOf(*view, m_xAxis) ? m_xAxis : XAxis::Step;
}

void RunDisplay::setXAxis(XAxis axis) {
  m_xAxis = axis;
  redrawCurves();
}

void RunDisplay::updateXAxis() {
  const RunView* view = focused() ? m_views.find(focused()) : nullptr;
  auto* model = qobject_cast<QStandardItemModel*>(m_xAxisChoice->model());
  for (int i = 0; i < m_xAxisChoice->count(); ++i) {
    std::string why;
    const bool available = !view || xAxisOf(*view, kXAxes[i], &why);
    if (QStandardItem* item = model ? model->item(i) : nullptr) item->setEnabled(available);
    m_xAxisChoice->setItemData(
        i,
        available ? xAxisHelp(kXAxes[i])
                  : QString("Not for run %1: %2").arg(view->id()).arg(QString::fromStdString(why)),
        Qt::ToolTipRole);
  }
  const XAxis shown = shownXAxis();
  {
    const QSignalBlocker quiet(m_xAxisChoice);  // showing the axis is not choosing it
    m_xAxisChoice->setCurrentIndex(static_cast<int>(shown));
  }
  m_dashboard->setXAxis(QString::fromStdString(xAxisLabel(shown)), xKindOf(shown));
}

void RunDisplay::redrawCurves() {
  updateXAxis();
  if (m_shown.empty()) return;
  m_dashboard->clearMetrics();
  for (auto id : m_shown) drawCurves(id);
  m_dashboard->refresh();
  updateWarning();
}

void RunDisplay::updateWarning() {
  QStringList lines;
  std::set<std::string> experiments;
  for (auto id : m_shown)
    if (const RunView* v = m_views.find(id)) experiments.insert(v->experiment());
  if (experiments.size() > 1) {
    QStringList names;
    for (const auto& e : experiments) names << QString::fromStdString(e);
    lines << QString(
                 "These runs are of different experiments (%1): the panels are %2's; the "
                 "other runs' curves appear only where their metric names match.")
                 .arg(names.join(", "),
                      QString::fromStdString(m_views.find(focused())->experiment()));
  }
  // A compared run that cannot give the chosen x axis is left off the curves: say which, and why.
  QStringList undrawn;
  for (auto id : m_shown) {
    const RunView* v = m_views.find(id);
    std::string why;
    if (v && !xAxisOf(*v, shownXAxis(), &why))
      undrawn << QString("#%1 (%2)").arg(id).arg(QString::fromStdString(why));
  }
  if (!undrawn.isEmpty())
    lines << QString("Not drawn over %1: %2.")
                 .arg(QString::fromStdString(xAxisLabel(shownXAxis())), undrawn.join(", "));
  m_warning->setText(lines.join("\n"));
  m_warning->setVisible(!lines.isEmpty());
}

void RunDisplay::showRun(int64_t runId) { setShown({runId}); }

void RunDisplay::compare(const std::vector<int64_t>& runIds) { setShown(runIds); }

void RunDisplay::focusRun(int64_t runId) {
  if (runId == focused()) return;
  auto it = std::find(m_shown.begin(), m_shown.end(), runId);
  if (it == m_shown.end()) {
    showRun(runId);
    return;
  }
  std::vector<int64_t> reordered{runId};
  for (auto id : m_shown)
    if (id != runId) reordered.push_back(id);
  setShown(reordered);
}

void RunDisplay::showSelection(const std::vector<int64_t>& runIds) {
  if (runIds.size() == 1)
    focusRun(runIds.front());
  else if (runIds.size() > 1)
    compare(runIds);
}

void RunDisplay::forgetRuns(const std::vector<int64_t>& runIds) {
  auto deleted = [&](int64_t id) {
    return std::find(runIds.begin(), runIds.end(), id) != runIds.end();
  };
  m_comparison.erase(std::remove_if(m_comparison.begin(), m_comparison.end(), deleted),
                     m_comparison.end());
  std::vector<int64_t> remaining;
  std::copy_if(m_shown.begin(), m_shown.end(), std::back_inserter(remaining),
               [&](int64_t id) { return !deleted(id); });
  if (remaining.size() == m_shown.size()) {
    updateFocusLine();  // the way back may name fewer runs
    return;
  }
  // Redrawn from the views of the runs left (cleared first), the focused one first if it stays.
  if (!remaining.empty()) {
    setShown(remaining);
    return;
  }
  clearShown();
}

void RunDisplay::clearShown() {
  m_shown.clear();
  m_dashboard->clearData();
  m_dashboard->refresh();
  updateXAxis();
  m_probeRouter->setRun(0);
  m_metricsModel->setRuns({});
  updateFocusLine();
  updateConfigDiff();
  m_warning->setVisible(false);
  m_pages->setCurrentIndex(0);
  emit shownChanged();
}

bool RunDisplay::canGoBack() const {
  if (m_comparison.size() < 2) return false;
  std::set<int64_t> a(m_comparison.begin(), m_comparison.end()), b(m_shown.begin(), m_shown.end());
  return a != b;
}

bool RunDisplay::backToComparison() {
  if (!canGoBack()) return false;
  // The run shown alone stays focused when it was part of the comparison.
  std::vector<int64_t> ids = m_comparison;
  if (auto it = std::find(ids.begin(), ids.end(), focused()); it != ids.end())
    std::rotate(ids.begin(), it, it + 1);
  setShown(ids);
  return true;
}

void RunDisplay::apply(const RunDeltas& deltas) {
  m_probeRouter->take(deltas);
  bool changed = false, statusChanged = false;
  for (auto id : m_shown) {
    auto it = deltas.find(id);
    if (it == deltas.end()) continue;
    const RunDelta& delta = it->second;
    const RunView* view = m_views.find(id);
    if (!view) continue;
    auto group = m_groupOf.find(id);
    const bool grouped = group != m_groupOf.end() && m_groups[group->second].members.size() > 1;
    if (grouped)
      for (const auto& [key, from] : delta.metricsFrom) m_regrown[group->second].insert(key);
    // Converted as drawCurves converted the rest of the curve.
    const auto x = delta.metricsFrom.empty() ? std::nullopt : xAxisOf(*view, shownXAxis());
    for (const auto& [key, from] : delta.metricsFrom) {
      if (!x || grouped) break;
      const auto& series = view->metrics().at(key);
      const std::vector<double> values(series.values.begin() + static_cast<long>(from),
                                       series.values.end());
      m_dashboard->appendMetric(id, key, x->of(series, from), values);
      changed = true;
    }
    for (size_t i = delta.snapshotsFrom; i < delta.snapshotsTo; ++i) {
      if (view->isSuperseded(i)) continue;  // a later one of its name came in the same delta
      const auto& s = view->snapshots()[i];
      if (id == focused())
        m_dashboard->addSnapshot(s.snapshot, s.step);
      else
        m_dashboard->addOverlaySnapshot(id, s.snapshot, s.step);
      changed = true;
    }
    statusChanged = statusChanged || delta.statusChanged;
    if (delta.statusChanged && id == focused())
      m_dashboard->setShownRunEnded(isTerminal(view->status()));
    changed = changed || delta.progressed;
  }
  // A group's mean and band are made again from its members' whole curves (a new point of one
  // member changes the mean where the others already are).
  if (!m_regrown.empty() &&
      (statusChanged || !m_groupsRedrawn.isValid() || m_groupsRedrawn.elapsed() >= 250)) {
    for (const auto& [group, keys] : m_regrown) drawGroupCurves(m_groups[group], &keys);
    m_regrown.clear();
    m_groupsRedrawn.start();
    changed = true;
  }
  if (!changed && !statusChanged) return;
  m_dashboard->refresh();
  // Tables and the focus line a few times a second, and at once when a status changes.
  if (!statusChanged && m_tablesUpdated.isValid() && m_tablesUpdated.elapsed() < 250) return;
  m_tablesUpdated.start();
  m_metricsModel->update();
  updateFocusLine();
}

void RunDisplay::updateFocusLine() {
  const RunView* view = focused() ? m_views.find(focused()) : nullptr;
  m_back->setVisible(canGoBack());
  m_back->setText(
      QString("<a href='#'>&larr; back to the comparison of %1 runs</a>").arg(m_comparison.size()));
  if (!view) {
    m_focusLine->clear();
    return;
  }
  QString state = QString::fromStdString(toString(view->status()));
  if (m_queue.isWaiting(view->id())) state = "waiting";
  if (!view->device().empty()) state += " on " + QString::fromStdString(view->device());
  // The Runs dock lists only this window's runs: how far one trained elsewhere is, said here.
  if (view->status() == RunStatus::Running && !m_queue.isLive(view->id())) {
    if (view->progress().totalSteps > 0)
      state +=
          QString(", step %1 of %2").arg(view->progress().step).arg(view->progress().totalSteps);
    try {
      if (const auto trainer = store::trainerOf(m_store, view->id()))
        state += QString(", in another process (pid %1)").arg(trainer->process.pid);
    } catch (const std::exception&) {
      // The store cannot be read now: the line says what it knows.
    }
  }
  if (view->status() == RunStatus::Failed && !view->message().empty())
    state += ": " + QString::fromStdString(view->message()).toHtmlEscaped();
  // Each verdict in its own colour: a value the paper gives no spread for is not judged, and
  // was green beside the judged ones ("test/mse_argmax 0.189 vs paper 0.211").
  QStringList parts;
  for (const auto& v : view->verdicts()) {
    // Not judged in the text's own dark grey, not the greyed colour: the figure still counts.
    const QString color = v.passed ? widgets::verdictColorName(v.passed) : "#333";
    // A word joiner after each slash: the line wrapped inside a metric's name ("test/" at the
    // end of one line, "mse_argmax 0.215" on the next).
    const QString detail =
        QString::fromStdString(v.detail).toHtmlEscaped().replace("/", QString("/") + QChar(0x2060));
    parts << QString("<span style='color:%1'>%2</span>").arg(color, detail);
  }
  const QString verdicts = parts.isEmpty() ? QString() : " &mdash; " + parts.join("; ");
  // Its name, or for an unnamed run what the legends call it ("fope" beside "rope").
  const QString title =
      view->name().empty() ? labelOf(view->id()) : QString::fromStdString(view->name());
  m_focusLine->setText(QString("<b style='color:%1'>run %2</b> %3 &mdash; %4%5")
                           .arg(m_colors.of(view->id()).name())
                           .arg(view->id())
                           .arg(title.toHtmlEscaped(), state, verdicts));
}

void RunDisplay::fitConfigTable(int rows) {
  // The popup fits the table: every row up to twelve (then it scrolls), every column up to
  // 1000 px.
  m_diffTable->resizeColumnsToContents();
  int width = 2 * m_diffTable->frameWidth() + 2;
  for (int c = 0; c < m_diffModel->columnCount(); ++c) width += m_diffTable->columnWidth(c);
  const int rowsShown = std::min(rows, 12);
  // Past twelve rows a vertical scroll bar takes its width from the columns.
  if (rows > rowsShown) width += m_diffTable->verticalScrollBar()->sizeHint().width();
  m_diffTable->setFixedSize(std::min(width, 1000),
                            m_diffTable->horizontalHeader()->sizeHint().height() +
                                rowsShown * m_diffTable->verticalHeader()->defaultSectionSize() +
                                2 * m_diffTable->frameWidth() + 2);
  // The menu keeps the size it measured when the table was added: added again, it measures
  // this one (a settings list opened in the size of an earlier comparison's table).
  QMenu* menu = m_diffButton->menu();
  if (QAction* table = menu ? menu->actions().value(0) : nullptr) {
    menu->removeAction(table);
    menu->addAction(table);
  }
}

void RunDisplay::showRunSettings(const RunView& view) {
  // One run: everything it was trained with, where a comparison shows what differs. Its tags
  // and notes are the store's (History edits them).
  QVector<QVector<widgets::TextCell>> rows;
  auto add = [&rows](const QString& key, const QString& value, const QColor& color = {}) {
    rows.push_back({{key, {}, {}, {}}, {value, {}, color, {}}});
  };
  add("experiment", QString::fromStdString(view.experiment()));
  add("trained on", QString::fromStdString(view.device()));
  try {
    if (const auto record = m_store.run(view.id())) {
      m_settingsTagsAndNotes = {record->tags, record->notes};
      QStringList tags;
      for (const auto& t : record->tags) tags << QString::fromStdString(t);
      add("tags", tags.join(", "));
      add("notes", QString::fromStdString(record->notes));
      // Alone or batched: a run and its lone twin (same config and seed) can end apart.
      if (const std::string trained = store::describeBatching(record->build); !trained.empty())
        add("trained", QString::fromStdString(trained));
    }
  } catch (const std::exception&) {
    // The store cannot be read now: the settings below are this window's.
  }
  // In the order the experiment declares its parameters, as History's columns are.
  std::vector<std::string> keys;
  if (view.comparedConfig().is_object())
    for (const auto& [key, value] : view.comparedConfig().items()) keys.push_back(key);
  std::vector<std::vector<ParamSpec>> declared;
  if (const auto experiment = m_registry.find(view.experiment()))
    declared.push_back(experiment->allParams());
  for (const auto& key : inDeclarationOrder(keys, declared)) {
    const auto& value = view.comparedConfig()[key];
    add(QString::fromStdString(key), jsonText(value),
        isUnusedValue(value) ? QColor(Qt::gray) : QColor());
  }
  const int count = static_cast<int>(rows.size());
  m_diffModel->setRows({"setting", "value"}, std::move(rows), {});
  fitConfigTable(count);
  m_diffButton->setText(QString("Config: run %1 ▾").arg(view.id()));
  m_diffButton->setToolTip("Everything the shown run was trained with, its tags and notes");
  m_diffButton->setVisible(true);
}

void RunDisplay::rereadRunSettings() {
  if (m_shown.size() != 1) return;
  // Rebuilt only when they changed: a live run commits every few steps, and a table reset
  // every look would scroll an open popup back to its top.
  try {
    const auto record = m_store.run(m_shown.front());
    if (record && std::pair(record->tags, record->notes) != m_settingsTagsAndNotes)
      updateConfigDiff();
  } catch (const std::exception&) {
    // The store cannot be read now: the table stays as it was.
  }
}

void RunDisplay::updateConfigDiff() {
  if (m_shown.size() == 1) {
    if (const RunView* view = m_views.find(m_shown.front())) return showRunSettings(*view);
  }
  if (m_shown.size() < 2) {
    m_diffButton->setVisible(false);
    return;
  }
  m_diffButton->setToolTip("The config values that differ between the compared runs");
  // In the order the shown runs' experiments declare their parameters, as History's columns.
  std::vector<std::vector<ParamSpec>> declared;
  std::set<std::string> experiments;
  for (auto id : m_shown)
    if (const RunView* v = m_views.find(id); v && experiments.insert(v->experiment()).second)
      if (const auto experiment = m_registry.find(v->experiment()))
        declared.push_back(experiment->allParams());
  const std::vector<std::string> differing = inDeclarationOrder(differingKeysOfShown(), declared);
  QStringList headers{"run"};
  for (const auto& k : differing) headers << QString::fromStdString(k);
  QVector<QVector<widgets::TextCell>> rows;
  QVector<QVariant> keysOfRows;
  for (auto id : m_shown) {
    const RunView* v = m_views.find(id);
    QVector<widgets::TextCell> row;
    row.push_back({QString("#%1 %2").arg(id).arg(QString::fromStdString(v->name())),
                   {},
                   m_colors.of(id),
                   {}});
    for (const auto& k : differing)
      row.push_back({jsonText(configValue(v->comparedConfig(), k)), {}, {}, {}});
    rows.push_back(row);
    keysOfRows.push_back(QVariant::fromValue<qlonglong>(id));
  }
  m_diffModel->setRows(headers, std::move(rows), std::move(keysOfRows));
  fitConfigTable(static_cast<int>(m_shown.size()));
  m_diffButton->setText(QString("Config diff: %1 runs, %2 %3 ▾")
                            .arg(m_shown.size())
                            .arg(differing.size())
                            .arg(differing.size() == 1 ? "key" : "keys"));
  m_diffButton->setVisible(true);
}

QStringList RunDisplay::exportShown(const QString& folder, QString* error) {
  QStringList written;
  if (m_shown.empty()) return written;
  QDir().mkpath(folder);
  // The plots hold every shown run, so their names do too, and so do the data beside them.
  const QString stem = folder + "/" + exportStem(m_shown);
  for (const auto& panel : m_dashboard->panelIds()) {
    auto* plot = m_dashboard->panel(panel)->findChild<QCustomPlot*>();
    if (!plot) continue;
    const QString base = stem + "-" + panel;
    for (const char* suffix : {".png", ".pdf", ".svg"})
      if (widgets::savePlotImage(plot, base + suffix)) written << base + suffix;
  }
  try {
    std::vector<store::RunRecord> runs;
    for (auto id : m_shown)
      if (auto run = m_store.run(id)) runs.push_back(*run);
    // One long-format metrics CSV for all of them (their snapshots in the file beside it), as
    // History's export writes it; each run's config in a file of its own.
    for (const auto& file :
         store::exportRunsToFile(m_store, &m_registry, runs, (stem + "-metrics.csv").toStdString(),
                                 /*json=*/false))
      written << QString::fromStdString(file);
    for (const auto& run : runs) {
      const QString path = QString("%1/run-%2-config.json").arg(folder).arg(run.id);
      AtomicFile config(path.toStdString());
      config.stream() << run.config.dump(2);
      config.commit();
      written << path;
    }
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
  }
  return written;
}

}  // namespace fl::gui
