// A run store given by path (--db) is created where its folder exists, never with a new folder:
// a mistyped path (/nonexistent/dir/x.db) silently made the folders and trained into a store the
// researcher would never look in. The default store's folder is made as before.
#pragma once

#include <string>

namespace fl::store {

// Why a store cannot be created at the given `path` ("" when its folder exists): "its folder
// /nonexistent/dir does not exist (a mistyped path? nothing was created; make it with mkdir -p
// first)".
std::string missingStoreFolder(const std::string& path);

}  // namespace fl::store
