// What History's Rename…, Note… and Tag… dialogs start with, and what a Tag… answer changes: a
// dialog shows what the selected runs hold, so OK without typing changes nothing, and a tag
// taken out of the list is removed.
#pragma once

#include <string>
#include <vector>

namespace fl::gui {

// The value every run holds; empty when they differ (or there are none).
std::string sharedValue(const std::vector<std::string>& values);

// The tags every run holds, in the first run's order.
std::vector<std::string> sharedTags(const std::vector<std::vector<std::string>>& tagsOfRuns);

// A comma-separated list as tags: each trimmed, blanks and repeats dropped.
std::vector<std::string> parseTagList(const std::string& text);

struct TagEdit {
  std::vector<std::string> added;    // typed, not shown
  std::vector<std::string> removed;  // shown, not typed
};

// From the tags a dialog showed to the ones typed back.
TagEdit tagEdit(const std::vector<std::string>& shown, const std::vector<std::string>& typed);

}  // namespace fl::gui
