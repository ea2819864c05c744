#include "core/engine/write_failure_signals.h"

#include <csignal>

namespace fl {

void letWritesFailInsteadOfKilling() {
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace fl
