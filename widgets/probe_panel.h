// ProbePanel: the interactive probe. One slider per declared input (e.g. x and y); moving one
// asks the run for the density it predicts now at those inputs (debounced), and the answer is
// drawn beside the true density.
#pragma once

#include <QList>
#include <QString>
#include <QWidget>

#include <map>
#include <string>

#include "core/engine/events.h"

class QLabel;
class QSlider;
class QTimer;

namespace fl::widgets {

class SnapshotPlot;

struct ProbeSlider {
  QString name;
  double minimum = 0;
  double maximum = 1;
  double value = 0;
  QString help;
};

class ProbePanel : public QWidget {
  Q_OBJECT

 public:
  ProbePanel(const QString& title, const QStringList& series, const QList<ProbeSlider>& sliders,
             QWidget* parent = nullptr);

  std::map<std::string, double> inputs() const;
  void setInput(const QString& name, double value);
  void setAnswer(const Snapshot& snapshot, int64_t step);
  void clearAnswer();  // the curves and the note, when another run is shown
  void setNote(const QString& note);
  QString note() const;
  SnapshotPlot* plot() const { return m_plot; }

 signals:
  void probeRequested();

 private:
  static constexpr int kTicks = 200;
  QList<ProbeSlider> m_specs;
  QList<QSlider*> m_sliders;
  QList<QLabel*> m_values;
  SnapshotPlot* m_plot;
  QLabel* m_note;
  QTimer* m_debounce;
};

}  // namespace fl::widgets
