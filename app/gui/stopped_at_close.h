// The runs a window stopped when it closed, kept per store between sessions. Closing with runs
// training cancels them to a checkpoint, and the next window on that store opened with an empty
// Runs dock and no word of them: they were found again only in History (under a filter kept
// from before, not at all). The next window shows them with their rows, whose menus resume them.
//
//   rememberStoppedAtClose(store.path(), {43, 44}, /*studyId=*/0);   // in closeEvent
//   const StoppedAtClose stopped = takeStoppedAtClose(store.path());  // at the next start
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <QString>

namespace fl::gui {

struct StoppedAtClose {
  std::vector<int64_t> runs;
  int64_t studyId = 0;  // the study they trained for, 0 when none
};

// Nothing is kept for empty `runs` (a close with nothing training forgets an older list).
void rememberStoppedAtClose(const std::string& storePath, const std::vector<int64_t>& runs,
                            int64_t studyId);
// What the last window on this store stopped as it closed; forgotten once read.
StoppedAtClose takeStoppedAtClose(const std::string& storePath);

// "Runs #43 and #44 were stopped when the window last closed; each kept a checkpoint: Resume
// is in each row's menu."
QString describeStoppedAtClose(const std::vector<int64_t>& runs, int64_t studyId);

}  // namespace fl::gui
