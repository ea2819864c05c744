#include "experiments/char_lm/char_lm_checks.h"

#include <cmath>
#include <exception>
#include <string>

#include "core/nn/transformer/position_encoding.h"
#include "core/nn/transformer/rotary.h"
#include "core/text/char_corpus.h"

namespace fl::char_lm {

namespace {

std::string value(const nlohmann::json& config, const std::string& key) {
  const auto& v = config.at(key);
  return "'" + key + "'=" + (v.is_string() ? v.get<std::string>() : v.dump());
}

}  // namespace

std::vector<ConfigIssue> checkModelAndPosition(const nlohmann::json& config, bool clipFloor) {
  const int64_t dModel = config.at("d_model").get<int64_t>();
  const int64_t heads = config.at("heads").get<int64_t>();
  if (dModel % heads != 0)
    return {{"heads", value(config, "heads") + " does not divide " + value(config, "d_model") +
                          ": every head gets d_model / heads dimensions"}};
  const auto position = nn::parsePositionKind(config.at("position").get<std::string>());
  const bool rotary = position == nn::PositionKind::Rope || position == nn::PositionKind::Fope;
  if (!rotary) return {};
  const int64_t headDim = dModel / heads;
  if (headDim % 2 != 0)
    return {{"heads", value(config, "heads") + " gives a head size of " + std::to_string(headDim) +
                          " (" + value(config, "d_model") + "): " + value(config, "position") +
                          " rotates pairs of dimensions and needs an even head size"}};
  if (position != nn::PositionKind::Fope || !clipFloor) return {};
  const int64_t trainLength = config.at("train_len").get<int64_t>();
  const auto frequencies = nn::clipFloorFrequencies(
      nn::ropeFrequencies(headDim, config.at("rope_theta").get<double>()), trainLength);
  for (double w : frequencies)
    if (w > 0) return {};
  return {{"train_len", value(config, "train_len") +
                            " clips every frequency (all below the floor "
                            "2 pi / train_len = " +
                            std::to_string(nn::floorFrequency(trainLength)) +
                            " for a head size of " + std::to_string(headDim) +
                            "): position=fope needs one to keep; use a longer train_len or "
                            "clip_floor=off"}};
}

std::vector<ConfigIssue> checkCorpus(const nlohmann::json& config, int64_t longestWindow,
                                     const std::string& windowOrigin) {
  const std::string path = config.at("corpus").get<std::string>();
  int64_t characters = 0;
  std::string source;
  if (path.empty()) {
    characters = config.at("synthetic_chars").get<int64_t>();
    source = "the built-in text (" + value(config, "synthetic_chars") + ")";
  } else {
    try {
      characters = static_cast<int64_t>(text::loadTextFile(path).size());
    } catch (const std::exception& e) {
      return {{"corpus", e.what()}};
    }
    source = "corpus '" + path + "'";
    if (const std::string why = text::tooFewCharacters(source, static_cast<size_t>(characters));
        !why.empty())
      return {{"corpus", why}};
  }
  const int64_t validation = static_cast<int64_t>(static_cast<double>(characters) * 0.1);
  const int64_t training = characters - validation;
  const int64_t trainLength = config.at("train_len").get<int64_t>();
  std::vector<ConfigIssue> issues;
  if (training < trainLength + 1)
    issues.push_back({"train_len", value(config, "train_len") + " needs " +
                                       std::to_string(trainLength + 1) + " training characters; " +
                                       source + " has " + std::to_string(training) + " (90% of " +
                                       std::to_string(characters) + ")"});
  if (validation < longestWindow + 1)
    issues.push_back({"train_len", "evaluating windows of " + std::to_string(longestWindow) +
                                       " tokens (" + windowOrigin + ") needs " +
                                       std::to_string(longestWindow + 1) +
                                       " validation characters; " + source + " has " +
                                       std::to_string(validation) + " (10% of " +
                                       std::to_string(characters) + ")"});
  return issues;
}

}  // namespace fl::char_lm
