// StudyFigurePlot: draws a study's paper-style figure (core/study/study_figure.h) with
// QCustomPlot: a grid of panels, each with a mean line per group and its band over seeds, the
// baselines dashed across the panel with their bands, the paper's points with error bars; one
// legend for the whole figure (a label keeps its colour in every panel) and the band's meaning
// in a caption. The same widget shows it in the GUI and writes it to SVG, PNG or PDF for
// `fourierlab-cli sweep plot`.
#pragma once

#include <QString>
#include <QWidget>

#include "core/study/study_figure.h"

class QCustomPlot;

namespace fl::widgets {

class StudyFigurePlot : public QWidget {
  Q_OBJECT

 public:
  explicit StudyFigurePlot(QWidget* parent = nullptr);

  void setFigure(const study::StudyFigure& figure);

  // Writes the figure at width x height pixels; the file's extension (.svg, .png, .pdf) picks
  // the format. Returns "" or what went wrong.
  QString save(const QString& path, int width, int height);

  // What is drawn, for tests: graphs (lines, bands, baselines, points) and legend entries.
  int graphCount() const;
  int legendEntries() const;
  int panelCount() const;

 private:
  QCustomPlot* m_plot;
  int m_panels = 0;
};

}  // namespace fl::widgets
