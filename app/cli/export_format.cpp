#include "app/cli/export_format.h"

#include <filesystem>
#include <stdexcept>

namespace fl::cli {

std::string exportFormat(const std::string& givenFormat, const std::string& out) {
  const std::string extension = std::filesystem::path(out).extension().string();
  const std::string named = extension == ".json" ? "json" : extension == ".csv" ? "csv" : "";
  if (givenFormat.empty()) return named.empty() ? "csv" : named;
  if (!named.empty() && named != givenFormat)
    throw std::invalid_argument("--out " + out + " ends in " + extension + " but --format " +
                                givenFormat + " was given: give one of them");
  return givenFormat;
}

}  // namespace fl::cli
