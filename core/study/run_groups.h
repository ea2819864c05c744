// Batched studies: which of a study's cells train together as one group. Cells whose
// configs the experiment finds compatible (Experiment::groupDifference empty) are dealt into
// groups of near-equal size, each trained by one GroupRunner on one worker of the thread budget.
//
//   BatchMode mode = parseBatchMode("auto");           // --batch auto | off | K
//   auto groups = formRunGroups(cells, configOf, experiment, *mode, cores);
//   // groups[g]: cells in study order; a group of one trains as a plain run
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/experiment.h"

namespace fl::study {

struct BatchMode {
  // 0: auto (groups of at most kAutoGroupSize, split further while workers would idle; on an
  // accelerator, every compatible set one group);
  // 1: off (every run alone); K > 1: groups of at most K.
  int maxGroupSize = 1;

  // Past ~8 members a group gains nothing per model-step (bench_fourier_head: 16.4 us at K = 8,
  // 16.8 at K = 32), so auto keeps groups at most this large and splits them over the cores.
  static constexpr int kAutoGroupSize = 32;
  bool isAuto() const { return maxGroupSize == 0; }
  bool isOff() const { return maxGroupSize == 1; }
  std::string describe() const;  // "auto", "off", "at most 8 runs per group"
  std::string argument() const;  // "auto", "off", "8": what parseBatchMode reads back
};

// "auto", "off" or a positive integer K (1 = off); nullopt and `error` set otherwise.
std::optional<BatchMode> parseBatchMode(const std::string& text, std::string* error = nullptr);

// The mode a study trains with: the one it first trained with (`recorded`, as
// BatchMode::argument() wrote it) unless `asked` was named (`askedExplicitly`: it overrides),
// else `asked` (the default). A study trains one way throughout unless told otherwise: batched
// products add in another order, and its seeds are compared.
BatchMode studyBatchMode(const std::string& recorded, const BatchMode& asked, bool askedExplicitly);

// Groups `cells` (kept in their order within each group; groups ordered by their first cell).
// `workers`: how many groups can train at once (auto splits groups until there are that many,
// when it can).
std::vector<std::vector<int64_t>> formRunGroups(
    const std::vector<int64_t>& cells, const std::function<nlohmann::json(int64_t)>& configOf,
    const Experiment& experiment, BatchMode mode, int workers);

}  // namespace fl::study
