// The command a message tells the user to type next ("continue with `fourierlab-cli sweep resume
// 2`"), with the store it acted on unless that is the default one, so that the line copied as
// printed acts on the same store: `fourierlab-cli sweep resume 2 --db 'my runs/lab.db'`.
#pragma once

#include <string>

namespace fl::cli {

// "fourierlab-cli " + words, then " --db PATH" (quoted for a shell where it needs to be) when
// `dbPath` is not RunStore::defaultPath().
std::string nextCommand(const std::string& words, const std::string& dbPath);

}  // namespace fl::cli
