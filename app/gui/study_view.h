// StudyView: one stored study, filling in live as its runs finish. A progress grid (one row per
// setting, one cell per seed, coloured by the run's status; hover names the run), the paper-
// style figure (widgets/study_figure_plot: mean lines with a band over seeds, baselines dashed,
// the paper's points; metric, x axis, group, panels and band chosen above it), and the
// aggregated table with the paper's values and verdicts (widgets/study_table_model). Clicking a
// setting (its row in the grid or the table) asks to compare its runs. In place of the figure,
// the runs as parallel coordinates (widgets/parallel_coordinates: an axis per swept parameter,
// the chosen metric last): brushing ranges of the axes picks runs to compare. Everything is
// computed by the engine's aggregate() and buildStudyFigure(), from the store's results with the
// queue's live runs laid over them (the store writer lags the live runs by up to a second).
#pragma once

#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

#include "app/gui/run_view.h"
#include "core/study/study_store.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QSplitter;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;
class QTimer;

namespace fl::store {
class RunStore;
}
namespace fl::widgets {
class ParallelCoordinatesPlot;
class StudyFigurePlot;
class StudyProgressGrid;
class StudyTableModel;
}  // namespace fl::widgets

namespace fl::gui {

class RunQueue;
class RunViews;

class StudyView : public QWidget {
  Q_OBJECT

 public:
  StudyView(store::RunStore& store, RunViews& views, RunQueue& queue, QWidget* parent = nullptr);

  // Shows a study (0: none); false when the store has no such study.
  bool setStudy(int64_t studyId);
  int64_t studyId() const { return m_studyId; }
  // The study shown, as the store records it (nothing while none is).
  const std::optional<study::StudyRecord>& record() const { return m_record; }
  // Reads the study again (its results, the live runs over them) and redraws.
  void refresh();
  // The runs of this study that reported: a status change redraws (at most every half second).
  void apply(const RunDeltas& deltas);

  // The results as drawn: the store's, with the live runs' status and metrics over them.
  const std::vector<study::StudyRunResult>& results() const { return m_results; }
  widgets::StudyProgressGrid* grid() const { return m_grid; }
  widgets::StudyFigurePlot* figure() const { return m_figure; }
  widgets::ParallelCoordinatesPlot* parallel() const { return m_parallel; }
  widgets::StudyTableModel* tableModel() const { return m_tableModel; }
  QTableView* table() const { return m_table; }
  // Each figure the study declares (one "paper figure" for one or none), then the parallel
  // coordinates.
  QComboBox* viewChoice() const { return m_view; }
  QComboBox* metricChoice() const { return m_metric; }
  QComboBox* xChoice() const { return m_x; }
  QComboBox* groupChoice() const { return m_group; }
  QComboBox* panelChoice() const { return m_panel; }
  QComboBox* bandChoice() const { return m_band; }
  // The row of those choices (it wraps onto more rows in a narrow pane).
  QWidget* figureChoices() const { return m_controls; }
  QLabel* figureNote() const { return m_figureNote; }
  QLabel* parallelNote() const { return m_parallelNote; }
  QPushButton* compareBrushedButton() const { return m_compareBrushed; }
  // At most this many runs are compared at once (more lines than that do not read).
  static constexpr size_t kMaxCompared = 12;
  QLabel* summary() const { return m_summary; }
  // The study's title, its description's first sentence (the whole in its tooltip) and what
  // departs from the study it was made from.
  QLabel* title() const { return m_title; }
  QPushButton* resumeButton() const { return m_resume; }
  QPushButton* stopButton() const { return m_stop; }

 signals:
  void compareRequested(std::vector<int64_t> runIds);
  void resumeRequested(int64_t studyId);
  void stopRequested(int64_t studyId);
  // Views of the study's runs read again from the store: another process changed them.
  void runsReloaded(std::vector<int64_t> runIds);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  // The constructor's steps.
  QHBoxLayout* buildHeader();
  QWidget* buildGridPane();
  QWidget* buildFigurePane();
  QWidget* buildParallelPane();
  void setUpTable();
  QSplitter* splitPanes(QWidget* gridPane, QWidget* figurePane);
  void connectControls();  // the figure's choices, the grid, the table, the queue, the buttons
  // At every resize until a splitter is dragged: widens the grid's pane to the grid (labels,
  // header and seed columns), up to 2/5 of the width, so that nothing in it is elided where
  // there is room; gives the figure its rows at a readable height and the table the rest, from
  // kTableRowsAtLeast to kTableRowsShown of its rows, the figure never under
  // kFigureMinimumHeight (at 1280 x 720 a 3:1 split showed Table 1 one row at a time, and at
  // 1920 x 1080 the table took eight rows from a figure squeezed to 60 px per panel).
  void fitPanes();
  static constexpr int kTableRowsShown = 6;
  static constexpr int kTableRowsAtLeast = 3;
  static constexpr int kFigureMinimumHeight = 260;
  void fillChoices();
  const study::FigureLayout* chosenFigure() const;  // null: parallel coordinates, or none
  void showDeclaredFigure(const study::FigureLayout& figure);  // sets the choices to it
  void drawFigure();  // the paper figure or the parallel coordinates, as chosen
  void drawParallel();
  bool parallelChosen() const;
  // The brushed runs (`first` ahead of them), at most kMaxCompared, asked to be compared.
  void compareBrushed(int64_t first = 0);
  void showClaims(const std::vector<study::StudyClaim>& claims);
  void drawGrid(const std::vector<study::AggregateCell>& cells);
  void compareSetting(const study::AggregateCell& cell);
  study::FigureLayout chosenLayout() const;
  // The lines and panels boxes let go of the axis the x axis (or the lines) took.
  void showOneRolePerAxis();

  store::RunStore& m_store;
  RunViews& m_views;
  RunQueue& m_queue;
  int64_t m_studyId = 0;
  std::optional<study::StudyRecord> m_record;
  QString m_departs;     // what the shown study changed from its declared one (departureNote)
  QString m_claimsHtml;  // each claim's outcome and numbers, for the hover and "read them"
  std::vector<study::StudyRunResult> m_results;
  std::vector<study::AggregateCell> m_cells;
  QLabel* m_title;
  QLabel* m_summary;
  QPushButton* m_resume;
  QPushButton* m_stop;
  widgets::StudyProgressGrid* m_grid;
  QComboBox* m_view;
  QComboBox* m_metric;
  QComboBox* m_x;
  QComboBox* m_group;
  QComboBox* m_panel;
  QComboBox* m_band;
  QWidget* m_controls = nullptr;
  QStackedWidget* m_figurePages;
  widgets::StudyFigurePlot* m_figure;
  QLabel* m_figureNote;
  widgets::ParallelCoordinatesPlot* m_parallel;
  QLabel* m_parallelNote;
  QPushButton* m_compareBrushed;
  widgets::StudyTableModel* m_tableModel;
  QSortFilterProxyModel* m_proxy;
  QTableView* m_table;
  QTimer* m_redraw;              // coalesces the redraws of a burst of finishing runs
  QSplitter* m_top = nullptr;    // the grid's pane beside the figure's
  QSplitter* m_split = nullptr;  // those two over the table
  bool m_filling = false;
  // The panes follow the study shown and the view's size until a splitter is dragged by hand.
  bool m_panesSizedByHand = false;
};

}  // namespace fl::gui
