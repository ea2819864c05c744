// ResumeRefused: a trial cannot continue a run from its checkpoint now, for a reason outside the
// checkpoint that can be put right (the run's corpus is not at its path as it was). The Runner
// then leaves the run resumable, interrupted with the reason, where any other error fails it:
// a refused resume changed the run's status to failed, though nothing of it was wrong.
//
//   if (!sameText) throw ResumeRefused("corpus 'x.txt' is not the text this run trained on ...");
#pragma once

#include <stdexcept>

namespace fl {

struct ResumeRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The start of the message of a run the Runner ends so: what the CLI and the window know it by,
// to put the run's record back as it was before the resume.
inline constexpr const char* kNotResumed = "not resumed: ";

}  // namespace fl
