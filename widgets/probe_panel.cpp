#include "widgets/probe_panel.h"

#include <QGridLayout>
#include <QLabel>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>

#include "widgets/snapshot_plot.h"

namespace fl::widgets {

ProbePanel::ProbePanel(const QString& title, const QStringList& series,
                       const QList<ProbeSlider>& sliders, QWidget* parent)
    : QWidget(parent),
      m_specs(sliders),
      m_plot(new SnapshotPlot(title, SnapshotPlot::Mode::Curves, series, "z", "density", this)),
      m_note(new QLabel(this)),
      m_debounce(new QTimer(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot, 1);
  // Answers come from a checkpoint, not from the run's records: "no data for this run yet" on a
  // finished run read as if the run had lost them. The note below says why there is none.
  m_plot->setEmptyCaption("no answer yet");
  auto* grid = new QGridLayout;
  for (int i = 0; i < m_specs.size(); ++i) {
    const auto& spec = m_specs[i];
    auto* slider = new QSlider(Qt::Horizontal, this);
    slider->setRange(0, kTicks);
    slider->setObjectName(spec.name);
    slider->setToolTip(spec.help);
    auto* value = new QLabel(this);
    value->setMinimumWidth(48);
    grid->addWidget(new QLabel(spec.name, this), i, 0);
    grid->addWidget(slider, i, 1);
    grid->addWidget(value, i, 2);
    m_sliders << slider;
    m_values << value;
    connect(slider, &QSlider::valueChanged, this, [this, i](int) {
      m_values[i]->setText(QString::number(inputs()[m_specs[i].name.toStdString()], 'f', 2));
      m_debounce->start();
    });
  }
  layout->addLayout(grid);
  m_note->setWordWrap(true);
  layout->addWidget(m_note);
  m_debounce->setSingleShot(true);
  m_debounce->setInterval(60);  // a drag asks at most ~16 times a second
  connect(m_debounce, &QTimer::timeout, this, &ProbePanel::probeRequested);
  for (const auto& spec : m_specs) setInput(spec.name, spec.value);
}

std::map<std::string, double> ProbePanel::inputs() const {
  std::map<std::string, double> out;
  for (int i = 0; i < m_specs.size(); ++i) {
    const auto& s = m_specs[i];
    out[s.name.toStdString()] =
        s.minimum + (s.maximum - s.minimum) * m_sliders[i]->value() / kTicks;
  }
  return out;
}

void ProbePanel::setInput(const QString& name, double value) {
  for (int i = 0; i < m_specs.size(); ++i)
    if (m_specs[i].name == name) {
      const auto& s = m_specs[i];
      m_sliders[i]->setValue(
          static_cast<int>(std::lround((value - s.minimum) / (s.maximum - s.minimum) * kTicks)));
      m_values[i]->setText(QString::number(value, 'f', 2));
    }
}

void ProbePanel::setAnswer(const Snapshot& snapshot, int64_t step) {
  m_plot->setSnapshot(snapshot, step);
  m_plot->refresh();
}

void ProbePanel::clearAnswer() {
  m_plot->clear();
  m_plot->refresh();
  m_note->clear();
}

void ProbePanel::setNote(const QString& note) { m_note->setText(note); }

QString ProbePanel::note() const { return m_note->text(); }

}  // namespace fl::widgets
