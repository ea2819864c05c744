#include "widgets/config_form.h"

#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <climits>

#include "core/study/axis_values.h"
#include "widgets/file_dialogs.h"

namespace fl::widgets {

namespace {

QString tooltipFor(const ParamSpec& spec) {
  QString tip = QString::fromStdString(spec.help) +
                "\n\nAllowed: " + QString::fromStdString(spec.allowedDescription());
  if (spec.mutability == Mutability::Live) tip += "\nCan change while a run is live.";
  if (spec.condition) tip += "\n" + QString::fromStdString(spec.conditionDescription()) + ".";
  return tip;
}

QString groupTitle(const std::string& group) {
  QString g = QString::fromStdString(group);
  return g.isEmpty() ? "Parameters" : g.left(1).toUpper() + g.mid(1);
}

// One style for both kinds of typed field (a spin box draws its editor's background itself).
const char* const kInvalidStyle = "QLineEdit, QAbstractSpinBox { background: #ffd6d6; }";

// An integer field that never rewrites what was typed into another number: QSpinBox drops the
// keys it cannot take ("1e3" became 13, "-5" became 5) and, when editing ends on text it
// refuses, puts its last value back, so a run could start with a number other than the one on
// screen. Here any text may be typed and it stays: the form reads the text (its own parser, as
// `--set` reads it), marks refused text at the field with the parser's reason and lists it
// among the form's issues, which keep Run disabled, as a text field's are.
class IntegerField : public QSpinBox {
 public:
  IntegerField(ParamSpec spec, QWidget* parent) : QSpinBox(parent), m_spec(std::move(spec)) {
    // The value is taken when editing ends, not at each key: "12" on the way to "12.5" is not
    // the number typed.
    setKeyboardTracking(false);
  }

  QLineEdit* editor() const { return lineEdit(); }
  bool refused() const {
    return parseValue(m_spec, text().trimmed().toStdString()).error.has_value();
  }

  QValidator::State validate(QString& input, int&) const override {
    return parseValue(m_spec, input.trimmed().toStdString()).error ? QValidator::Intermediate
                                                                   : QValidator::Acceptable;
  }

 protected:
  // QAbstractSpinBox puts its last value back when editing ends on refused text: the text is
  // kept instead, for the form to mark.
  void focusOutEvent(QFocusEvent* event) override {
    if (!refused()) return QSpinBox::focusOutEvent(event);
    QWidget::focusOutEvent(event);
    emit editingFinished();
  }
  void keyPressEvent(QKeyEvent* event) override {
    const bool enter = event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter;
    if (!enter || !refused()) return QSpinBox::keyPressEvent(event);
    event->ignore();  // as QAbstractSpinBox does: a dialog's default button may take it
    emit editingFinished();
  }

 private:
  ParamSpec m_spec;
};

// The text a field's value is read from: a text field's own, an integer field's editor's.
QLineEdit* typedText(QWidget* field) {
  if (auto* integer = dynamic_cast<IntegerField*>(field)) return integer->editor();
  return qobject_cast<QLineEdit*>(field);
}

}  // namespace

ConfigForm::ConfigForm(QWidget* parent) : QWidget(parent), m_layout(new QVBoxLayout(this)) {
  m_layout->setContentsMargins(0, 0, 0, 0);
}

void ConfigForm::setSpecs(const std::vector<ParamSpec>& specs) {
  for (auto* g : m_groups) g->deleteLater();
  m_groups.clear();
  m_fields.clear();
  m_lists.clear();
  m_toggles.clear();
  m_rows.clear();
  m_specs = specs;
  QMap<QString, QFormLayout*> forms;
  for (const auto& spec : m_specs) {
    const QString title = groupTitle(spec.group);
    if (!forms.contains(title)) {
      auto* box = new QGroupBox(title, this);
      forms[title] = new QFormLayout(box);
      m_groups.append(box);
      m_layout->addWidget(box);
    }
    const QString name = QString::fromStdString(spec.name);
    auto* field = makeField(spec);
    field->setObjectName(name);
    field->setToolTip(tooltipFor(spec));
    m_fields[name] = field;
    // The same row holds the list editor, shown instead of the field while it is varied.
    auto* list = new QLineEdit(this);
    list->setObjectName(name + "_list");
    list->setPlaceholderText(spec.type == ParamType::Int || spec.type == ParamType::Float
                                 ? "values, e.g. 2,4,...,20"
                                 : "values, e.g. a,b,c");
    list->setVisible(false);
    connect(list, &QLineEdit::textChanged, this, [this] {
      markFields();
      emit changed();
    });
    auto* toggle = new QToolButton(this);
    toggle->setText("⋯");
    toggle->setCheckable(true);
    toggle->setAutoRaise(true);
    toggle->setToolTip(QString("Vary %1 over several values (a study)").arg(name));
    connect(toggle, &QToolButton::toggled, this, [this, spec](bool on) { setVaried(spec, on); });
    auto* row = new QWidget(this);
    auto* rowLayout = new QHBoxLayout(row);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    rowLayout->setSpacing(2);
    rowLayout->addWidget(field, 1);
    rowLayout->addWidget(list, 1);
    // A file's path is picked, not only typed: a typo or a "~" that no shell expands here was
    // found only by the check's message.
    if (spec.isFilePath)
      if (auto* edit = qobject_cast<QLineEdit*>(field)) {
        auto* browse = new QToolButton(this);
        browse->setObjectName(name + "_browse");
        browse->setText("…");
        browse->setAutoRaise(true);
        browse->setToolTip(QString("Choose the file for %1").arg(name));
        connect(browse, &QToolButton::clicked, this, [this, edit, name] {
          const QString chosen =
              askOpenFileName(this, QString("File for %1").arg(name), edit->text());
          if (!chosen.isEmpty()) edit->setText(chosen);
        });
        rowLayout->addWidget(browse);
      }
    rowLayout->addWidget(toggle);
    m_lists[name] = list;
    m_toggles[name] = toggle;
    auto* label = new QLabel(name, this);
    m_rows[name] = {label, row};
    forms[title]->addRow(label, row);
  }
  markFields();
}

QWidget* ConfigForm::makeField(const ParamSpec& spec) {
  auto guarded = [this](QWidget* w) {
    // The wheel changes a value only once the field has focus (a click or Tab gives it).
    w->setFocusPolicy(Qt::StrongFocus);
    w->installEventFilter(this);
    return w;
  };
  switch (spec.type) {
    case ParamType::Int: {
      auto* box = new IntegerField(spec, this);
      box->setRange(static_cast<int>(std::max<double>(spec.minimum, INT_MIN)),
                    static_cast<int>(std::min<double>(spec.maximum, INT_MAX)));
      box->setValue(spec.defaultValue.get<int>());
      auto remark = [this] {
        markFields();
        emit changed();
      };
      connect(box, qOverload<int>(&QSpinBox::valueChanged), this, remark);
      // Each key too: Run follows the text on screen, not the value the box last took. (A
      // value set from code rewrites the text with the editor's signals blocked.)
      connect(box->editor(), &QLineEdit::textChanged, this, remark);
      return guarded(box);
    }
    case ParamType::Bool: {
      auto* box = new QCheckBox(this);
      box->setChecked(spec.defaultValue.get<bool>());
      connect(box, &QCheckBox::toggled, this, [this] {
        markFields();
        emit changed();
      });
      return box;
    }
    case ParamType::Choice: {
      auto* box = new QComboBox(this);
      for (const auto& c : spec.choices) box->addItem(QString::fromStdString(c));
      box->setCurrentText(QString::fromStdString(spec.defaultValue.get<std::string>()));
      connect(box, &QComboBox::currentTextChanged, this, [this] {
        markFields();
        emit changed();
      });
      return guarded(box);
    }
    case ParamType::Float:
    case ParamType::Text: {
      auto* edit = new QLineEdit(this);
      edit->setText(spec.type == ParamType::Float
                        ? QString::number(spec.defaultValue.get<double>(), 'g', 10)
                        : QString::fromStdString(spec.defaultValue.get<std::string>()));
      edit->setPlaceholderText(spec.isFilePath ? QString("a file's path")
                                               : QString::fromStdString(spec.allowedDescription()));
      connect(edit, &QLineEdit::textChanged, this, [this] {
        markFields();
        emit changed();
      });
      return edit;
    }
  }
  return new QWidget(this);
}

bool ConfigForm::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Wheel) {
    auto* widget = qobject_cast<QWidget*>(watched);
    if (widget && !widget->hasFocus()) {
      // Not for this field: the form around it scrolls instead.
      if (widget->parentWidget()) QCoreApplication::sendEvent(widget->parentWidget(), event);
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

QString ConfigForm::currentText(const ParamSpec& spec) const {
  const auto values = this->values();
  if (!values.contains(spec.name)) return {};
  const auto& v = values[spec.name];
  return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
}

void ConfigForm::setVaried(const ParamSpec& spec, bool varied) {
  const QString name = QString::fromStdString(spec.name);
  QLineEdit* list = m_lists.value(name);
  QWidget* field = m_fields.value(name);
  if (!list || !field) return;
  if (varied && list->text().isEmpty()) list->setText(currentText(spec));
  field->setVisible(!varied);
  list->setVisible(varied);
  if (auto* toggle = m_toggles.value(name); toggle && toggle->isChecked() != varied) {
    const QSignalBlocker block(toggle);
    toggle->setChecked(varied);
  }
  if (varied) list->setFocus();
  markFields();
  emit changed();
}

bool ConfigForm::setList(const QString& name, const QString& text) {
  const ParamSpec* spec = nullptr;
  for (const auto& s : m_specs)
    if (QString::fromStdString(s.name) == name) spec = &s;
  if (!spec) return false;
  m_lists[name]->setText(text);
  setVaried(*spec, !text.isEmpty());
  return true;
}

bool ConfigForm::isVaried(const QString& name) const {
  auto* list = m_lists.value(name);
  return list && !list->isHidden();
}

QString ConfigForm::listText(const QString& name) const {
  return isVaried(name) ? m_lists.value(name)->text().trimmed() : QString();
}

std::vector<study::Axis> ConfigForm::axes() const {
  std::vector<study::Axis> out;
  const nlohmann::json current = values();
  for (const auto& spec : m_specs) {
    const QString name = QString::fromStdString(spec.name);
    // A list the config does not use (frequencies under a linear head) varies nothing.
    if (!isVaried(name) || !isUsedHere(spec, current)) continue;
    auto parsed = study::parseAxisValues(spec, listText(name).toStdString());
    if (!parsed.error) out.push_back({spec.name, parsed.values});
  }
  return out;
}

void ConfigForm::setValues(const nlohmann::json& values) {
  if (!values.is_object()) return;
  for (const auto& spec : m_specs) {
    if (!values.contains(spec.name)) continue;
    const auto& v = values[spec.name];
    QWidget* w = m_fields.value(QString::fromStdString(spec.name));
    if (auto* box = qobject_cast<QSpinBox*>(w); box && v.is_number())
      box->setValue(v.get<int>());
    else if (auto* check = qobject_cast<QCheckBox*>(w); check && v.is_boolean())
      check->setChecked(v.get<bool>());
    else if (auto* combo = qobject_cast<QComboBox*>(w); combo && v.is_string())
      combo->setCurrentText(QString::fromStdString(v.get<std::string>()));
    else if (auto* edit = qobject_cast<QLineEdit*>(w))
      edit->setText(v.is_number()
                        ? QString::number(v.get<double>(), 'g', 10)
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
    const QString name = QString::fromStdString(spec.name);
    if (isVaried(name)) {
      auto parsed = study::parseAxisValues(spec, listText(name).toStdString());
      if (!parsed.error && !parsed.values.empty()) out[spec.name] = parsed.values.front();
      continue;
    }
    QWidget* w = m_fields.value(name);
    if (auto* text = typedText(w)) {
      auto parsed = parseValue(spec, text->text().trimmed().toStdString());
      if (!parsed.error) out[spec.name] = parsed.value;
    } else if (auto* check = qobject_cast<QCheckBox*>(w)) {
      out[spec.name] = check->isChecked();
    } else if (auto* combo = qobject_cast<QComboBox*>(w)) {
      out[spec.name] = combo->currentText().toStdString();
    }
  }
  return out;
}

std::vector<ConfigIssue> ConfigForm::issues() const {
  std::vector<ConfigIssue> out;
  const nlohmann::json current = values();
  for (const auto& spec : m_specs) {
    const QString name = QString::fromStdString(spec.name);
    if (isVaried(name)) {
      if (!isUsedHere(spec, current)) continue;  // greyed, and no axis: nothing to refuse
      auto parsed = study::parseAxisValues(spec, listText(name).toStdString());
      if (parsed.error) out.push_back({spec.name, *parsed.error});
      continue;
    }
    if (auto* text = typedText(m_fields.value(name)))
      if (auto error = textError(spec, text->text())) out.push_back({spec.name, *error});
  }
  auto validated = validateConfig(m_specs, values());
  for (const auto& issue : validated.issues) {
    bool known = false;
    for (const auto& existing : out) known = known || existing.key == issue.key;
    if (!known) out.push_back(issue);
  }
  return out;
}

bool ConfigForm::isUsedHere(const ParamSpec& spec, const nlohmann::json& values) const {
  if (!spec.condition) return true;
  const QString key = QString::fromStdString(spec.condition->key);
  if (!isVaried(key)) return isUsed(spec, values);
  // A varied choice uses the parameter when any of its values does.
  const ParamSpec* controller = findParam(m_specs, spec.condition->key);
  if (!controller) return true;
  const auto parsed = study::parseAxisValues(*controller, listText(key).toStdString());
  if (parsed.error) return true;
  for (const auto& value : parsed.values)
    if (isUsed(spec, nlohmann::json{{spec.condition->key, value}})) return true;
  return false;
}

void ConfigForm::markFields() {
  const nlohmann::json current = values();
  for (const auto& spec : m_specs) {
    const QString name = QString::fromStdString(spec.name);
    // A parameter this config does not use is greyed, its value kept for when it is used again.
    const bool used = isUsedHere(spec, current);
    const auto row = m_rows.value(name);
    if (row.label) row.label->setEnabled(used);
    if (row.editors) row.editors->setEnabled(used);
  }
  for (const auto& spec : m_specs) {
    const QString name = QString::fromStdString(spec.name);
    QWidget* field = m_fields.value(name);
    if (auto* list = m_lists.value(name); list && isVaried(name)) {
      const auto parsed = study::parseAxisValues(spec, listText(name).toStdString());
      list->setStyleSheet(parsed.error ? kInvalidStyle : "");
      list->setToolTip(
          parsed.error ? QString::fromStdString(*parsed.error)
                       : QString("%1 values: %2").arg(parsed.values.size()).arg(tooltipFor(spec)));
    }
    // Marks markIssues left on a field go with an edit too.
    auto* text = typedText(field);
    const auto error = text ? textError(spec, text->text()) : std::nullopt;
    if (field) {
      field->setStyleSheet(error ? kInvalidStyle : "");
      field->setToolTip(error ? QString::fromStdString(*error) : tooltipFor(spec));
    }
  }
}

void ConfigForm::markIssues(const std::vector<ConfigIssue>& issues) {
  for (const auto& issue : issues) {
    QWidget* field = m_fields.value(QString::fromStdString(issue.key));
    if (!field) continue;  // the whole config's, or a parameter the form does not show
    field->setStyleSheet(kInvalidStyle);
    field->setToolTip(QString::fromStdString(issue.message));
  }
}

}  // namespace fl::widgets
