// Items as a sentence names them: "a", "a and b", "a, b and c". The exports say which files
// they wrote this way, in the window's status bar and on the CLI's stderr alike.
#pragma once

#include <string>
#include <vector>

namespace fl {

inline std::string spokenList(const std::vector<std::string>& items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i)
    text += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return text;
}

}  // namespace fl
