#include "core/store/store_sink.h"

#include "core/store/run_store.h"

namespace fl::store {

namespace {

// Events after which the batch is written at once rather than within the flush interval.
bool endsABatch(const Event& event) {
  if (auto* p = std::get_if<ProgressEvent>(&event)) return p->evaluated;
  return std::holds_alternative<StatusEvent>(event) ||
         std::holds_alternative<CheckpointEvent>(event);
}

}  // namespace

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
      std::lock_guard<std::mutex> lock(m_mutex);
      m_error = e.what();
    }
  }
}

}  // namespace fl::store
