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
  int64_t studyId = 0;  // the study every one of them trained for; 0 when none or several
};

// Nothing is kept, and an older list left, for empty `runs`: another window on the store that
// closes with nothing training must not wipe the list of one that stopped runs.
void rememberStoppedAtClose(const std::string& storePath, const std::vector<int64_t>& runs,
                            int64_t studyId);
// What the last window on this store stopped as it closed; forgotten once read.
StoppedAtClose takeStoppedAtClose(const std::string& storePath);

// "Runs #A and #B were stopped when the window last closed: Resume in each row's menu continues
// them"; with a study, its Resume study.
QString describeStoppedAtClose(const std::vector<int64_t>& runs, int64_t studyId);

// "Run #ID was interrupted: the process training it ended without finishing (a crash or a
// kill). Resume in its row's menu continues it from its last checkpoint": the runs a crashed
// window (or a killed CLI run) left, found when the next window opened the store; with a
// study, its Resume study.
QString describeInterruptedAtOpen(const std::vector<int64_t>& runs, int64_t studyId);

}  // namespace fl::gui
