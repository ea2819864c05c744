// LaunchPanel: the Configure side of the window: experiment picker, presets, device selector
// (what LibTorch sees), the generated parameter form, and Run, disabled with the reason shown
// while the config is invalid.
#pragma once

#include <QWidget>

#include <memory>

#include <nlohmann/json.hpp>

#include "core/engine/registry.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
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
  // false when no experiment or device has that name (nothing changes then).
  bool selectExperiment(const QString& name);
  bool selectPreset(const QString& name);
  bool selectDevice(const QString& device);
  QString presetName() const;
  QString device() const;
  // The validated config of the form, with the device picked; issues when invalid.
  ValidatedConfig config() const;
  int parallelRuns() const;
  void setParallelRuns(int n);
  QPushButton* runButton() const { return m_run; }
  QPushButton* compareButton() const { return m_compare; }
  // The comparison arms ticked in the arms menu (all of the experiment's, until one is unticked).
  std::vector<Variant> chosenVariants() const;
  // Ticks exactly the arms with these labels (for tests and scripts); false if one is unknown.
  bool chooseVariants(const QStringList& labels);
  widgets::ConfigForm* form() const { return m_form; }

 signals:
  void runRequested();
  void comparisonRequested();
  void experimentChanged();

 private:
  void rebuildForm();
  void rebuildArms();
  void updateValidity();

  const ExperimentRegistry& m_registry;
  QComboBox* m_experiment;
  QComboBox* m_preset;
  QComboBox* m_device;
  widgets::ConfigForm* m_form;
  QLabel* m_problem;
  QLabel* m_reference;
  QPushButton* m_run;
  QPushButton* m_compare;
  QToolButton* m_arms;  // its menu ticks which arms "Run comparison" launches
  QSpinBox* m_parallel;
};

}  // namespace fl::gui
