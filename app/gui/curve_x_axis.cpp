#include "app/gui/curve_x_axis.h"

#include <exception>

#include "core/engine/experiment.h"

namespace fl::gui {

namespace {

// Each axis' short name (kept in the settings) and the words its plots' axes say.
struct XAxisWords {
  XAxis axis;
  const char* name;
  const char* label;
};
constexpr XAxisWords kWords[] = {{XAxis::Step, "step", "step"},
                                 {XAxis::Epoch, "epoch", "epoch"},
                                 {XAxis::Tokens, "tokens", "tokens seen"},
                                 {XAxis::WallTime, "wall", "wall time (s)"}};

const XAxisWords& wordsOf(XAxis axis) {
  for (const auto& words : kWords)
    if (words.axis == axis) return words;
  return kWords[0];
}

}  // namespace

std::string xAxisName(XAxis axis) { return wordsOf(axis).name; }

std::optional<XAxis> parseXAxis(const std::string& name) {
  for (XAxis axis : kXAxes)
    if (xAxisName(axis) == name) return axis;
  return std::nullopt;
}

std::string xAxisLabel(XAxis axis) { return wordsOf(axis).label; }

std::optional<RunXAxis> RunXAxis::of(XAxis axis, const Experiment* experiment, const RunView& run,
                                     std::string* why) {
  auto refuse = [&](std::string reason) -> std::optional<RunXAxis> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  // Every metric point carries the Runner's wall seconds, which a resumed run continues from
  // its last stored point: the time it was stopped is not counted.
  if (axis == XAxis::Step) return RunXAxis(axis, 1, 0);
  if (axis == XAxis::WallTime) return RunXAxis(axis, 1, run.firstMetricWall());
  if (!experiment) return refuse(run.experiment() + " is not an experiment of this build");
  const bool epoch = axis == XAxis::Epoch;
  std::optional<double> perStep;
  try {
    if (epoch) {
      if (auto steps = experiment->stepsPerEpoch(run.config()); steps && *steps > 0)
        perStep = 1 / *steps;
    } else {
      perStep = experiment->tokensPerStep(run.config());
    }
  } catch (const std::exception&) {
    // A config stored by an older version may lack a key the count needs.
    return refuse("run " + std::to_string(run.id()) + "'s config lacks what " + experiment->name() +
                  " needs to count " + (epoch ? "its epochs" : "its tokens"));
  }
  if (!perStep)
    return refuse(epoch ? experiment->name() +
                              " has no epochs: its batches are not passes over a fixed data set"
                        : experiment->name() + "'s model reads no tokens");
  return RunXAxis(axis, *perStep, 0);
}

std::vector<double> RunXAxis::of(const MetricSeries& series, size_t from) const {
  std::vector<double> x;
  if (m_axis == XAxis::WallTime) {
    for (size_t i = from; i < series.walls.size(); ++i) x.push_back(series.walls[i] - m_wallOrigin);
    return x;
  }
  for (size_t i = from; i < series.steps.size(); ++i) x.push_back(series.steps[i] * m_perStep);
  return x;
}

}  // namespace fl::gui
