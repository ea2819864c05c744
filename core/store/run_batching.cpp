#include "core/store/run_batching.h"

#include <algorithm>
#include <vector>

namespace fl::store {

namespace {

std::vector<int> batchSizes(const nlohmann::json& build) {
  std::vector<int> sizes;
  if (build.is_object() && build.contains(kBatchSizesKey) && build[kBatchSizesKey].is_array())
    for (const auto& s : build[kBatchSizesKey])
      if (s.is_number_integer() && s.get<int>() >= 1) sizes.push_back(s.get<int>());
  return sizes;
}

}  // namespace

nlohmann::json withBatchSize(nlohmann::json build, int size) {
  if (!build.is_object()) build = nlohmann::json::object();
  std::vector<int> sizes = batchSizes(build);
  if (std::find(sizes.begin(), sizes.end(), size) == sizes.end()) sizes.push_back(size);
  std::sort(sizes.begin(), sizes.end());
  build[kBatchSizesKey] = sizes;
  return build;
}

std::string describeBatching(const nlohmann::json& build) {
  const std::vector<int> sizes = batchSizes(build);
  std::string text;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const std::string way =
        sizes[i] == 1 ? "alone" : "in a batched group of " + std::to_string(sizes[i]) + " runs";
    text += sizes.size() == 1 ? way : (i == 0 ? "partly " : ", partly ") + way;
  }
  return text;
}

std::string batchingLabel(const nlohmann::json& build) {
  std::string text;
  for (int size : batchSizes(build))
    text += (text.empty() ? "" : ", ") +
            (size == 1 ? std::string("alone") : "batched x" + std::to_string(size));
  return text;
}

}  // namespace fl::store
