// A resume whose checkpoint the trial cannot load (a damaged file, one of another shape) fails
// with kCheckpointNotLoaded before its message. A study's next claim trains such a run again
// from step 0, since resuming it would load the same file and fail again; a run that failed
// any other way (a full disk, out of memory, a diverged loss) resumes from its newest
// checkpoint, as `run --resume` does. Such runs had all been trained again from step 0.
//
//   loadForResume([&] { trial->loadCheckpoint(path); });   // in the runners
//   if (failedLoadingCheckpoint(run.message)) restart();    // in a study's claim
#pragma once

#include <functional>
#include <string>

namespace fl {

inline constexpr const char* kCheckpointNotLoaded = "its checkpoint could not be loaded: ";

// Runs `load`; its error, out of memory and ResumeRefused apart (said as such by the runners),
// is thrown again as
// a std::runtime_error whose message starts with kCheckpointNotLoaded.
void loadForResume(const std::function<void()>& load);

bool failedLoadingCheckpoint(const std::string& message);

}  // namespace fl
