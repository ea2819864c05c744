// Whether a transformer of some shape can train on a device at all, said before anything is
// allocated: a d_model of 8192 over 128 layers (every value within its range) is about 100
// billion parameters, and a run of it took the whole machine's memory until the kernel killed
// it. The bound is a floor: the blocks' weight matrices alone (attention 4 d^2, the MLP
// 2 x mlp_ratio x d^2 per layer), times 16 bytes (the float32 weight, its gradient and Adam's
// two moments), with no embedding, activation or workspace counted. A shape refused needs more
// than the device has; one accepted may still run out (then the run fails with a message and a
// checkpoint).
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/engine/config.h"

namespace fl::transformer_setup {

// The floor above, in bytes, for the config's d_model, layers and mlp_ratio.
uint64_t trainingMemoryFloor(const nlohmann::json& config);

// The memory of the device the config's `device` names (auto: the first CUDA device when there
// is one, else the host): 0 when unknown.
uint64_t deviceMemory(const nlohmann::json& config);

// An issue on d_model when the floor exceeds the device's memory, naming both.
std::optional<ConfigIssue> checkTrainingMemory(const nlohmann::json& config);

}  // namespace fl::transformer_setup
