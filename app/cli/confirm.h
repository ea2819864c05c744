// Asks before a deletion nothing brings back, as the window's Delete… does: on a terminal the
// question waits for y/N; a script (its input not a terminal), or --yes, goes ahead at once.
#pragma once

#include <string>

namespace fl::cli {

// Whether to go ahead: true with `yes` or when stdin is not a terminal, else the answer to
// "`question` [y/N] " on stderr (y, Y or yes). "nothing deleted" is said on a no.
bool confirmedDeletion(const std::string& question, bool yes);

}  // namespace fl::cli
