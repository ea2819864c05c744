// Where a cluster task stands: waiting in the cluster's queue, training, or ended (done: every
// run of it finished; failed; cancelled: stopped by a signal, its runs resumable). A task's own
// report says done, failed or cancelled at its end; `sweep status` folds cancelled into failed
// with the word as its detail, since either way the task's runs still want training.
#pragma once

#include <optional>
#include <string>

namespace fl::cluster {

enum class TaskStage { Queued, Running, Done, Failed, Cancelled };

// "queued", "running", "done", "failed", "cancelled": the words of the task reports and of
// `sweep status`.
std::string toString(TaskStage stage);
std::optional<TaskStage> taskStageFromString(const std::string& text);

}  // namespace fl::cluster
