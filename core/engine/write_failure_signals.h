// SIGPIPE (a closed reader: `fourierlab-cli run ... | head`) and SIGXFSZ (a file reaching
// `ulimit -f`) kill a process at the write that meets them, silently, with the run left
// `interrupted` at whatever step it had reached. Ignored, that write fails instead (EPIPE,
// EFBIG), as a full disk's does, and what the lab already does with a failed write applies: the
// store's and the checkpoints' writes are retried or reported with the file named (exit 3), and
// output that could not be written is said at the end (exit 3), while training goes on.
#pragma once

namespace fl {

// Called first thing in main(); the dispositions survive the OpenMP re-exec.
void letWritesFailInsteadOfKilling();

}  // namespace fl
