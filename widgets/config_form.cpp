#include "widgets/config_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

#include <climits>

namespace fl::widgets {

namespace {

QString tooltipFor(const ParamSpec& spec) {
  QString tip = QString::fromStdString(spec.help) + "\n\nAllowed: " +
                QString::fromStdString(spec.allowedDescription());
  if (spec.mutability == Mutability::Live) tip += "\nCan change while a run is live.";
  return tip;
}

QString groupTitle(const std::string& group) {
  QString g = QString::fromStdString(group);
  return g.isEmpty() ? "Parameters" : g.left(1).toUpper() + g.mid(1);
}

}  // namespace

ConfigForm::ConfigForm(QWidget* parent) : QWidget(parent), m_layout(new QVBoxLayout(this)) {
  m_layout->setContentsMargins(0, 0, 0, 0);
}

void ConfigForm::setSpecs(const std::vector<ParamSpec>& specs) {
  for (auto* g : m_groups) g->deleteLater();
  m_groups.clear();
  m_fields.clear();
  m_specs = specs;
  QMap<QString, QFormLayout*> forms;
  QStringList order;
  for (const auto& spec : m_specs) {
    const QString title = groupTitle(spec.group);
    if (!forms.contains(title)) {
      auto* box = new QGroupBox(title, this);
      forms[title] = new QFormLayout(box);
      m_groups.append(box);
      m_layout->addWidget(box);
    }
    auto* field = makeField(spec);
    field->setObjectName(QString::fromStdString(spec.name));
    field->setToolTip(tooltipFor(spec));
    m_fields[QString::fromStdString(spec.name)] = field;
    forms[title]->addRow(QString::fromStdString(spec.name), field);
  }
  markFields();
}

QWidget* ConfigForm::makeField(const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::Int: {
      auto* box = new QSpinBox(this);
      box->setRange(static_cast<int>(std::max<double>(spec.minimum, INT_MIN)),
                    static_cast<int>(std::min<double>(spec.maximum, INT_MAX)));
      box->setValue(spec.defaultValue.get<int>());
      connect(box, qOverload<int>(&QSpinBox::valueChanged), this, [this] { markFields(); emit changed(); });
      return box;
    }
    case ParamType::Bool: {
      auto* box = new QCheckBox(this);
      box->setChecked(spec.defaultValue.get<bool>());
      connect(box, &QCheckBox::toggled, this, [this] { markFields(); emit changed(); });
      return box;
    }
    case ParamType::Choice: {
      auto* box = new QComboBox(this);
      for (const auto& c : spec.choices) box->addItem(QString::fromStdString(c));
      box->setCurrentText(QString::fromStdString(spec.defaultValue.get<std::string>()));
      connect(box, &QComboBox::currentTextChanged, this, [this] { markFields(); emit changed(); });
      return box;
    }
    case ParamType::Float:
    case ParamType::Text: {
      auto* edit = new QLineEdit(this);
      edit->setText(spec.type == ParamType::Float
                        ? QString::number(spec.defaultValue.get<double>(), 'g', 10)
                        : QString::fromStdString(spec.defaultValue.get<std::string>()));
      edit->setPlaceholderText(QString::fromStdString(spec.allowedDescription()));
      connect(edit, &QLineEdit::textChanged, this, [this] { markFields(); emit changed(); });
      return edit;
    }
  }
  return new QWidget(this);
}

void ConfigForm::setValues(const nlohmann::json& values) {
  if (!values.is_object()) return;
  for (const auto& spec : m_specs) {
    if (!values.contains(spec.name)) continue;
    const auto& v = values[spec.name];
    QWidget* w = m_fields.value(QString::fromStdString(spec.name));
    if (auto* box = qobject_cast<QSpinBox*>(w); box && v.is_number()) box->setValue(v.get<int>());
    else if (auto* check = qobject_cast<QCheckBox*>(w); check && v.is_boolean()) check->setChecked(v.get<bool>());
    else if (auto* combo = qobject_cast<QComboBox*>(w); combo && v.is_string()) combo->setCurrentText(QString::fromStdString(v.get<std::string>()));
    else if (auto* edit = qobject_cast<QLineEdit*>(w))
      edit->setText(v.is_number() ? QString::number(v.get<double>(), 'g', 10)
                                  : QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump()));
  }
  markFields();
  emit changed();
}

std::optional<std::string> ConfigForm::textError(const ParamSpec& spec, const QString& text) const {
  return parseValue(spec, text.trimmed().toStdString()).error;
}

nlohmann::json ConfigForm::values() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& spec : m_specs) {
    QWidget* w = m_fields.value(QString::fromStdString(spec.name));
    if (auto* box = qobject_cast<QSpinBox*>(w)) out[spec.name] = box->value();
    else if (auto* check = qobject_cast<QCheckBox*>(w)) out[spec.name] = check->isChecked();
    else if (auto* combo = qobject_cast<QComboBox*>(w)) out[spec.name] = combo->currentText().toStdString();
    else if (auto* edit = qobject_cast<QLineEdit*>(w)) {
      auto parsed = parseValue(spec, edit->text().trimmed().toStdString());
      if (!parsed.error) out[spec.name] = parsed.value;
    }
  }
  return out;
}

std::vector<ConfigIssue> ConfigForm::issues() const {
  std::vector<ConfigIssue> out;
  for (const auto& spec : m_specs)
    if (auto* edit = qobject_cast<QLineEdit*>(m_fields.value(QString::fromStdString(spec.name))))
      if (auto error = textError(spec, edit->text())) out.push_back({spec.name, *error});
  auto validated = validateConfig(m_specs, values());
  out.insert(out.end(), validated.issues.begin(), validated.issues.end());
  return out;
}

void ConfigForm::markFields() {
  for (const auto& spec : m_specs) {
    auto* edit = qobject_cast<QLineEdit*>(m_fields.value(QString::fromStdString(spec.name)));
    if (!edit) continue;
    const auto error = textError(spec, edit->text());
    edit->setStyleSheet(error ? "QLineEdit { background: #ffd6d6; }" : "");
    edit->setToolTip(error ? QString::fromStdString(*error) : tooltipFor(spec));
  }
}

}  // namespace fl::widgets
