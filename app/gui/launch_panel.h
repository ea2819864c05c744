// LaunchPanel: the Configure side of the window: experiment picker, presets (marked "modified"
// once the form differs from the preset), device selector (what LibTorch sees), parallel runs
// (auto: the thread budget decides), the generated parameter form, and the launch buttons:
// Run (one run), Run comparison (one run per ticked arm) and Run study (a built-in study, or
// the form's parameters that hold lists of values), each disabled with the reason while it
// cannot start; the number of runs a study makes is shown before it is launched.
#pragma once

#include <QWidget>

#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "app/gui/study_plan.h"
#include "core/engine/registry.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTimer;
class QToolButton;

namespace fl::widgets {
class ConfigForm;
}

namespace fl::gui {

class LaunchPanel : public QWidget {
  Q_OBJECT

 public:
  LaunchPanel(const ExperimentRegistry& registry, QWidget* parent = nullptr);

  std::shared_ptr<const Experiment> experiment() const;
  // false when no experiment, preset, study or device has that name (nothing changes then).
  bool selectExperiment(const QString& name);
  bool selectPreset(const QString& name);
  bool selectDevice(const QString& device);
  bool selectStudy(const QString& name);  // "" for none
  QString presetName() const;
  bool presetModified() const;
  // Each experiment's form as it was left, the shown one's included, for the next session:
  // {"fope": {"preset": "tiny", "values": {...}}, ...}. Restored, the shown experiment's form
  // comes back at once and the others' when chosen (edits made in one session had been lost at
  // the next). Values the experiment no longer has are dropped; a preset it no longer has
  // reads as its defaults.
  nlohmann::json formsAsLeft() const;
  void restoreFormsAsLeft(const nlohmann::json& forms);
  // The name of a run launched from the form: the preset's, followed where the form was edited
  // by what changed ("paper-fourier, edited: epochs 2, samples 400"), so the Runs table and
  // the History never show an edited run as the paper's; "defaults" without a preset
  // (settingsName).
  std::string runName() const;
  // A comparison arm's run: its label, after the preset's name where one is chosen ("demo ·
  // fourier N=12"), followed where the form was edited by what changed besides what the arm sets
  // ("fourier N=12, edited: epochs 20"), so 20-epoch arms are not named as the 500-epoch ones.
  // An arm that changes what the preset sets is named after the preset it then is
  // ("paper-fourier · fourier N=12" from paper-linear), else "fourier N=4 (paper-linear
  // otherwise)".
  std::string armName(const std::string& label, const nlohmann::json& overrides) const;
  QString device() const;
  QString studyName() const;
  // The validated config of the form, with the device picked; issues when invalid.
  ValidatedConfig config() const;
  // 0: the thread budget decides (the default); else that many runs at once.
  int parallelRuns() const;
  void setParallelRuns(int n);
  // Whether a study's runs of one shape train as batched groups; on by default.
  bool batchStudies() const;
  void setBatchStudies(bool on);
  // Why nothing can be trained (a store this user may not write), shown where Run's reason is
  // and keeping Run, Run comparison and Run study grey; empty: training allowed (the default).
  void setTrainingRefusal(const QString& why);
  // What Run study launches now (its spec, its number of runs, or why it cannot).
  StudyPlan studyPlan() const;
  QPushButton* runButton() const { return m_run; }
  // Under the buttons: why Run is grey (an invalid value, or lists of values), else empty.
  QLabel* problemLine() const { return m_problem; }
  QPushButton* compareButton() const { return m_compare; }
  QPushButton* studyButton() const { return m_runStudy; }
  QLabel* studySummary() const { return m_studySummary; }
  QLabel* presetNote() const { return m_reference; }
  // The comparison arms ticked in the arms menu (all of the experiment's, until one is unticked).
  std::vector<Variant> chosenVariants() const;
  // Ticks exactly the arms with these labels (for tests and scripts); false if one is unknown.
  bool chooseVariants(const QStringList& labels);
  widgets::ConfigForm* form() const { return m_form; }
  // Narrow by default (the plots need the width at 1280 x 720); the dock can be dragged wider.
  QSize sizeHint() const override;

 signals:
  void runRequested();
  void comparisonRequested();
  void studyRequested();
  void experimentChanged();
  void parallelRunsChanged(int runs);
  void batchStudiesChanged(bool on);

 private:
  // What leads armName: the preset's name, or the one the arm's start `armStart` is.
  static std::string armLead(const Experiment& experiment, const Preset& preset,
                             const nlohmann::json& armStart, const std::string& label,
                             const nlohmann::json& overrides);
  void rebuildForm();
  // The shown experiment's form as it was left, where it was left before (m_leftForms).
  void restoreLeftForm();
  void rebuildArms();
  void rebuildStudies();
  void applyPreset();
  void updateValidity();
  void updateStudy();
  void updateParallelText();

  const ExperimentRegistry& m_registry;
  QComboBox* m_experiment;
  QComboBox* m_preset;
  QLabel* m_modified;
  QComboBox* m_device;
  QSpinBox* m_parallel;
  QComboBox* m_batch;
  QString m_parallelTip;
  widgets::ConfigForm* m_form;
  QLabel* m_problem;
  // The preset's description and the paper's expected values: its first line, with a link that
  // unfolds the rest (whole, they took the dock's height from the form at 1280x720); all of it
  // on hover.
  QLabel* m_reference;
  QString m_referenceText;
  bool m_referenceUnfolded = false;
  void showReference();
  QPushButton* m_run;
  QPushButton* m_compare;
  QToolButton* m_arms;  // its menu ticks which arms "Run comparison" launches
  QComboBox* m_study;
  QLabel* m_studySummary;
  QPushButton* m_runStudy;
  QTimer* m_studyDelay;           // expanding a study on every key would be wasted work
  nlohmann::json m_presetValues;  // the form's values right after the preset was applied
  // Each experiment's form as it was left (its preset and values): opening a study or runs of
  // another experiment switches the form to theirs, and coming back found it reset to the
  // preset, its edits gone.
  struct LeftForm {
    QString preset;  // its name; empty: the defaults
    nlohmann::json values;
  };
  std::map<std::string, LeftForm> m_leftForms;
  std::string m_formExperiment;  // whose form is shown
  QString m_trainingRefusal;
};

}  // namespace fl::gui
