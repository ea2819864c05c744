// ConfigForm: the parameter form generated from an experiment's ParamSpec list: spin boxes for
// integers (with their ranges), combo boxes for choices, check boxes for flags, text fields for
// numbers and strings; the help text as tooltip. Every edit is validated against the specs;
// an invalid field is marked red with the reason, and issues() lists what blocks a run.
#pragma once

#include <QMap>
#include <QWidget>

#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/config.h"
#include "core/engine/param_spec.h"

class QFormLayout;
class QVBoxLayout;

namespace fl::widgets {

class ConfigForm : public QWidget {
  Q_OBJECT

 public:
  explicit ConfigForm(QWidget* parent = nullptr);

  // Rebuilds the form for a parameter list, every field at its default.
  void setSpecs(const std::vector<ParamSpec>& specs);
  // Sets the given keys (a preset, a stored run's config); others keep their values.
  void setValues(const nlohmann::json& values);
  // Every field's value as parsed (invalid text fields are left out, so issues() names them).
  nlohmann::json values() const;
  // What is wrong, one issue per invalid field; empty when a run may start.
  std::vector<ConfigIssue> issues() const;
  // The editor of one parameter (tests, focus on an issue).
  QWidget* field(const QString& name) const { return m_fields.value(name); }

 signals:
  void changed();

 private:
  QWidget* makeField(const ParamSpec& spec);
  void markFields();
  std::optional<std::string> textError(const ParamSpec& spec, const QString& text) const;

  QVBoxLayout* m_layout;
  std::vector<ParamSpec> m_specs;
  QMap<QString, QWidget*> m_fields;
  QList<QWidget*> m_groups;
};

}  // namespace fl::widgets
