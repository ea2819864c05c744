// StoreSink: records one run's events in the run store, on its own writer thread, in batched
// transactions. onEvent only queues (a step never waits for the disk); the writer commits a
// batch at least every second, and at once after every evaluation, status change and
// checkpoint, so a crash loses at most the last second of training-loss points.
//
//   StoreSink sink(storePath, runId);
//   FanOutSink fanOut({&sink, &console});
//   Runner runner(experiment, config, fanOut, options);
//   ... runner.join(); sink.close();
//   if (sink.error()) report(*sink.error());
//
// Threading: onEvent from any thread; close() and error() from the owning thread. A write that
// fails (e.g. the database locked past the busy timeout) keeps its batch and retries at the
// next flush; the last failure is kept in error().
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/engine/events.h"

namespace fl::store {

class StoreSink : public EventSink {
 public:
  StoreSink(std::string storePath, int64_t runId,
            std::chrono::milliseconds flushInterval = std::chrono::milliseconds(1000));
  ~StoreSink() override;

  void onEvent(const Event& event) override;
  // Writes everything still queued and stops the writer. Idempotent.
  void close();

  std::optional<std::string> error() const;
  int64_t eventsWritten() const { return m_written.load(); }

 private:
  void writerLoop();

  std::string m_path;
  int64_t m_runId;
  std::chrono::milliseconds m_flushInterval;

  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  std::vector<Event> m_pending;
  bool m_flushNow = false;
  bool m_closing = false;
  std::optional<std::string> m_error;
  std::atomic<int64_t> m_written{0};
  std::thread m_writer;
};

}  // namespace fl::store
