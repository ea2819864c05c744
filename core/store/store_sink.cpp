#include "core/store/store_sink.h"

#include <algorithm>
#include <filesystem>

#include "core/store/run_store.h"

namespace fl::store {

namespace {

// Events after which the batch is written at once rather than within the flush interval.
bool endsABatch(const Event& event) {
  if (auto* p = std::get_if<ProgressEvent>(&event)) return p->evaluated;
  return std::holds_alternative<StatusEvent>(event) ||
         std::holds_alternative<CheckpointEvent>(event);
}

// The terminal status among `events`, if the run's end is one of them.
const StatusEvent* terminalStatus(const std::vector<Event>& events) {
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if (auto* s = std::get_if<StatusEvent>(&*it); s && isTerminal(s->status)) return s;
  return nullptr;
}

// After the last batch failed: one small write that tells the truth about the run, where the
// batch (thousands of rows) could not. A finished run is not recorded finished (its final
// metrics are lost) but interrupted, which `resume` continues from its last stored checkpoint;
// a failed or cancelled one keeps its status, its message saying what was lost.
StoreSinkFailure recordLoss(std::optional<RunStore>& store, const std::string& path, int64_t runId,
                            const std::vector<Event>& lost, const std::string& error) {
  StoreSinkFailure failure;
  failure.error = error;
  failure.unwritten = describeEvents(lost);
  const StatusEvent* end = terminalStatus(lost);
  const RunStatus status =
      end && end->status != RunStatus::Finished ? end->status : RunStatus::Interrupted;
  std::string message = end && end->status == RunStatus::Finished
                            ? "training finished, but the store could not take its last writes"
                            : (end && !end->message.empty() ? end->message + "; " : std::string()) +
                                  "the store could not take its last writes";
  message += " (" + error + "); not written: " + failure.unwritten;
  // A checkpoint whose row was in the lost batch is named nowhere (the store's next open would
  // delete it as stray): deleted now, it gives a full disk back the room for the write below.
  for (const auto& event : lost)
    if (auto* c = std::get_if<CheckpointEvent>(&event); c && !c->removed) {
      std::error_code ec;
      std::filesystem::remove(c->path, ec);
    }
  try {
    if (!store) store.emplace(path, /*readOnly=*/false, /*busyTimeoutMs=*/5000, false);
    try {
      store->finishRun(runId, status, message);
    } catch (const StoreError&) {
      // The log the write appends to is what filled up: once its frames are in the main file
      // the next write reuses the log from its start instead of growing it.
      store->database().exec("PRAGMA wal_checkpoint(TRUNCATE)");
      store->finishRun(runId, status, message);
    }
    failure.recorded = status;
    failure.recordedMessage = message;
  } catch (const std::exception&) {
    // The row stays `running` under this process: whoever opens the store after it ends
    // marks the run interrupted.
  }
  return failure;
}

}  // namespace

std::string describeEvents(const std::vector<Event>& events) {
  std::vector<std::string> parts;
  if (const StatusEvent* end = terminalStatus(events))
    parts.push_back("its final status (" + toString(end->status) + ")");
  int64_t metrics = 0, snapshots = 0, firstStep = -1, lastStep = -1, progressStep = -1;
  std::vector<int64_t> checkpoints;
  for (const auto& event : events) {
    if (auto* m = std::get_if<MetricEvent>(&event)) {
      ++metrics;
      firstStep = firstStep < 0 ? m->step : std::min(firstStep, m->step);
      lastStep = std::max(lastStep, m->step);
    } else if (auto* sn = std::get_if<SnapshotEvent>(&event)) {
      if (sn->requestId == 0) ++snapshots;
    } else if (auto* c = std::get_if<CheckpointEvent>(&event)) {
      if (!c->removed) checkpoints.push_back(c->step);
    } else if (auto* p = std::get_if<ProgressEvent>(&event)) {
      progressStep = std::max(progressStep, p->step);
    }
  }
  if (metrics > 0)
    parts.push_back(std::to_string(metrics) + " metric point" + (metrics == 1 ? "" : "s") +
                    " (steps " + std::to_string(firstStep) + "-" + std::to_string(lastStep) + ")");
  if (snapshots > 0)
    parts.push_back(std::to_string(snapshots) + " snapshot" + (snapshots == 1 ? "" : "s"));
  for (int64_t step : checkpoints)
    parts.push_back("the checkpoint at step " + std::to_string(step));
  if (progressStep >= 0) parts.push_back("its progress to step " + std::to_string(progressStep));
  if (parts.empty()) return std::to_string(events.size()) + " events";
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

StoreSink::StoreSink(std::string storePath, int64_t runId, std::chrono::milliseconds flushInterval)
    : m_path(std::move(storePath)), m_runId(runId), m_flushInterval(flushInterval) {
  m_writer = std::thread([this] { writerLoop(); });
}

StoreSink::~StoreSink() { close(); }

void StoreSink::onEvent(const Event& event) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_pending.push_back(event);
    wake = endsABatch(event);
    m_flushNow = m_flushNow || wake;
  }
  if (wake) m_wake.notify_one();
}

void StoreSink::close() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_closing && !m_writer.joinable()) return;
    m_closing = true;
  }
  m_wake.notify_one();
  if (m_writer.joinable()) m_writer.join();
}

std::optional<std::string> StoreSink::error() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_error;
}

std::optional<StoreSinkFailure> StoreSink::failure() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_failure;
}

void StoreSink::writerLoop() {
  std::optional<RunStore> store;
  std::vector<Event> batch;
  bool closing = false;
  while (!closing) {
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_wake.wait_for(lock, m_flushInterval, [this] { return m_flushNow || m_closing; });
      m_flushNow = false;
      closing = m_closing;
      batch.insert(batch.end(), std::make_move_iterator(m_pending.begin()),
                   std::make_move_iterator(m_pending.end()));
      m_pending.clear();
    }
    if (batch.empty()) continue;
    try {
      // The process that made this sink opened (and vetted) the store already: no second
      // full read of every page on the writer thread.
      if (!store)
        store.emplace(m_path, /*readOnly=*/false, /*busyTimeoutMs=*/5000, /*checkPages=*/false);
      store->writeEvents(m_runId, batch);
      m_written += static_cast<int64_t>(batch.size());
      batch.clear();
      std::lock_guard<std::mutex> lock(m_mutex);
      m_error.reset();
    } catch (const std::exception& e) {
      // Keep the batch: the next flush retries it (a lock held by another writer passes).
      // At close there is no next flush: the batch is lost, and the run's row must say so.
      std::optional<StoreSinkFailure> failure;
      if (closing) failure = recordLoss(store, m_path, m_runId, batch, e.what());
      std::lock_guard<std::mutex> lock(m_mutex);
      m_error = e.what();
      m_failure = std::move(failure);
    }
  }
}

}  // namespace fl::store
