// TrainingSession: what the window's RunQueue holds of one run while it trains, alone
// (RunSession: its own Runner) or as a member of a batched group (group_session.h: one
// GroupRunner for several runs). Either way the run is an ordinary run: its own StoreSink, its
// own events for its RunView, cancelled and probed on its own.
//
// Threading: GUI thread only; nothing here waits on training or on disk, except the
// destructor, which the queue runs on its closing thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/engine/events.h"

namespace fl::gui {

class TrainingSession {
 public:
  virtual ~TrainingSession() = default;  // cancels, waits for the run's end, flushes its store

  virtual void cancel() = 0;
  // The run has sent its last event (a terminal status), or never started.
  virtual bool finished() const = 0;
  virtual int threads() const = 0;
  // Queues a probe; its answer comes among the run's events. 0 when it cannot be asked.
  virtual int64_t requestProbe(const std::map<std::string, double>& inputs) = 0;
  virtual std::vector<Event> takeEvents() = 0;
  // What the thread budget counts as one worker: a run alone is its own, a group's members
  // share their group's, however many runs it trains.
  virtual const void* worker() const = 0;
};

}  // namespace fl::gui
