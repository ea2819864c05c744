#include "core/store/store_writer.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "core/store/lost_batch.h"
#include "core/store/run_store.h"

namespace fl::store {

struct StoreWriter::Channel {
  explicit Channel(int64_t id) : runId(id) {}
  const int64_t runId;

  // Guarded by the writer's mutex.
  std::vector<Event> pending;
  bool closing = false;
  bool closed = false;
  std::optional<std::string> error;
  std::optional<StoreSinkFailure> failure;
  int64_t written = 0;

  // The writer thread's own: taken from `pending`, not committed yet (kept across a failed
  // write, for the next flush); and whether its last write alone failed (it is then written
  // alone, not in the transaction of all runs, until a write succeeds).
  std::vector<Event> batch;
  bool alone = false;
  // Guarded by the writer's mutex: its closer no longer waits out a lock (stopWaiting).
  bool impatient = false;
};

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

// After a run's last batch failed: small writes that tell the truth about the run, where the
// batch (thousands of rows) could not. A finished run is not recorded finished (its final
// metrics are lost) but interrupted, which `resume` continues from its newest checkpoint; a
// failed or cancelled one keeps its status, its message saying what was lost. The newest
// checkpoint of the batch is recorded too when the store takes it.
StoreSinkFailure recordLoss(std::optional<RunStore>& store, const std::string& path, int64_t runId,
                            const std::vector<Event>& lost, const std::string& error) {
  StoreSinkFailure failure;
  failure.error = error;
  failure.unwritten = describeEvents(lost);
  const StatusEvent* end = terminalStatus(lost);
  // A failed or cancelled run's status is what the write below records: once it is written,
  // the status is no longer among what was lost (a finished run's is: it reads interrupted).
  const bool keepsStatus = end && end->status != RunStatus::Finished;
  const RunStatus status = keepsStatus ? end->status : RunStatus::Interrupted;
  const CheckpointEvent* kept = resumableCheckpointOf(lost);
  // What is lost once the status and the kept checkpoint (with the progress up to it) are
  // written.
  std::vector<Event> lostOnceRecorded;
  for (const auto& event : lost) {
    if (kept && std::get_if<CheckpointEvent>(&event) == kept) continue;
    if (auto* p = std::get_if<ProgressEvent>(&event); kept && p && p->step <= kept->step) continue;
    lostOnceRecorded.push_back(event);
  }
  std::string message = end && end->status == RunStatus::Finished
                            ? "training finished, but the store could not take its last writes"
                            : (end && !end->message.empty() ? end->message + "; " : std::string()) +
                                  "the store could not take its last writes";
  message += " (" + error + ")";
  auto notWritten = [&](const std::vector<Event>& events) {
    const std::string text = describeEvents(events, /*withStatus=*/!keepsStatus);
    return text.empty() ? std::string() : "; not written: " + text;
  };
  // A checkpoint whose row was in the lost batch is named nowhere (the store's next open would
  // delete it as stray): deleted now, it gives a full disk back the room for the writes below.
  // The newest one stays until its own write is tried.
  auto removeFile = [](const CheckpointEvent& c) {
    std::error_code ec;
    std::filesystem::remove(c.path, ec);
  };
  for (const auto& event : lost)
    if (auto* c = std::get_if<CheckpointEvent>(&event); c && !c->removed && c != kept)
      removeFile(*c);
  bool checkpointKept = false;
  try {
    if (!store) store.emplace(path, /*readOnly=*/false, /*busyTimeoutMs=*/5000, false);
    auto write = [&](const std::function<void()>& change) {
      try {
        change();
      } catch (const StoreError&) {
        // The log the write appends to is what filled up: once its frames are in the main
        // file the next write reuses the log from its start instead of growing it.
        store->database().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        change();
      }
    };
    if (kept) {
      try {
        // With the progress up to it, so the run reads where it can go on from.
        std::vector<Event> keep{*kept};
        for (auto it = lost.rbegin(); it != lost.rend(); ++it)
          if (auto* progress = std::get_if<ProgressEvent>(&*it); progress) {
            ProgressEvent upToKept = *progress;
            upToKept.step = std::min(progress->step, kept->step);
            keep.push_back(upToKept);
            break;
          }
        write([&] { store->writeEvents({{runId, &keep}}); });
        checkpointKept = true;
      } catch (const std::exception&) {
        removeFile(*kept);
      }
    }
    const std::string said =
        message + notWritten(checkpointKept ? lostOnceRecorded : lost) +
        (checkpointKept ? "; kept: the checkpoint at step " + std::to_string(kept->step) +
                              ", which a resume continues from"
                        : std::string());
    write([&] { store->finishRun(runId, status, said); });
    failure.recorded = status;
    failure.recordedMessage = said;
    failure.unwritten = describeEvents(checkpointKept ? lostOnceRecorded : lost,
                                       /*withStatus=*/!keepsStatus);
  } catch (const std::exception&) {
    // The row stays `running` under this process: whoever opens the store after it ends
    // marks the run interrupted. A checkpoint the store took stays: its row names it.
    if (kept && !checkpointKept) removeFile(*kept);
  }
  return failure;
}

// One channel in one flush: what the writer took from it, and how its write went.
struct FlushItem {
  std::shared_ptr<StoreWriter::Channel> channel;
  bool closing = false;
  bool stopping = false;   // the writer ends: no more tries for anyone
  bool impatient = false;  // its closer asked for no wait (StoreWriter::stopWaiting)
  bool waits = false;      // closing, but its write is tried again at the next flush
  int64_t written = 0;
  std::optional<std::string> error;
  std::optional<StoreSinkFailure> failure;
};

// How one write went: committed, or why not.
struct WriteResult {
  bool ok = true;
  bool busy = false;  // another process held the store's lock past the busy timeout
  std::string error;
};

WriteResult tryWrite(std::optional<RunStore>& store, const std::string& path,
                     const std::vector<RunStore::RunEvents>& runs) {
  try {
    // The process that made the sinks opened (and vetted) the store already: no second full
    // read of every page on the writer thread.
    if (!store) store.emplace(path, /*readOnly=*/false, /*busyTimeoutMs=*/5000, false);
    store->writeEvents(runs);
    return {};
  } catch (const std::exception& e) {
    const auto* storeError = dynamic_cast<const StoreError*>(&e);
    WriteResult failed{false, storeError && storeError->isBusy(), e.what()};
    // A connection that failed for another reason than a lock may be left unusable (a rollback
    // that failed, an I/O error): the next write opens a fresh one.
    if (!failed.busy) store.reset();
    return failed;
  }
}

// Writes the items' batches (outside the writer's lock): together in one transaction, all but
// the runs whose own writes failed before, which are written alone. When the write together
// fails, a lock another process holds makes every run wait for the next flush; another failure
// may be one run's own, so the runs are written alone until one fails as the write together did
// (then it is the store's fault, and the rest wait too). A run whose write alone failed is
// written alone from then on, so it holds back no other. A closing channel's write that another
// process's lock refuses is tried again at each flush for closingPatience(); any other failure,
// or the patience spent, loses its batch, and the loss is recorded.
// `lockedSince`: when a closing run's write first met the lock, for every closing run alike (the
// runs of a study close one after another: each waiting its own two minutes, a long lock held a
// study's end for two minutes a run); cleared by any write the store takes.
void writeItems(std::vector<FlushItem>& items, std::optional<RunStore>& store,
                const std::string& path,
                std::optional<std::chrono::steady_clock::time_point>& lockedSince) {
  auto committed = [](FlushItem& item) {
    item.written = static_cast<int64_t>(item.channel->batch.size());
    item.channel->batch.clear();
    item.channel->alone = false;
    item.error.reset();
  };
  std::vector<RunStore::RunEvents> together;
  for (auto& item : items)
    if (!item.channel->batch.empty() && !item.channel->alone)
      together.push_back({item.channel->runId, &item.channel->batch});
  WriteResult shared;
  if (!together.empty()) shared = tryWrite(store, path, together);
  if (!together.empty() && shared.ok) lockedSince.reset();
  bool storeFault = shared.busy;
  const auto now = std::chrono::steady_clock::now();
  for (auto& item : items) {
    StoreWriter::Channel& channel = *item.channel;
    if (channel.batch.empty()) continue;
    const bool wasTogether = !channel.alone;
    if (wasTogether && shared.ok) {
      committed(item);
      continue;
    }
    // Why its write failed: the write together's, or (below) its own; nullopt where it was
    // written alone before and waits now for a store that refused another run's write.
    std::optional<WriteResult> failed;
    if (wasTogether || shared.busy) failed = shared;
    const bool triedAlone = wasTogether && together.size() == 1;
    // A closing run has its write alone, unless the store's lock refused them all: alone it
    // would wait out the same lock once more.
    if (!triedAlone && (!storeFault || (item.closing && !shared.busy))) {
      const WriteResult own = tryWrite(store, path, {{channel.runId, &channel.batch}});
      if (own.ok) {
        lockedSince.reset();
        committed(item);
        continue;
      }
      failed = own;
      channel.alone = true;
      storeFault = storeFault || own.busy || (!shared.ok && own.error == shared.error);
    }
    if (!failed) continue;  // a waiting non-closing run: its last error stands
    item.error = failed->error;
    if (!item.closing) continue;
    // A run that has ended waits a while for another process's lock to pass: its last batch
    // holds its final status and metrics, and its checkpoints' rows. A full disk is not waited
    // for: it seldom clears by itself, and the loss it records keeps a resumable checkpoint.
    if (failed->busy && !item.stopping && !item.impatient) {
      if (!lockedSince) lockedSince = now;
      if (now - *lockedSince < StoreWriter::closingPatience()) {
        item.waits = true;
        continue;
      }
    }
    item.failure = recordLoss(store, path, channel.runId, channel.batch, *item.error);
    channel.batch.clear();
  }
}

}  // namespace

std::string recordedStatusText(const StoreSinkFailure& failure) {
  return failure.recorded ? "is recorded " + toString(*failure.recorded)
                          : "still reads running in the store (that write failed too; the next "
                            "command that writes the store marks it interrupted)";
}

std::string describeEvents(const std::vector<Event>& events, bool withStatus) {
  std::vector<std::string> parts;
  if (const StatusEvent* end = withStatus ? terminalStatus(events) : nullptr)
    // Why a run failed is said with it: where its status was lost, this line is all there is.
    parts.push_back("its final status (" + toString(end->status) +
                    (end->status == RunStatus::Failed && !end->message.empty() ? ": " + end->message
                                                                               : std::string()) +
                    ")");
  int64_t metrics = 0, snapshots = 0, firstStep = -1, lastStep = -1, progressStep = -1;
  std::set<int64_t> checkpoints;  // those not removed again within the batch (kept ones)
  for (const auto& event : events) {
    if (auto* m = std::get_if<MetricEvent>(&event)) {
      ++metrics;
      firstStep = firstStep < 0 ? m->step : std::min(firstStep, m->step);
      lastStep = std::max(lastStep, m->step);
    } else if (auto* sn = std::get_if<SnapshotEvent>(&event)) {
      if (sn->requestId == 0) ++snapshots;
    } else if (auto* c = std::get_if<CheckpointEvent>(&event)) {
      if (c->removed)
        checkpoints.erase(c->step);
      else
        checkpoints.insert(c->step);
    } else if (auto* p = std::get_if<ProgressEvent>(&event)) {
      progressStep = std::max(progressStep, p->step);
    }
  }
  if (metrics > 0)
    parts.push_back(std::to_string(metrics) + " metric point" + (metrics == 1 ? "" : "s") +
                    (firstStep == lastStep ? " (step " + std::to_string(lastStep) + ")"
                                           : " (steps " + std::to_string(firstStep) + "-" +
                                                 std::to_string(lastStep) + ")"));
  if (snapshots > 0)
    parts.push_back(std::to_string(snapshots) + " snapshot" + (snapshots == 1 ? "" : "s"));
  // A long lock lasts many checkpoints: their count and span, not a line each.
  if (checkpoints.size() == 1)
    parts.push_back("the checkpoint at step " + std::to_string(*checkpoints.begin()));
  else if (checkpoints.size() == 2)
    parts.push_back("the checkpoints at steps " + std::to_string(*checkpoints.begin()) + " and " +
                    std::to_string(*checkpoints.rbegin()));
  else if (!checkpoints.empty())
    parts.push_back(std::to_string(checkpoints.size()) + " checkpoints (steps " +
                    std::to_string(*checkpoints.begin()) + "-" +
                    std::to_string(*checkpoints.rbegin()) + ")");
  if (progressStep >= 0) parts.push_back("its progress to step " + std::to_string(progressStep));
  if (parts.empty()) {
    // Only log lines (and, when left out, the final status): counted, or nothing at all.
    const auto others =
        static_cast<int64_t>(events.size()) - (!withStatus && terminalStatus(events) ? 1 : 0);
    return others <= 0 ? std::string()
                       : std::to_string(others) + (others == 1 ? " event" : " events");
  }
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

std::chrono::milliseconds StoreWriter::closingPatience() {
  if (const char* env = std::getenv("FOURIERLAB_STORE_PATIENCE_MS"))
    return std::chrono::milliseconds(std::atoll(env));
  return std::chrono::minutes(2);
}

std::shared_ptr<StoreWriter> StoreWriter::of(const std::string& storePath,
                                             std::chrono::milliseconds flushInterval) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, int64_t>, std::weak_ptr<StoreWriter>> writers;
  std::lock_guard<std::mutex> lock(mutex);
  std::erase_if(writers, [](const auto& entry) { return entry.second.expired(); });
  auto& slot = writers[{storePath, static_cast<int64_t>(flushInterval.count())}];
  if (auto writer = slot.lock()) return writer;
  auto writer = std::make_shared<StoreWriter>(storePath, flushInterval);
  slot = writer;
  return writer;
}

StoreWriter::StoreWriter(std::string storePath, std::chrono::milliseconds flushInterval)
    : m_path(std::move(storePath)),
      m_flushInterval(flushInterval),
      m_writer([this] { writerLoop(); }) {}

StoreWriter::~StoreWriter() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stopping = true;
  }
  m_wake.notify_one();
  m_writer.join();
}

std::shared_ptr<StoreWriter::Channel> StoreWriter::open(int64_t runId) {
  auto channel = std::make_shared<Channel>(runId);
  std::lock_guard<std::mutex> lock(m_mutex);
  m_channels.push_back(channel);
  return channel;
}

void StoreWriter::add(Channel& channel, const Event& event) {
  Event copy = event;  // outside the lock: snapshots carry their data
  const bool now = endsABatch(copy);
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (channel.closing) return;  // its run has ended: nothing more is written
    channel.pending.push_back(std::move(copy));
    m_flushNow = m_flushNow || now;
  }
  if (now) m_wake.notify_one();
}

void StoreWriter::beginClose(Channel& channel) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (channel.closed) return;
  channel.closing = true;
  m_flushNow = true;
  m_wake.notify_one();
}

void StoreWriter::close(Channel& channel) {
  beginClose(channel);
  std::unique_lock<std::mutex> lock(m_mutex);
  m_closed.wait(lock, [&] { return channel.closed; });
}

void StoreWriter::stopWaiting(Channel& channel) {
  std::lock_guard<std::mutex> lock(m_mutex);
  channel.impatient = true;
  m_flushNow = true;
  m_wake.notify_one();
}

bool StoreWriter::waitClosed(Channel& channel, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(m_mutex);
  return m_closed.wait_for(lock, timeout, [&] { return channel.closed; });
}

std::optional<std::string> StoreWriter::error(const Channel& channel) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return channel.error;
}

std::optional<StoreSinkFailure> StoreWriter::failure(const Channel& channel) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return channel.failure;
}

int64_t StoreWriter::eventsWritten(const Channel& channel) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return channel.written;
}

void StoreWriter::writerLoop() {
  std::optional<RunStore> store;
  std::optional<std::chrono::steady_clock::time_point> lockedSince;
  std::unique_lock<std::mutex> lock(m_mutex);
  while (true) {
    m_wake.wait_for(lock, m_flushInterval, [this] { return m_flushNow || m_stopping; });
    m_flushNow = false;
    const bool stopping = m_stopping;
    std::vector<FlushItem> items;
    for (auto& channel : m_channels) {
      auto& pending = channel->pending;
      channel->batch.insert(channel->batch.end(), std::make_move_iterator(pending.begin()),
                            std::make_move_iterator(pending.end()));
      pending.clear();
      const bool closing = channel->closing || stopping;
      if (channel->batch.empty() && !closing) continue;
      FlushItem item;
      item.channel = channel;
      item.closing = closing;
      item.stopping = stopping;
      item.impatient = channel->impatient;
      items.push_back(std::move(item));
    }
    lock.unlock();
    writeItems(items, store, m_path, lockedSince);
    lock.lock();
    bool anyClosed = false;
    for (auto& item : items) {
      Channel& channel = *item.channel;
      channel.written += item.written;
      if (item.error)
        channel.error = item.error;
      else if (item.written > 0)
        channel.error.reset();
      if (item.closing && !item.waits) {
        channel.failure = std::move(item.failure);
        channel.closed = true;
        anyClosed = true;
      }
    }
    if (anyClosed) {
      m_channels.erase(std::remove_if(m_channels.begin(), m_channels.end(),
                                      [](const auto& c) { return c->closed; }),
                       m_channels.end());
      m_closed.notify_all();
    }
    if (stopping) return;
  }
}

}  // namespace fl::store
