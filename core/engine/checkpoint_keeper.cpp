#include "core/engine/checkpoint_keeper.h"

#include <cmath>

namespace fl {

bool CheckpointKeeper::better(const Entry& a, const Entry& b) const {
  if (!m_metric || !a.score || !std::isfinite(*a.score)) return false;
  if (!b.score || !std::isfinite(*b.score)) return true;
  return m_metric->lowerIsBetter ? *a.score < *b.score : *a.score > *b.score;
}

std::vector<std::string> CheckpointKeeper::add(int64_t step, const std::string& path,
                                               std::optional<double> score) {
  const Entry entry{step, path, score};
  std::vector<std::string> candidates;
  if (m_last) candidates.push_back(m_last->path);
  if (m_best) candidates.push_back(m_best->path);
  m_last = entry;
  if (m_metric && (!m_best || better(entry, *m_best))) m_best = entry;

  std::vector<std::string> removed;
  for (const auto& p : candidates) {
    const bool kept = p == m_last->path || (m_best && p == m_best->path);
    bool listed = false;
    for (const auto& r : removed) listed = listed || r == p;
    if (!kept && !listed) removed.push_back(p);
  }
  return removed;
}

std::optional<std::string> CheckpointKeeper::lastPath() const {
  return m_last ? std::optional<std::string>(m_last->path) : std::nullopt;
}

std::optional<std::string> CheckpointKeeper::bestPath() const {
  return m_best ? std::optional<std::string>(m_best->path) : std::nullopt;
}

}  // namespace fl
