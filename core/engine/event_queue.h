// EventQueue: a thread-safe EventSink that buffers events for a consumer on another thread
// (the CLI's main loop, the GUI's ~30 Hz timer, the store's writer thread).
//
// Threading: push (onEvent) from any thread; takeAll/waitAndTakeAll from one consumer thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "core/engine/events.h"

namespace fl {

class EventQueue : public EventSink {
 public:
  void onEvent(const Event& event) override;

  // Moves out everything queued so far (possibly nothing).
  std::vector<Event> takeAll();

  // Waits up to `timeout` for at least one event, then moves out everything queued.
  std::vector<Event> waitAndTakeAll(std::chrono::milliseconds timeout);

 private:
  std::mutex m_mutex;
  std::condition_variable m_ready;
  std::vector<Event> m_events;
};

// Forwards each event to several sinks in order.
class FanOutSink : public EventSink {
 public:
  explicit FanOutSink(std::vector<EventSink*> sinks) : m_sinks(std::move(sinks)) {}
  void onEvent(const Event& event) override {
    for (auto* sink : m_sinks) sink->onEvent(event);
  }

 private:
  std::vector<EventSink*> m_sinks;
};

}  // namespace fl
