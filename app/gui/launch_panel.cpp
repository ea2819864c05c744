#include "app/gui/launch_panel.h"

#include <algorithm>

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/engine/device_spec.h"
#include "core/engine/reference_check.h"
#include "core/engine/run_name.h"
#include "core/study/paper_departure.h"
#include "core/study/thread_budget.h"
#include "widgets/checklist_menu.h"
#include "widgets/config_form.h"
#include "widgets/vertical_scroll_area.h"

namespace fl::gui {

namespace {

// The device picker: each choice's config value as item data, its label (name and memory of a
// GPU) as text; a choice this machine lacks stays listed, greyed, its reason in the tooltip.
void fillDeviceChoices(QComboBox* box) {
  auto* model = qobject_cast<QStandardItemModel*>(box->model());
  for (const auto& choice : deviceChoices()) {
    box->addItem(QString::fromStdString(choice.label), QString::fromStdString(choice.value));
    if (choice.unavailableReason.empty()) continue;
    const int row = box->count() - 1;
    box->setItemData(row, QString::fromStdString(choice.unavailableReason), Qt::ToolTipRole);
    if (auto* item = model ? model->item(row) : nullptr) item->setEnabled(false);
  }
  box->setToolTip("auto picks the first CUDA device when LibTorch sees one, else the CPU");
  box->setObjectName("device");
}

// The form shows every parameter but `device`: the Device combo above owns it, so there is one
// control for it, not two that disagree.
std::vector<ParamSpec> formSpecs(const Experiment& experiment) {
  std::vector<ParamSpec> specs;
  for (const auto& spec : experiment.allParams())
    if (spec.name != "device") specs.push_back(spec);
  return specs;
}

// What a metric no run will record leaves unread, in the study's own words: "no run records
// passkey/acc@128, so the claim “FoPE retrieves ...” reads not measured". The CLI names the
// file's places (claims[3].metric); the window names what a researcher sees in the Study tab.
QString unreadText(const study::StudySpec& spec, const study::UnrecordedMetric& unrecorded) {
  using Part = study::MetricPlace::Part;
  const auto& place = unrecorded.place;
  const QString metric = QString::fromStdString(place.metric);
  QString what;
  switch (place.part) {
    case Part::Claim: {
      QString claim = QString::fromStdString(spec.claims.at(place.index).text);
      if (claim.size() > 70) {  // cut at a word, as the Study tab's claims are read
        claim = claim.left(70);
        if (const auto space = claim.lastIndexOf(' '); space > 40) claim = claim.left(space);
        claim += "…";
      }
      what = QString("the claim “%1” reads not measured").arg(claim);
      break;
    }
    case Part::Table:
      what = QString("the table's %1 column stays empty").arg(metric);
      break;
    case Part::Figure:
      what = QString("figure %1 draws no %2").arg(place.index + 1).arg(metric);
      break;
    case Part::Reference:
      what = QString("the paper's %1 (reference row %2) is compared with nothing")
                 .arg(metric)
                 .arg(place.index + 1);
      break;
  }
  const QString hint =
      unrecorded.hint.empty() ? QString() : " (" + QString::fromStdString(unrecorded.hint) + ")";
  return QString("no run records %1%2, so %3").arg(metric, hint, what);
}

}  // namespace

LaunchPanel::LaunchPanel(const ExperimentRegistry& registry, QWidget* parent)
    : QWidget(parent),
      m_registry(registry),
      m_experiment(new QComboBox(this)),
      m_preset(new QComboBox(this)),
      m_modified(new QLabel("modified", this)),
      m_device(new QComboBox(this)),
      m_parallel(new QSpinBox(this)),
      m_batch(new QComboBox(this)),
      m_form(new widgets::ConfigForm(this)),
      m_problem(new QLabel(this)),
      m_reference(new QLabel(this)),
      m_run(new QPushButton("Run", this)),
      m_compare(new QPushButton("Run comparison", this)),
      m_arms(new QToolButton(this)),
      m_study(new QComboBox(this)),
      m_studySummary(new QLabel(this)),
      m_runStudy(new QPushButton("Run study", this)),
      m_studyDelay(new QTimer(this)) {
  auto* layout = new QVBoxLayout(this);
  auto* top = new QFormLayout;
  for (const auto& e : m_registry.all())
    m_experiment->addItem(QString::fromStdString(e->title()), QString::fromStdString(e->name()));
  top->addRow("Experiment", m_experiment);
  auto* presetRow = new QHBoxLayout;
  presetRow->addWidget(m_preset, 1);
  m_modified->setStyleSheet("color: #8a5a00; font-style: italic;");
  m_modified->setText("modified (<a href='reset'>reset</a>)");
  m_modified->setToolTip(
      "The form differs from the preset's values: reset, or choose the preset again, to go back "
      "to them");
  m_modified->setVisible(false);
  presetRow->addWidget(m_modified);
  top->addRow("Preset", presetRow);
  fillDeviceChoices(m_device);
  top->addRow("Device", m_device);
  m_parallel->setRange(0, 16);
  m_parallel->setValue(0);
  m_parallelTip =
      "How many queued runs train at the same time. auto: as many as the "
      "cores allow with the threads each run can use (the studies' thread "
      "budget), so runs never fight over the cores";
  m_parallel->setToolTip(m_parallelTip);
  top->addRow("Parallel runs", m_parallel);
  m_batch->addItem("auto", true);
  m_batch->addItem("off", false);
  m_batch->setToolTip(
      "How a study trains. auto: its runs whose shapes agree (e.g. seeds and gamma "
      "of one Fourier head) train together as one batched program, several times "
      "faster; each is still its own run, stopped, resumed and stored alone. "
      "off: one run after another (as `sweep run --batch off`). The Fourier head's "
      "batched trainer runs on the CPU: on a GPU its runs train one by one");
  top->addRow("Batch studies", m_batch);
  layout->addLayout(top);
  // Combo boxes as wide as the dock gives them, not as their longest item (an experiment's
  // title, a preset's name): the dock stays narrow enough for the plots at 1280 x 720.
  for (auto* box : {m_experiment, m_preset, m_device, m_batch, m_study}) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(10);
  }
  auto* scroll = new widgets::VerticalScrollArea(m_form, this);
  scroll->setFrameShape(QFrame::NoFrame);
  layout->addWidget(scroll, 1);
  m_reference->setWordWrap(true);
  m_reference->setTextFormat(Qt::RichText);
  connect(m_reference, &QLabel::linkActivated, this, [this](const QString& link) {
    m_referenceUnfolded = link == "unfold";
    showReference();
  });
  m_reference->setStyleSheet("color: #335;");
  layout->addWidget(m_reference);
  m_problem->setWordWrap(true);
  m_problem->setStyleSheet("color: #b00020;");
  layout->addWidget(m_problem);
  m_run->setToolTip("Run with this config (Ctrl+R)");
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_run);
  buttons->addWidget(m_compare);
  m_arms->setText("Arms");
  m_arms->setToolTip("Which arms Run comparison launches");
  m_arms->setPopupMode(QToolButton::InstantPopup);
  m_arms->setMenu(new widgets::ChecklistMenu(m_arms));
  buttons->addWidget(m_arms);
  layout->addLayout(buttons);
  // Studies: a built-in one, or the parameters given several values with their ⋯ buttons.
  auto* studyRow = new QHBoxLayout;
  m_study->setToolTip(
      "A study the experiment declares (the paper's tables and figures), or "
      "none: the form's parameters that hold several values");
  studyRow->addWidget(m_study, 1);
  m_runStudy->setToolTip("Launch every run of the study (Ctrl+Shift+S)");
  studyRow->addWidget(m_runStudy);
  layout->addLayout(studyRow);
  m_studySummary->setWordWrap(true);
  layout->addWidget(m_studySummary);

  m_studyDelay->setSingleShot(true);
  m_studyDelay->setInterval(120);
  connect(m_studyDelay, &QTimer::timeout, this, &LaunchPanel::updateStudy);
  connect(m_experiment, &QComboBox::currentIndexChanged, this, [this] {
    if (!m_formExperiment.empty()) m_leftForms[m_formExperiment] = {presetName(), m_form->values()};
    rebuildForm();
    restoreLeftForm();
    emit experimentChanged();
  });
  connect(m_preset, &QComboBox::currentIndexChanged, this, &LaunchPanel::applyPreset);
  // Choosing the preset shown again goes back to its values (the index does not change, so only
  // `activated` says it was chosen); the "modified" note's link does the same.
  connect(m_preset, &QComboBox::activated, this, [this] {
    if (presetModified()) applyPreset();
  });
  connect(m_modified, &QLabel::linkActivated, this, [this] { applyPreset(); });
  connect(m_form, &widgets::ConfigForm::changed, this, &LaunchPanel::updateValidity);
  connect(m_study, &QComboBox::currentIndexChanged, this, &LaunchPanel::updateValidity);
  connect(m_device, &QComboBox::currentIndexChanged, this, &LaunchPanel::updateValidity);
  connect(m_parallel, qOverload<int>(&QSpinBox::valueChanged), this,
          [this](int v) { emit parallelRunsChanged(v); });
  connect(m_batch, &QComboBox::currentIndexChanged, this,
          [this] { emit batchStudiesChanged(batchStudies()); });
  connect(m_run, &QPushButton::clicked, this, &LaunchPanel::runRequested);
  connect(m_compare, &QPushButton::clicked, this, &LaunchPanel::comparisonRequested);
  connect(m_runStudy, &QPushButton::clicked, this, &LaunchPanel::studyRequested);
  rebuildForm();
  restoreLeftForm();
}

std::shared_ptr<const Experiment> LaunchPanel::experiment() const {
  return m_registry.find(m_experiment->currentData().toString().toStdString());
}

bool LaunchPanel::selectExperiment(const QString& name) {
  const int index = m_experiment->findData(name);
  if (index < 0) return false;
  m_experiment->setCurrentIndex(index);
  return true;
}

bool LaunchPanel::selectDevice(const QString& device) {
  const int index = m_device->findData(device);
  // A greyed choice (a device this machine lacks) cannot be picked this way either.
  const auto* model = qobject_cast<const QStandardItemModel*>(m_device->model());
  if (index < 0 || (model && !model->item(index)->isEnabled())) return false;
  m_device->setCurrentIndex(index);
  return true;
}

bool LaunchPanel::selectStudy(const QString& name) {
  const int index = name.isEmpty() ? 0 : m_study->findData(name);
  if (index < 0) return false;
  m_study->setCurrentIndex(index);
  updateStudy();
  return true;
}

QString LaunchPanel::device() const { return m_device->currentData().toString(); }

QString LaunchPanel::studyName() const { return m_study->currentData().toString(); }

void LaunchPanel::setParallelRuns(int n) { m_parallel->setValue(n); }

int LaunchPanel::parallelRuns() const { return m_parallel->value(); }

QSize LaunchPanel::sizeHint() const {
  return {std::max(340, minimumSizeHint().width()), QWidget::sizeHint().height()};
}

bool LaunchPanel::batchStudies() const { return m_batch->currentData().toBool(); }

void LaunchPanel::setBatchStudies(bool on) { m_batch->setCurrentIndex(on ? 0 : 1); }

bool LaunchPanel::selectPreset(const QString& name) {
  const int index = m_preset->findText(name);
  if (index < 0) return false;
  m_preset->setCurrentIndex(index);
  return true;
}

QString LaunchPanel::presetName() const {
  return m_preset->currentIndex() <= 0 ? QString() : m_preset->currentText();
}

void LaunchPanel::showReference() {
  const QStringList lines = m_referenceText.split('\n', Qt::SkipEmptyParts);
  m_reference->setToolTip(m_referenceText);
  // Folded, a long first line is cut to its start too: the tiny presets' six wrapped lines left
  // the form two fields at 1280x720.
  constexpr int kFoldedCharacters = 110;
  const bool longFirst = !lines.isEmpty() && lines.front().size() > kFoldedCharacters;
  if (lines.size() <= 1 && !longFirst) {
    m_reference->setText(m_referenceText.toHtmlEscaped());
    return;
  }
  QStringList shown;
  if (m_referenceUnfolded) {
    for (const auto& line : lines) shown << line.toHtmlEscaped();
  } else {
    QString first = lines.front();
    if (longFirst) {
      const int cut = static_cast<int>(first.lastIndexOf(' ', kFoldedCharacters));
      first = first.left(cut > 0 ? cut : kFoldedCharacters) + "…";
    }
    shown << first.toHtmlEscaped();
  }
  const QString more = lines.size() > 1
                           ? QString("the paper's values (%1 more lines)").arg(lines.size() - 1)
                           : QString("more");
  m_reference->setText(shown.join("<br>") +
                       (m_referenceUnfolded ? QString(" <a href=\"fold\">less</a>")
                                            : QString(" <a href=\"unfold\">%1</a>").arg(more)));
}

bool LaunchPanel::presetModified() const {
  return !m_presetValues.is_null() && m_form->values() != m_presetValues;
}

std::string LaunchPanel::runName() const {
  const auto e = experiment();
  const std::string preset = presetName().toStdString();
  return e ? settingsName(preset, m_presetValues, m_form->values(), e->allParams())
           : settingsName(preset, m_presetValues, m_form->values());
}

std::string LaunchPanel::armName(const std::string& label, const nlohmann::json& overrides) const {
  const auto e = experiment();
  const std::string preset = presetName().toStdString();
  const auto chosen = e ? e->findPreset(preset) : std::nullopt;
  if (!m_presetValues.is_object() || !overrides.is_object())
    return chosen ? preset + " · " + label : label;
  // What the arm sets is its own, not an edit: only the form's other changes are named.
  nlohmann::json start = m_presetValues, values = m_form->values();
  for (const auto& [key, value] : overrides.items()) start[key] = values[key] = value;
  const std::string lead = chosen ? armLead(*e, *chosen, start, label, overrides) : label;
  return e ? settingsName(lead, start, values, e->allParams()) : settingsName(lead, start, values);
}

std::string LaunchPanel::armLead(const Experiment& experiment, const Preset& preset,
                                 const nlohmann::json& armStart, const std::string& label,
                                 const nlohmann::json& overrides) {
  // The preset's name leads: the demo's 60-epoch N = 12 arm and the defaults' 500-epoch one
  // were both "fourier N=12". Where the arm changes what the preset sets, the preset's name
  // would claim what the run is not ("paper-linear · fourier N=12" trained a Fourier head, in
  // History and exports for good): the preset the arm's settings are leads instead, or the
  // arm, its preset named as the rest.
  bool undoes = false;
  for (const auto& [key, value] : overrides.items())
    undoes = undoes || (preset.overrides.contains(key) && preset.overrides[key] != value);
  if (!undoes) return preset.name + " · " + label;
  const auto specs = experiment.allParams();
  for (const auto& other : experiment.presets())
    if (isPresetConfig(specs, other.overrides,
                       other.reference.is_object() ? other.reference.value("by", std::string())
                                                   : std::string(),
                       armStart, paperFiles(other.reference)))
      return other.name + " · " + label;
  return label + " (" + preset.name + " otherwise)";
}

void LaunchPanel::applyPreset() {
  auto e = experiment();
  if (!e) return;
  m_form->setSpecs(formSpecs(*e));
  if (auto preset = e->findPreset(presetName().toStdString())) {
    m_form->setValues(preset->overrides);
    if (preset->overrides.contains("device") && preset->overrides["device"].is_string())
      selectDevice(QString::fromStdString(preset->overrides["device"].get<std::string>()));
    m_referenceText = QString::fromStdString(preset->description);
    if (!preset->reference.is_null())
      m_referenceText += "\n" + QString::fromStdString(describeReference(preset->reference));
  } else {
    m_referenceText.clear();
  }
  showReference();
  m_presetValues = m_form->values();
  updateValidity();
}

void LaunchPanel::rebuildForm() {
  auto e = experiment();
  if (!e) return;
  m_preset->blockSignals(true);
  m_preset->clear();
  m_preset->addItem("(defaults)");
  for (const auto& p : e->presets()) m_preset->addItem(QString::fromStdString(p.name));
  m_preset->blockSignals(false);
  rebuildArms();
  rebuildStudies();
  applyPreset();
}

void LaunchPanel::restoreLeftForm() {
  const auto e = experiment();
  m_formExperiment = e ? e->name() : std::string();
  const auto left = m_leftForms.find(m_formExperiment);
  if (left == m_leftForms.end()) return;
  {
    const QSignalBlocker quiet(m_preset);
    const int preset = left->second.preset.isEmpty() ? 0 : m_preset->findText(left->second.preset);
    m_preset->setCurrentIndex(std::max(preset, 0));
  }
  applyPreset();  // the preset's values, against which the form says "modified"
  m_form->setValues(left->second.values);
  updateValidity();
}

nlohmann::json LaunchPanel::formsAsLeft() const {
  auto forms = m_leftForms;
  if (!m_formExperiment.empty()) forms[m_formExperiment] = {presetName(), m_form->values()};
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [experiment, form] : forms)
    out[experiment] = {{"preset", form.preset.toStdString()}, {"values", form.values}};
  return out;
}

void LaunchPanel::restoreFormsAsLeft(const nlohmann::json& forms) {
  if (!forms.is_object()) return;
  for (const auto& [experiment, form] : forms.items())
    if (form.is_object() && form.value("values", nlohmann::json()).is_object() &&
        form.value("preset", nlohmann::json()).is_string())
      m_leftForms[experiment] = {QString::fromStdString(form["preset"].get<std::string>()),
                                 form["values"]};
  restoreLeftForm();
}

void LaunchPanel::rebuildStudies() {
  m_study->blockSignals(true);
  m_study->clear();
  m_study->addItem("(the form's lists of values)", QString());
  auto e = experiment();
  if (e)
    for (const auto& s : e->studies())
      m_study->addItem(QString::fromStdString(s.name + (s.title.empty() ? "" : ": " + s.title)),
                       QString::fromStdString(s.name));
  m_study->blockSignals(false);
}

void LaunchPanel::rebuildArms() {
  auto* menu = m_arms->menu();
  menu->clear();
  auto e = experiment();
  if (!e) return;
  for (const auto& v : e->comparisonVariants()) {
    auto* arm = menu->addAction(QString::fromStdString(v.label));
    arm->setCheckable(true);
    arm->setChecked(true);
    connect(arm, &QAction::toggled, this, &LaunchPanel::updateValidity);
  }
}

std::vector<Variant> LaunchPanel::chosenVariants() const {
  std::vector<Variant> chosen;
  auto e = experiment();
  if (!e) return chosen;
  const auto arms = m_arms->menu()->actions();
  const auto all = e->comparisonVariants();
  for (size_t i = 0; i < all.size() && i < static_cast<size_t>(arms.size()); ++i)
    if (arms[static_cast<int>(i)]->isChecked()) chosen.push_back(all[i]);
  return chosen;
}

bool LaunchPanel::chooseVariants(const QStringList& labels) {
  const auto arms = m_arms->menu()->actions();
  for (const auto& label : labels)
    if (std::none_of(arms.begin(), arms.end(), [&](QAction* a) { return a->text() == label; }))
      return false;
  for (auto* arm : arms) arm->setChecked(labels.contains(arm->text()));
  return true;
}

ValidatedConfig LaunchPanel::config() const {
  auto e = experiment();
  ValidatedConfig out;
  if (!e) {
    out.issues.push_back({"", "no experiment selected"});
    return out;
  }
  auto values = m_form->values();
  values["device"] = device().toStdString();
  // The CLI's check, clashing keys and the corpus included: Run stays disabled with the reason.
  out = validateRunConfig(*e, values);
  // Text the form could not parse is missing from `values`; say why, once per field.
  for (const auto& issue : m_form->issues()) {
    bool known = false;
    for (const auto& existing : out.issues) known = known || existing.key == issue.key;
    if (!known) out.issues.push_back(issue);
  }
  return out;
}

StudyPlan LaunchPanel::studyPlan() const {
  StudyRequest request;
  request.experiment = experiment();
  request.values = m_form->values();
  request.values["device"] = device().toStdString();
  request.axes = m_form->axes();
  request.builtin = studyName().toStdString();
  StudyPlan plan = planStudy(request);
  // A list the form cannot read is named before anything else.
  for (const auto& issue : m_form->issues()) plan.errors.insert(plan.errors.begin(), issue.message);
  return plan;
}

void LaunchPanel::setTrainingRefusal(const QString& why) {
  m_trainingRefusal = why;
  updateValidity();
  updateStudy();
}

void LaunchPanel::updateStudy() {
  const StudyPlan plan = studyPlan();
  m_runStudy->setEnabled(plan.ok() && m_trainingRefusal.isEmpty());
  if (plan.ok()) {
    auto e = experiment();
    QString budget;
    if (e) {
      const auto b = study::planThreadBudget(availableCores(), plan.runs,
                                             e->usefulThreads(config().values), parallelRuns());
      budget = QString::fromStdString(", " + b.describe());
    }
    // A built-in study changed in the form says what departs from it before it runs (what
    // departs in training leaves its paper comparisons and claims unjudged).
    QString departs = e ? QString::fromStdString(study::departureNote(*e, plan.spec)) : QString();
    // What the form turned off that the study reads, before an hour of training finds it.
    QStringList unrecorded;
    for (const auto& u : plan.unrecordedMetrics) unrecorded << unreadText(plan.spec, u);
    if (!unrecorded.isEmpty()) {
      const auto more = unrecorded.size() - 1;
      departs += (departs.isEmpty() ? "" : " ") + QString("With these settings, ") +
                 unrecorded.front() +
                 (more ? QString(" (and %1 more: hover)").arg(more) : QString()) + ".";
      unrecorded << "The runs record " + QString::fromStdString(plan.recordedMetrics) + ".";
    }
    m_studySummary->setToolTip(unrecorded.join("\n"));
    m_studySummary->setStyleSheet("");
    m_studySummary->setText(QString("Run study makes <b>%1</b>%2%3")
                                .arg(QString::fromStdString(plan.summary).toHtmlEscaped(), budget,
                                     departs.isEmpty() ? QString()
                                                       : "<br><span style='color:#a05a00'>" +
                                                             departs.toHtmlEscaped() + "</span>"));
  } else {
    m_studySummary->setToolTip("");
    m_studySummary->setStyleSheet("color: #666;");
    // A value the form refuses is named once, above the buttons ("Cannot run: ...").
    m_studySummary->setText(
        !m_form->issues().empty()
            ? QString("No study until the values above are valid.")
            : QString::fromStdString(plan.errors.empty() ? "" : plan.errors.front()));
  }
}

void LaunchPanel::updateParallelText() {
  auto e = experiment();
  if (!e) return;
  // What auto means for this config: the budget for a full queue of such runs.
  const int cores = availableCores();
  const auto b = study::planThreadBudget(cores, cores, e->usefulThreads(config().values));
  // Short, so the field does not widen the dock; the tooltip says it whole.
  m_parallel->setSpecialValueText(QString("auto (%1 x %2 thread%3)")
                                      .arg(b.parallel)
                                      .arg(b.threadsPerRun)
                                      .arg(b.threadsPerRun == 1 ? "" : "s"));
  m_parallel->setToolTip(m_parallelTip + "\nauto here: " + QString::fromStdString(b.describe()));
}

void LaunchPanel::updateValidity() {
  const auto c = config();
  // A list of one value is that value: Run trains it.
  QStringList listed;
  for (const auto& axis : m_form->axes())
    if (axis.values.size() > 1) listed << QString::fromStdString(axis.key);
  const bool lists = !listed.isEmpty();
  m_run->setEnabled(c.ok() && !lists);
  m_run->setToolTip(lists ? "Some parameters hold several values: Run study launches them"
                          : "Run with this config (Ctrl+R)");
  // The whole config's problems at their fields too (a corpus that is not text stayed white).
  m_form->markIssues(c.issues);
  auto e = experiment();
  QStringList arms;
  for (const auto& v : chosenVariants()) arms << QString::fromStdString(v.label);
  const bool declared = e && !e->comparisonVariants().empty();
  m_arms->setEnabled(declared);
  m_compare->setEnabled(c.ok() && !arms.isEmpty() && !lists);
  m_compare->setToolTip(!declared        ? "This experiment declares no comparison"
                        : arms.isEmpty() ? "No arm is ticked (Arms menu)"
                                         : "One run each, same data and seed: " + arms.join(", ") +
                                               " (Ctrl+Shift+R)");
  // Why Run is grey, where the eye is (a tooltip alone went unread): a list of values is a study.
  m_problem->setText(!c.ok() ? "Cannot run: " + QString::fromStdString(c.summary())
                     : lists ? QString("Run and Run comparison train one config: %1 %2 several "
                                       "values, so Run study trains them.")
                                   .arg(listed.join(", "), listed.size() == 1 ? "holds" : "hold")
                             : QString());
  if (!m_trainingRefusal.isEmpty()) {
    m_run->setEnabled(false);
    m_compare->setEnabled(false);
    m_problem->setText(m_trainingRefusal);
  }
  // "modified" once the form is no longer what the preset (or the defaults) set.
  m_modified->setVisible(presetModified());
  updateParallelText();
  m_studyDelay->start();
}

}  // namespace fl::gui
