#include "core/engine/loss_divergence.h"

#include <cmath>
#include <sstream>

namespace fl {

void LossDivergence::step(double loss) {
  if (!m_first && std::isfinite(loss)) m_first = loss;
}

void LossDivergence::logged(double meanLoss) {
  if (std::isfinite(meanLoss)) m_last = meanLoss;
}

bool LossDivergence::diverged() const {
  // A first loss of 0 (or below) gives no scale to compare with.
  return m_first && m_last && *m_first > 0 && *m_last > kFactor * *m_first;
}

std::optional<Snapshot> LossDivergence::verdict() const {
  if (!diverged()) return std::nullopt;
  const double ratio = *m_last / *m_first;
  std::ostringstream detail;
  detail.precision(3);
  detail << "train/loss ended at " << *m_last << ", " << ratio << " times the first step's "
         << *m_first << " (flagged above " << kFactor << "x): the training diverged";
  Snapshot s;
  s.name = "train/divergence";
  s.shape = {1};
  s.data = {static_cast<float>(ratio)};
  s.axes = {{"", "", {}}};
  s.valueLabel = "last logged loss / first step's loss";
  s.meta = {{"verdict", "DIVERGED"}, {"ok", false}, {"detail", detail.str()}};
  return s;
}

}  // namespace fl
