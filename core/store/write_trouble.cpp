#include "core/store/write_trouble.h"

#include <algorithm>
#include <chrono>

#include "core/engine/run_name.h"
#include "core/store/store_writer.h"

namespace fl::store {

std::string describeWriteTrouble(const WriteTrouble& trouble) {
  const auto patience =
      std::chrono::duration_cast<std::chrono::seconds>(StoreWriter::closingPatience()).count();
  const std::string within = patience >= 120 && patience % 60 == 0
                                 ? std::to_string(patience / 60) + " minutes"
                                 : std::to_string(patience) + " s";
  const bool one = trouble.runs.size() == 1;
  return "not taking the writes of " + nameRunIds(trouble.runs) + " (" + trouble.error +
         "); they wait in memory and are tried again: nothing is lost if the store takes them "
         "before " +
         (one ? "the run ends" : "those runs end") +
         " (or, while another process holds its lock, within " + within + " of " +
         (one ? "its end" : "their ends") + ")";
}

std::optional<std::string> WriteTroubleWatch::update(const WriteTrouble& now,
                                                     const std::vector<int64_t>& lost) {
  const bool wasFailing = !m_last.runs.empty();
  const bool failing = !now.runs.empty();
  std::optional<std::string> said;
  if (failing && (!wasFailing || now.error != m_last.error))
    said = describeWriteTrouble(now);
  else if (!failing && wasFailing) {
    std::vector<int64_t> recovered;
    for (int64_t run : m_last.runs)
      if (std::find(lost.begin(), lost.end(), run) == lost.end()) recovered.push_back(run);
    if (!recovered.empty())
      said = "taking the writes of " + nameRunIds(recovered) + " again: nothing of " +
             (recovered.size() == 1 ? "it" : "them") + " was lost";
  }
  m_last = now;
  return said;
}

}  // namespace fl::store
