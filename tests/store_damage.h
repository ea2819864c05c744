// Damages a run store file the way a disk or a crash can, for the store suites.
#pragma once

#include <QtGlobal>

#include <filesystem>
#include <fstream>
#include <string>

namespace fl::testing {

// Overwrites four pages in the middle of the file (not its header, not its end) with garbage:
// the file keeps its size, so only reading the pages shows the damage.
inline void corruptMiddlePages(const std::string& path) {
  const auto pageSize = 4096;
  const auto pages = static_cast<long>(std::filesystem::file_size(path) / pageSize);
  if (pages < 8) qFatal("%s has too few pages (%ld) to corrupt the middle", path.c_str(), pages);
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp((pages / 2 - 2) * pageSize);
  const std::string garbage(4 * pageSize, '\x5a');
  f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
}

}  // namespace fl::testing
