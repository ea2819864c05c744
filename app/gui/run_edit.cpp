#include "app/gui/run_edit.h"

#include <algorithm>

#include "core/store/run_store.h"

namespace fl::gui {

namespace {

// A tag in any case, as the store holds one: retyped "keep me" for "Keep Me" had removed it.
bool holds(const std::vector<std::string>& list, const std::string& item) {
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& held) { return store::sameTag(held, item); });
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

std::string sharedValue(const std::vector<std::string>& values) {
  if (values.empty()) return "";
  for (const auto& v : values)
    if (v != values.front()) return "";
  return values.front();
}

std::vector<std::string> sharedTags(const std::vector<std::vector<std::string>>& tagsOfRuns) {
  if (tagsOfRuns.empty()) return {};
  std::vector<std::string> shared;
  for (const auto& tag : tagsOfRuns.front()) {
    bool everywhere = true;
    for (const auto& tags : tagsOfRuns) everywhere = everywhere && holds(tags, tag);
    if (everywhere && !holds(shared, tag)) shared.push_back(tag);
  }
  return shared;
}

std::vector<std::string> parseTagList(const std::string& text) {
  std::vector<std::string> tags;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string tag = trimmed(text.substr(start, comma - start));
    if (!tag.empty() && !holds(tags, tag)) tags.push_back(tag);
    start = comma + 1;
  }
  return tags;
}

TagEdit tagEdit(const std::vector<std::string>& shown, const std::vector<std::string>& typed) {
  TagEdit edit;
  for (const auto& t : typed)
    if (!holds(shown, t)) edit.added.push_back(t);
  for (const auto& t : shown)
    if (!holds(typed, t)) edit.removed.push_back(t);
  return edit;
}

}  // namespace fl::gui
