// Whether a run trained alone or in a batched group, as the store keeps it in the run's `build`
// facts: a study's runs of one shape train as one batch, whose products add in another order
// than a lone run's, so a run and its lone twin (same config and seed) can end far apart where
// training is on an edge. Said wherever a run's facts are (runs show and compare, the window's
// settings table), so two such runs are not read as a contradiction.
//
//   build = withBatchSize(build, 4);   // on each start: the sizes it trained in, each once
//   describeBatching(build)            // "in a batched group of 4 runs"
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace fl::store {

// The `build` key holding the group sizes a run trained in (1: alone), sorted, each once.
inline constexpr const char* kBatchSizesKey = "batch_sizes";

// `build` with `size` among its batch sizes (a build that is not an object becomes one).
nlohmann::json withBatchSize(nlohmann::json build, int size);

// "alone", "in a batched group of 4 runs", "partly alone, partly in a batched group of 4
// runs" (resumed another way); "" where the run does not record it (trained before it was).
std::string describeBatching(const nlohmann::json& build);

// The same in a table's cell: "alone", "batched x4", "alone, batched x4"; "" unrecorded.
std::string batchingLabel(const nlohmann::json& build);

}  // namespace fl::store
