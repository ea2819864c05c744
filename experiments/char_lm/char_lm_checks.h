// The checks a char-level language-model config needs before a run is created (FoPE and
// FourierQK call them from Experiment::checkConfig): what each key's range cannot see. Each
// issue names the keys and their values, e.g. "'heads'=128 gives a head size of 1 (d_model=128):
// position=rope rotates pairs of dimensions and needs an even head size".
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/config.h"

namespace fl::char_lm {

// heads divide d_model; a rotary position (rope, fope) needs an even head size; FoPE with its
// floor clipping (clipFloor) needs at least one frequency at or above 2 pi / train_len.
std::vector<ConfigIssue> checkModelAndPosition(const nlohmann::json& config, bool clipFloor);

// The corpus (or the built-in text of synthetic_chars characters) must be readable UTF-8 text
// of at least 100 characters whose 90/10 split (as lm::CharLmData makes it) holds train_len + 1
// training characters and longestWindow + 1 validation characters. Reads the whole file.
std::vector<ConfigIssue> checkCorpus(const nlohmann::json& config, int64_t longestWindow,
                                     const std::string& windowOrigin);

}  // namespace fl::char_lm
