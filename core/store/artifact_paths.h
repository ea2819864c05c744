// Where a run store keeps the files of its runs (checkpoints): <db>.files/run-<id>/, one folder
// per run, their paths stored relative to the store's folder with the store's file name in them
// ("kill.db.files/run-14/step-37500.pt").
#pragma once

#include <string>

namespace fl::store {

inline constexpr const char* kFilesSuffix = ".files";
inline constexpr const char* kRunFolderPrefix = "run-";

// The file a path stored in the store at `storePath` names. A store copied or moved together
// with its folder ("backup.db" beside "backup.db.files") finds its files in its own folder: it
// read the original's, and a resumed run deleted the original's checkpoints as superseded. A
// store copied alone still reads the original's; where neither is there, the missing file is
// named where the store keeps its own.
std::string resolveStoredArtifact(const std::string& storePath, const std::string& stored);

// Whether `file` is inside the folder of files of the store at `storePath`: the only files the
// store may delete (never a copy's original's).
bool isInsideFilesOf(const std::string& storePath, const std::string& file);

}  // namespace fl::store
