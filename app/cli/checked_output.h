// Standard output is a file like any other: a listing, a table or an export written to a full
// device (`> /dev/full`, a full disk behind a pipe) must not end with exit code 0. stdio
// buffers the text, so the error shows only when the buffer is flushed: withCheckedOutput runs
// the command, flushes, and turns a failed write into the store/file error exit code.
#pragma once

#include <functional>

namespace fl::cli {

// The command's exit code, or kExitStoreError (3) with the reason on stderr when anything it
// printed to stdout could not be written; a command that already failed keeps its own code.
// A reader that closed the pipe (`| head`) ends it silently with kExitReaderGone.
inline constexpr int kExitReaderGone = 141;
int withCheckedOutput(const std::function<int()>& command);

}  // namespace fl::cli
