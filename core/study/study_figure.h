// StudyFigure: what a paper-style figure of a study shows, as plain numbers: a grid of panels
// (one row per value of the panel axis, one column per metric), in each a mean line per group
// with a band over seeds, the baselines (the study's settings without the x axis, e.g. the
// linear and GMM heads beside the Fourier head's N sweep) as dashed horizontal lines with their
// bands, and the paper's reference points. widgets/study_figure_plot draws it on screen and into
// SVG, PNG or PDF; this file decides what is drawn, so it can be tested without a screen.
#pragma once

#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/engine/panel_spec.h"
#include "core/engine/study_spec.h"
#include "core/study/study_aggregate.h"

namespace fl::study {

struct FigureLine {
  std::string label;
  std::vector<double> x;  // sorted; empty for a baseline (one value, drawn across the panel)
  std::vector<double> mean;
  std::vector<double> lower;  // the band; NaN where it is undefined (one seed)
  std::vector<double> upper;
  std::vector<int> n;
  // Its place among all the study's lines (or baselines), whatever --where leaves out: a line
  // keeps its colour in every figure of the study (rope was orange, then blue once
  // --where dropped "none").
  int colorRank = 0;
};

struct FigurePoint {
  std::string label;
  std::string line;  // the label of the line it belongs to ("" when none): drawn in its colour
  double x = 0;
  double y = 0;
  std::optional<double> spread;  // drawn as an error bar
  int colorRank = 0;             // its line's (see FigureLine)
};

struct FigurePanel {
  std::string title;
  std::string xTitle;
  std::string yTitle;
  std::string metric;
  std::vector<FigureLine> lines;
  std::vector<FigureLine> baselines;
  std::vector<FigurePoint> references;
  std::vector<std::string> xCategories;  // tick labels when the x axis is not numeric
  bool logX = false;
  // The least and greatest values the metric takes (a KL: 0 and +inf).
  double yFloor = -std::numeric_limits<double>::infinity();
  double yCeiling = std::numeric_limits<double>::infinity();
};

struct StudyFigure {
  std::string title;
  std::string bandDescription;  // for the caption: "band: mean ± 0.67 std over seeds ..."
  // The paper's points' legend entry, their bars on the band's scale: "paper (mean ± 0.67 std)".
  std::string referencesLegend = "paper (mean ± std)";
  // departureNote's sentence where the study departs from the settings its figures are
  // declared with: said under the figure, whose paper points are then there to read, not to
  // compare (a shortened study's figure, pasted alone, read as a failed reproduction).
  std::string departure;
  // paperPointsNote of the drawn settings: whether the paper's points beside them are compared.
  std::string pointsNote;
  int rows = 1;
  int cols = 1;
  std::vector<FigurePanel> panels;  // row-major: rows x cols

  int seriesCount() const;     // lines + baselines + reference sets, over all panels
  bool hasReferences() const;  // any panel draws published points
  // What the figure says under it of `departure` ("" where it departs in nothing), with the
  // paper's points, where it draws them beside departing settings, said to be there to read,
  // not compared.
  std::string departureCaption() const;
};

// What the paper's points beside these settings are (markDepartures has marked them): "" where
// every setting is the paper's (a study of fewer datasets still compares the ones it has),
// else that they are drawn to read, not compared, beside all of them or the departing ones.
std::string paperPointsNote(const std::vector<AggregateCell>& cells);

// Why there is no figure: the layout asks for what the study does not have (an axis, the x
// axis, a metric), or no finished run has a metric asked for, which a study still training
// may only lack for now.
class FigureError : public std::invalid_argument {
 public:
  enum class Kind { Layout, NoFinishedRun };
  FigureError(Kind kind, const std::string& what) : std::invalid_argument(what), m_kind(kind) {}
  Kind kind() const { return m_kind; }

 private:
  Kind m_kind;
};

// Gives each of the layout's metrics without an axis title the one its experiment's panel
// draws it under, with the key: "KL (test/kl)", "perplexity (val/ppl@256)", and the bounds
// that panel declares (a KL is never below 0). A metric no panel draws keeps its key and no floor.
void addMetricAxes(FigureLayout& layout, const std::vector<PanelSpec>& panels);

// Throws FigureError when the layout names an axis the study does not have, or no finished run
// has a metric. `axisOrder` is figureAxesOf the study: kArmAxis reads each cell's arm.
StudyFigure buildStudyFigure(const std::vector<AggregateCell>& cells, const FigureLayout& layout,
                             const StudyReferences* references,
                             const std::vector<std::string>& axisOrder,
                             const std::string& studyTitle);

}  // namespace fl::study
