// The name a mistyped word was meant to be: "did you mean ...?" for commands and metrics.
#pragma once

#include <string>
#include <vector>

namespace fl {

// Letters to insert, delete or change to turn one word into the other.
size_t editDistance(const std::string& a, const std::string& b);

// The candidate fewest edits from `word`, when it is at most `most` away (a typo, not another
// word); the first such on a tie; empty when none is.
std::string closestName(const std::string& word, const std::vector<std::string>& candidates,
                        size_t most = 2);

}  // namespace fl
