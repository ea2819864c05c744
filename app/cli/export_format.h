// The format an export is written in: the one --format names, else the one its --out file's
// name says (.json or .csv), else CSV. `runs export 1 --out x.json` wrote CSV into x.json.
#pragma once

#include <string>

namespace fl::cli {

// The file name's extension in lower case (".json" of "X.JSON"): what a file is named as, in
// any case. X.JSON had been written as CSV, and a plot's p.SVG refused.
std::string lowercaseExtension(const std::string& path);

// Throws std::invalid_argument where --format and the file's name disagree
// ("--out x.json ends in .json but --format csv was given: give one of them").
std::string exportFormat(const std::string& givenFormat, const std::string& out);

}  // namespace fl::cli
