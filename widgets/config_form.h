// ConfigForm: the parameter form generated from an experiment's ParamSpec list: spin boxes for
// integers (with their ranges), combo boxes for choices, check boxes for flags, text fields for
// numbers and strings; the help text as tooltip. Every edit is validated against the specs;
// an invalid field is marked red with the reason, and issues() lists what blocks a run.
//
// Any parameter can hold a list of values instead (a study's axis): the "⋯" button beside it
// turns the field into a text field taking "2,4,...,20" or "gaussian,gmm2" (parsed and checked
// by core/study/axis_values.h, the CLI's --grid syntax); axes() gives them. Spin boxes and
// combo boxes ignore the mouse wheel until they have focus, so scrolling the form never changes
// a value by accident. A parameter the current values do not use (its condition, such as
// "used only when head is fourier", unmet by every value of the choice it depends on) is
// greyed with its label; it keeps its value, and a list it holds is no axis until it is used.
#pragma once

#include <QMap>
#include <QWidget>

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/config.h"
#include "core/engine/param_spec.h"
#include "core/engine/study_spec.h"

class QFormLayout;
class QLabel;
class QLineEdit;
class QToolButton;
class QVBoxLayout;

namespace fl::widgets {

class ConfigForm : public QWidget {
  Q_OBJECT

 public:
  explicit ConfigForm(QWidget* parent = nullptr);

  // Rebuilds the form for a parameter list, every field at its default (none varied).
  void setSpecs(const std::vector<ParamSpec>& specs);
  // Sets the given keys (a preset, a stored run's config); others keep their values.
  void setValues(const nlohmann::json& values);
  // Every field's value as parsed (invalid text fields are left out, so issues() names them);
  // a varied field gives its first value, so the values still make one valid config.
  nlohmann::json values() const;
  // What is wrong, one issue per invalid field (or list); empty when a run may start.
  std::vector<ConfigIssue> issues() const;
  // Marks the fields named by issues found beyond the form's own checks (the whole config's: a
  // corpus that is not text, a train_len too short for the passkeys) as an invalid field is
  // marked, the reason in its tooltip; until the next edit re-marks the form.
  void markIssues(const std::vector<ConfigIssue>& issues);
  // The editor of one parameter (tests, focus on an issue).
  QWidget* field(const QString& name) const { return m_fields.value(name); }
  // The label of one parameter's row (greyed with its editors when the parameter is unused).
  QLabel* label(const QString& name) const { return m_rows.value(name).label; }

  // Varies a parameter over the values of `text` ("2,4,...,20"); an empty text stops varying
  // it. False when there is no such parameter.
  bool setList(const QString& name, const QString& text);
  bool isVaried(const QString& name) const;
  QLineEdit* listField(const QString& name) const { return m_lists.value(name); }
  // The varied parameters as study axes, in form order (invalid lists are left out: issues()
  // names them).
  std::vector<study::Axis> axes() const;
  // The text of a varied parameter's list ("" when it is not varied).
  QString listText(const QString& name) const;

 signals:
  void changed();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QWidget* makeField(const ParamSpec& spec);
  void markFields();
  void setVaried(const ParamSpec& spec, bool varied);
  std::optional<std::string> textError(const ParamSpec& spec, const QString& text) const;
  QString currentText(const ParamSpec& spec) const;
  bool isUsedHere(const ParamSpec& spec, const nlohmann::json& values) const;

  QVBoxLayout* m_layout;
  std::vector<ParamSpec> m_specs;
  QMap<QString, QWidget*> m_fields;
  QMap<QString, QLineEdit*> m_lists;  // the list editor of each parameter (hidden unless varied)
  QMap<QString, QToolButton*> m_toggles;  // its "⋯" button
  struct Row {
    QLabel* label = nullptr;
    QWidget* editors = nullptr;  // the field, its list editor and its "⋯" button
  };
  QMap<QString, Row> m_rows;
  QList<QWidget*> m_groups;
};

}  // namespace fl::widgets
