// What the Live tab's metric curves are drawn over: optimisation steps (what RunView keeps),
// epochs, tokens seen, or wall time since the run's first metric point. The views keep steps;
// a curve's x is converted as it is handed to the dashboard, so switching the axis never touches
// the data and a live append is converted as the rest of its curve was.
//
//   std::string why;
//   if (auto x = RunXAxis::of(XAxis::Epoch, experiment.get(), view, &why))
//     dashboard->setMetric(id, key, x->of(series), series.values);
//
// Qt-free.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/gui/run_view.h"

namespace fl {
class Experiment;
}

namespace fl::gui {

enum class XAxis { Step, Epoch, Tokens, WallTime };

inline constexpr XAxis kXAxes[] = {XAxis::Step, XAxis::Epoch, XAxis::Tokens, XAxis::WallTime};

// "step", "epoch", "tokens", "wall": how the window's settings name an axis.
std::string xAxisName(XAxis axis);
std::optional<XAxis> parseXAxis(const std::string& name);
// The axis' label on the plots: "step", "epoch", "tokens seen", "wall time (s)".
std::string xAxisLabel(XAxis axis);

// One run's conversion from its metric points to x on one axis.
class RunXAxis {
 public:
  // Nullopt when the run's experiment (may be null: not in this build) cannot give the axis for
  // the run's config; then `why` says why, in words for a tooltip.
  static std::optional<RunXAxis> of(XAxis axis, const Experiment* experiment, const RunView& run,
                                    std::string* why = nullptr);

  XAxis axis() const { return m_axis; }
  // The x of the series' points from index `from` on.
  std::vector<double> of(const MetricSeries& series, size_t from = 0) const;

 private:
  RunXAxis(XAxis axis, double perStep, double wallOrigin)
      : m_axis(axis), m_perStep(perStep), m_wallOrigin(wallOrigin) {}

  XAxis m_axis;
  double m_perStep;     // x per step: 1, 1 / steps per epoch, tokens per step
  double m_wallOrigin;  // wall time: the run's first metric point's wall seconds
};

}  // namespace fl::gui
