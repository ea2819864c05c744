// CheckpointKeeper: the keep policy for a run's checkpoints, "the last and the best". Told of
// each new checkpoint (with its score on the experiment's selection metric, when there is
// one), it answers which earlier files are no longer needed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/experiment.h"

namespace fl {

class CheckpointKeeper {
 public:
  explicit CheckpointKeeper(std::optional<SelectionMetric> metric) : m_metric(std::move(metric)) {}

  // Records a checkpoint; returns the paths of those it supersedes (to delete).
  std::vector<std::string> add(int64_t step, const std::string& path, std::optional<double> score);

  std::optional<std::string> lastPath() const;
  std::optional<std::string> bestPath() const;

 private:
  struct Entry {
    int64_t step = 0;
    std::string path;
    std::optional<double> score;
  };
  bool better(const Entry& a, const Entry& b) const;  // a ranks above b

  std::optional<SelectionMetric> m_metric;
  std::optional<Entry> m_last;
  std::optional<Entry> m_best;
};

}  // namespace fl
