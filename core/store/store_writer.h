// StoreWriter: the one thread and SQLite connection through which this process writes every
// live run's events into one store. Each run's StoreSink (store_sink.h) is a channel of it: its
// events queue there, and the writer commits all channels' queues in one transaction at least
// every flush interval, and at once after an evaluation, a status change or a checkpoint.
//
// One writer per store, not one per run: a study trains hundreds of runs at once (the frequency
// study's 264), and a thread and connection each meant hundreds of transactions a second
// contending for SQLite's one write lock (bench/bench_group_runner.cpp measures both).
//
// Faults stay a run's own. When the write of all runs together fails because another process
// holds the store's lock past the busy timeout, every batch waits for the next flush; on any
// other failure the runs are written alone, and a run whose write alone fails is written alone
// from then on, so one run's bad batch holds back no other. A channel being closed (its run has
// ended) keeps trying while another process's lock refuses it, for closingPatience(): its batch
// holds the run's final status and metrics and its checkpoints' rows, and a lock of a few
// seconds at a run's end cost all of them. Any other failure (a full disk), or the patience
// spent, loses the batch, and its run's row says so (StoreSinkFailure).
//
//   auto writer = StoreWriter::of(storePath, std::chrono::milliseconds(1000));
//   auto channel = writer->open(runId);
//   writer->add(*channel, event);             // any thread
//   auto lost = writer->close(*channel);      // writes the rest; what could not be written
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/engine/events.h"

namespace fl::store {

// What a run's last write lost when its channel closed.
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

// How the run's row reads after such a failure: "is recorded interrupted", or that it still reads
// running (the stand-in's write failed too) and when that changes.
std::string recordedStatusText(const StoreSinkFailure& failure);

// "its final status (finished), 40 metric points (steps 10-40), ..." for a batch of events;
// without the final status when `withStatus` is false (it was written after all); "" when
// nothing else is left.
std::string describeEvents(const std::vector<Event>& events, bool withStatus = true);

class StoreWriter {
 public:
  struct Channel;

  // The process's writer for `storePath` at this flush interval, made on first use and ended
  // when its last user lets it go.
  static std::shared_ptr<StoreWriter> of(const std::string& storePath,
                                         std::chrono::milliseconds flushInterval);
  StoreWriter(std::string storePath, std::chrono::milliseconds flushInterval);
  ~StoreWriter();
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  std::shared_ptr<Channel> open(int64_t runId);
  // Queues the event; never waits for the disk. Once the channel is closing, its run has ended
  // and an event is dropped (a runner stuck in a step left behind, see
  // RunScheduler::abandonStuckRuns).
  void add(Channel& channel, const Event& event);
  // Writes what the channel still holds and ends it. Idempotent; beginClose() asks for it
  // without waiting, so many channels close in one flush.
  void beginClose(Channel& channel);
  void close(Channel& channel);
  // Whether the channel closed within `timeout` (after beginClose): a caller says meanwhile why
  // it waits (error()).
  bool waitClosed(Channel& channel, std::chrono::milliseconds timeout);
  // A closing channel waiting out another process's lock gives up at its next try: its closer
  // was signalled and has no time left (a cluster's SIGKILL follows SIGTERM within seconds).
  void stopWaiting(Channel& channel);

  // How long closing channels' writes are tried again while another process holds the store's
  // lock: two minutes from the first such refusal, for all of them together
  // (FOURIERLAB_STORE_PATIENCE_MS sets it).
  static std::chrono::milliseconds closingPatience();

  // The channel's last write error (cleared by the next success), and after close() what the
  // store did not take (nullopt when everything was written).
  std::optional<std::string> error(const Channel& channel) const;
  std::optional<StoreSinkFailure> failure(const Channel& channel) const;
  int64_t eventsWritten(const Channel& channel) const;

 private:
  void writerLoop();

  std::string m_path;
  std::chrono::milliseconds m_flushInterval;

  mutable std::mutex m_mutex;
  std::condition_variable m_wake;    // the writer: something to write now, or stop
  std::condition_variable m_closed;  // a close(): its channel's last write is done
  std::vector<std::shared_ptr<Channel>> m_channels;
  bool m_flushNow = false;
  bool m_stopping = false;
  std::thread m_writer;  // last: started once the rest exists
};

}  // namespace fl::store
