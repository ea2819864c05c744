// How the plots group the runs they show, as W&B groups a sweep: a group of two or more shown
// runs is drawn as its members' mean with a band of one standard deviation either side, in its
// first member's colour; a run alone in its group is drawn as itself. Runs group by their study,
// by their setting (the same config but for the seed: the seeds of one setting averaged), or by
// the value of any config key.
//
//   auto groups = groupRuns(runs, GroupBy::parse("key:head"));  // {"head=linear", {3, 5}}, ...
//   MeanBand band = meanBand({{&steps3, &loss3}, {&steps5, &loss5}});
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace fl::gui {

struct GroupBy {
  enum class Kind { None, Study, Setting, Key };
  Kind kind = Kind::None;
  std::string key;  // Kind::Key: the config key whose value makes the group

  // "none", "study", "setting" or "key:<key>": what the window's settings keep. An unknown
  // word reads as none (a setting of an older build groups nothing rather than failing).
  std::string name() const;
  static GroupBy parse(const std::string& name);
  // What the Runs dock's choice says: "No grouping", "Study", "Setting (seeds)", "head".
  std::string label() const;
  bool operator==(const GroupBy&) const = default;
};

// A run as grouping reads it: its config and the first study that holds it, if any.
struct GroupedRun {
  int64_t id = 0;
  const nlohmann::json* config = nullptr;
  std::optional<std::pair<int64_t, std::string>> study;  // id and name
  // Runs of two experiments are never one setting: grouped by a key or a setting, each
  // experiment's runs form their own groups.
  std::string experiment;
};

struct RunGroup {
  std::string label;  // "head=fourier N=12", "study 3 table1", "head=linear"
  std::vector<int64_t> members;
};

// The groups of `runs`, in the order of their first members; members keep the order of `runs`.
// GroupBy::None gives each run a group of its own (labelled by nothing). A run without a study
// is alone when grouping by study; one lacking `key` groups with the others lacking it ("key
// unset"). Setting labels name the keys, other than the seed, that differ among `runs`.
std::vector<RunGroup> groupRuns(const std::vector<GroupedRun>& runs, const GroupBy& by);

// How a config value reads in a label: strings bare, numbers and the rest as JSON.
std::string configValueText(const nlohmann::json& value);

// Members' curves, each its x (ascending) and values. At every x where any member has a finite
// value: the mean over the members whose curve spans that x, each at its value there or, between
// two of its points, linearly interpolated, and their sample standard deviation (0 with one), as
// low = mean - sd, high = mean + sd, the lowest member's value, and how many members the mean is
// over. Members sampled at other x (the system figures, each second of wall time) would
// otherwise be averaged over another subset at each x: a sawtooth between the members' values.
struct MeanBand {
  std::vector<double> x, mean, low, high, lowest;
  std::vector<int> count;
  int members = 0;  // the curves with a finite point
};
using CurveRef = std::pair<const std::vector<double>*, const std::vector<double>*>;
MeanBand meanBand(const std::vector<CurveRef>& curves);

// The band where every member with a point counts (its x within each member's span); the whole
// band where no x has them all. Over wall time the members end at different seconds: past the
// quickest one's end the mean is over fewer members and bends towards the slowest one's values,
// a hook that reads as the group's loss jumping.
MeanBand commonSpan(MeanBand band);

}  // namespace fl::gui
