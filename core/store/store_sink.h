// StoreSink: records one run's events in the run store. onEvent only queues (a step never waits
// for the disk); the process's writer for the store (store_writer.h: one thread and connection
// for every live run) commits them at least every second, and at once after every evaluation,
// status change and checkpoint, so a crash loses at most the last second of training-loss
// points.
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
// closes is tried again while another process's lock refuses it, for
// StoreWriter::closingPatience(), and otherwise (a full disk) lost: failure() says what it held,
// and the run's row is given a status that `resume` continues from (the run's final status itself
// did not reach the store, and a run left `running` would claim a finish it never recorded).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/engine/events.h"
#include "core/store/store_writer.h"

namespace fl::store {

class StoreSink : public EventSink {
 public:
  StoreSink(std::string storePath, int64_t runId,
            std::chrono::milliseconds flushInterval = std::chrono::milliseconds(1000));
  ~StoreSink() override;

  void onEvent(const Event& event) override;
  // Writes everything queued and ends the run's channel. Idempotent; beginClose() asks for it
  // without waiting (many sinks closed at once share one flush).
  void beginClose();
  void close();
  bool waitClosed(std::chrono::milliseconds timeout);
  void stopWaiting();  // StoreWriter::stopWaiting

  std::optional<std::string> error() const;
  // After close(): what the store did not take, or nullopt when every event was written.
  std::optional<StoreSinkFailure> failure() const;
  int64_t eventsWritten() const;

 private:
  std::shared_ptr<StoreWriter> m_writer;
  std::shared_ptr<StoreWriter::Channel> m_channel;
};

}  // namespace fl::store
