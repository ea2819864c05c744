#include "app/cli/export_format.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

namespace fl::cli {

std::string lowercaseExtension(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}

std::string exportFormat(const std::string& givenFormat, const std::string& out) {
  const std::string extension = lowercaseExtension(out);
  const std::string named = extension == ".json" ? "json" : extension == ".csv" ? "csv" : "";
  if (givenFormat.empty()) return named.empty() ? "csv" : named;
  if (!named.empty() && named != givenFormat)
    throw std::invalid_argument("--out " + out + " ends in " + extension + " but --format " +
                                givenFormat + " was given: give one of them");
  return givenFormat;
}

}  // namespace fl::cli
