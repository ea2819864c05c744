// A resume whose checkpoint the trial cannot load (a damaged file, one of another shape, a read
// error) fails with kCheckpointNotLoaded before its message. A study's next claim of such a
// run resumes it from the checkpoint before that one, or trains it again from step 0 without
// one: resuming from the same file would fail the same way. A run that failed any other way (a
// full disk, out of memory, a diverged loss) resumes from its newest checkpoint, as
// `run --resume` does.
//
//   loadForResume([&] { trial->loadCheckpoint(path); });   // in the runners
//   if (failedLoadingCheckpoint(run.message)) ...          // in a study's claim
#pragma once

#include <functional>
#include <string>

namespace fl {

inline constexpr const char* kCheckpointNotLoaded = "its checkpoint could not be loaded: ";

// Runs `load`; its error, out of memory and ResumeRefused apart (said as such by the runners),
// is thrown again as a std::runtime_error whose message starts with kCheckpointNotLoaded.
void loadForResume(const std::function<void()>& load);

bool failedLoadingCheckpoint(const std::string& message);

}  // namespace fl
