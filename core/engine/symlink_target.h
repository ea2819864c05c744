// The file a path names once its symbolic links are followed: what a writer must replace, and
// beside which SQLite keeps a store's -wal. Written through the link, a file rename replaced
// the link itself (`runs export --out link.json` left the link's target unwritten), and a
// store's checks looked for its -wal beside the link.
//
//   symlinkTarget("out/link.json")  // "out/../real/target.json" for a link to ../real/...
#pragma once

#include <string>

namespace fl {

// `path` with each symbolic link it names followed to its target (a relative target read from
// the link's folder), up to 40 links as the kernel does; `path` itself where it is no link, or
// where what it names is no regular file (/dev/stdout, a pipe: written through as given). The
// folders along the way are left as they are.
std::string symlinkTarget(const std::string& path);

}  // namespace fl
