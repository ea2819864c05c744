#include "core/cluster/task_stage.h"

#include <array>
#include <utility>

namespace fl::cluster {

namespace {

constexpr std::array<std::pair<TaskStage, const char*>, 5> kWords = {{
    {TaskStage::Queued, "queued"},
    {TaskStage::Running, "running"},
    {TaskStage::Done, "done"},
    {TaskStage::Failed, "failed"},
    {TaskStage::Cancelled, "cancelled"},
}};

}  // namespace

std::string toString(TaskStage stage) {
  for (const auto& [s, word] : kWords)
    if (s == stage) return word;
  return "failed";
}

std::optional<TaskStage> taskStageFromString(const std::string& text) {
  for (const auto& [s, word] : kWords)
    if (text == word) return s;
  return std::nullopt;
}

}  // namespace fl::cluster
