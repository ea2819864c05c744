// StoreSink: records one run's events in the run store, on its own writer thread, in batched
// transactions. onEvent only queues (a step never waits for the disk); the writer commits a
// batch at least every second, and at once after every evaluation, status change and
// checkpoint, so a crash loses at most the last second of training-loss points.
//
//   StoreSink sink(storePath, runId);
//   FanOutSink fanOut({&sink, &console});
//   Runner runner(experiment, config, fanOut, options);
//   ... runner.join(); sink.close();
//   if (auto lost = sink.failure()) report(lost->unwritten, lost->error);
//
// Threading: onEvent from any thread; close(), error() and failure() from the owning thread. A
// write that fails (e.g. the database locked past the busy timeout) keeps its batch and retries
// at the next flush; the last failure is kept in error(). A batch still failing when the sink
// closes (a full disk) is lost: failure() says what it held, and the run's row is given a
// status that `resume` continues from (the run's final status itself did not reach the store,
// and a run left `running` would claim a finish it never recorded).
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

// What a sink's last write lost when it closed.
struct StoreSinkFailure {
  std::string error;  // the store's words: "/data/runs.db: database or disk is full"
  // What of the run the store does not hold: "its final status (finished), 40 metric points
  // (steps 10-40), the checkpoint at step 40".
  std::string unwritten;
  // The status the run's row was given in its place (a finished run: interrupted), and its
  // message; nullopt when that write failed too: the row still says `running`, and the next
  // process that opens the store marks it interrupted (its writer is gone).
  std::optional<RunStatus> recorded;
  std::string recordedMessage;
};

// "its final status (finished), 40 metric points (steps 10-40), ..." for a batch of events.
std::string describeEvents(const std::vector<Event>& events);

class StoreSink : public EventSink {
 public:
  StoreSink(std::string storePath, int64_t runId,
            std::chrono::milliseconds flushInterval = std::chrono::milliseconds(1000));
  ~StoreSink() override;

  void onEvent(const Event& event) override;
  // Writes everything still queued and stops the writer. Idempotent.
  void close();

  std::optional<std::string> error() const;
  // After close(): what the store did not take, or nullopt when every event was written.
  std::optional<StoreSinkFailure> failure() const;
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
  std::optional<StoreSinkFailure> m_failure;
  std::atomic<int64_t> m_written{0};
  std::thread m_writer;
};

}  // namespace fl::store
