// CellStatus: a study cell's status, its run's status, or none (std::nullopt) while the cell
// has no run yet. Its text ("finished", ..., or "missing") is written only where the store's
// queries, the CLI's JSON and tables and the GUI's displays need words.
//
// Torch-free and header-only: the widgets colour their cells by it.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/engine/events.h"

namespace fl::study {

using CellStatus = std::optional<RunStatus>;

inline std::string toString(const CellStatus& status) {
  return status ? fl::toString(*status) : std::string("missing");
}

// Statuses in the order of their names: the order in which the tables, tooltips and JSON
// objects list their counts.
struct ByStatusName {
  bool operator()(const CellStatus& a, const CellStatus& b) const {
    return toString(a) < toString(b);
  }
};

// How many cells (or runs) have each status; a status no cell has is absent.
template <class Count>
using StatusCounts = std::map<CellStatus, Count, ByStatusName>;

template <class Count>
Count countOf(const StatusCounts<Count>& counts, const CellStatus& status) {
  auto it = counts.find(status);
  return it == counts.end() ? Count(0) : it->second;
}

// {"failed": 1, "finished": 3, "missing": 2}
template <class Count>
nlohmann::json countsJson(const StatusCounts<Count>& counts) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [status, n] : counts) out[toString(status)] = n;
  return out;
}

}  // namespace fl::study
