#include "core/store/write_trouble.h"

#include <algorithm>

namespace fl::store {

std::string nameRuns(const std::vector<int64_t>& runs) {
  constexpr size_t kNamed = 3;
  if (runs.size() == 1) return "run " + std::to_string(runs.front());
  std::string text = "runs ";
  const size_t named = runs.size() <= kNamed + 1 ? runs.size() : kNamed;
  for (size_t i = 0; i < named; ++i) {
    if (i > 0) text += i + 1 == named && named == runs.size() ? " and " : ", ";
    text += std::to_string(runs[i]);
  }
  if (named < runs.size()) text += " and " + std::to_string(runs.size() - named) + " more";
  return text;
}

std::optional<std::string> WriteTroubleWatch::update(const WriteTrouble& now,
                                                     const std::vector<int64_t>& lost) {
  const bool wasFailing = !m_last.runs.empty();
  const bool failing = !now.runs.empty();
  std::optional<std::string> said;
  if (failing && (!wasFailing || now.error != m_last.error))
    said = "not taking the writes of " + nameRuns(now.runs) + " (" + now.error +
           "); they wait in memory and are tried again every second: nothing is lost if the "
           "store takes them before " +
           (now.runs.size() == 1 ? "the run ends" : "those runs end");
  else if (!failing && wasFailing) {
    std::vector<int64_t> recovered;
    for (int64_t run : m_last.runs)
      if (std::find(lost.begin(), lost.end(), run) == lost.end()) recovered.push_back(run);
    if (!recovered.empty())
      said = "taking the writes of " + nameRuns(recovered) + " again: nothing of " +
             (recovered.size() == 1 ? "it" : "them") + " was lost";
  }
  m_last = now;
  return said;
}

}  // namespace fl::store
