// StudyFigurePlot: draws a study's paper-style figure (core/study/study_figure.h) with
// QCustomPlot: a grid of panels, each with a mean line per group and its band over seeds, the
// baselines dashed across the panel with their bands, the paper's points with error bars; one
// legend for the whole figure (a label keeps its colour in every panel) and the band's meaning
// in a caption. The same widget shows it in the GUI and writes it to SVG, PNG or PDF for
// `fourierlab-cli sweep plot`.
#pragma once

#include <QString>
#include <QWidget>

#include <utility>
#include <vector>

#include "core/study/study_figure.h"

class QCustomPlot;
class QCPAxis;
class QCPAxisRect;
class QCPLayoutGrid;
class QCPLegend;
class QCPTextElement;

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
  QCustomPlot* plot() const { return m_plot; }
  int panelCount() const;
  // The height at which every row of panels reads (kMinRowHeight each, with the title and the
  // legend); shorter, the figure scrolls.
  int readableHeight() const { return 80 + m_rows * kMinRowHeight; }
  // Panel i's title line and its y axis's label as drawn now (the y title is in one of them).
  QString panelTitle(int i) const;
  QString panelYLabel(int i) const;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  // A y title that is longer than its panel is tall would run over the panels above and
  // below it: then it joins the panel's title line instead. Titles wider than their panel (or
  // the figure) end in an ellipsis rather than being cut at both ends. For a figure of
  // `width` x `height` pixels.
  void placeTitles(int width, int height);
  // setFigure's steps: the figure's title, its grid of panels (returned), legend and caption;
  // then each panel's title and axis rect (returned), in row-major order.
  std::pair<QCPLayoutGrid*, QCPLegend*> layOutFigure(const study::StudyFigure& figure);
  QCPAxisRect* addPanel(QCPLayoutGrid* grid, int index, int cols, const study::FigurePanel& panel);

  // A panel with a note of off-scale baselines at its top or bottom edge: its y range is its
  // data's (low .. high) widened so the note covers no point. Returns whether a range changed.
  struct NoteRoom {
    QCPAxisRect* rect = nullptr;
    double low = 0, high = 1;
    int linesAbove = 0, linesBelow = 0;
  };
  bool makeRoomForNotes();

  struct PanelTitles {
    QCPTextElement* title = nullptr;
    QCPAxis* yAxis = nullptr;
    QCPAxis* xAxis = nullptr;
    QStringList categories;  // the x axis's category labels, whole (its ticks may be cut)
    QString text;            // "dataset = gmm2"
    QString yTitle;          // "KL(true || predicted) (nats)"
  };
  // A row holds a title, an axis title and tick labels (about 80 px): 170 leaves the curves
  // about 90 px, which still reads; less and the figure scrolls instead.
  static constexpr int kMinRowHeight = 170;
  QCustomPlot* m_plot;
  int m_panels = 0;
  int m_rows = 1;
  int m_cols = 1;
  std::vector<PanelTitles> m_titles;
  std::vector<NoteRoom> m_noteRooms;
  QCPTextElement* m_figureTitle = nullptr;
  QString m_figureTitleText;
  // The caption's lines (the band, a departure), wrapped to the figure's width when placed.
  std::vector<std::pair<QCPTextElement*, QString>> m_captions;
  QCPLegend* m_legend = nullptr;
};

}  // namespace fl::widgets
