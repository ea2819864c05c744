// Which file a path holds, by its content: a paper's numbers are for one corpus
// (TinyShakespeare), wherever a researcher's copy of it lies and whatever it is called, so a
// run is compared with them when its file is that corpus, byte for byte, and never when it is
// another text.
//
//   fileDigest("/data/tiny.txt")  // "86c4e6aa..." (16 hex digits), nullopt if it cannot be read
#pragma once

#include <optional>
#include <string>

namespace fl {

// The FNV-1a digest of the file's bytes, as store::stableHash writes one. Remembered by path,
// size and modification time: the window asks it of every run it lists.
std::optional<std::string> fileDigest(const std::string& path);

}  // namespace fl
