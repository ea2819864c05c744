#include "core/store/store_sink.h"

namespace fl::store {

StoreSink::StoreSink(std::string storePath, int64_t runId, std::chrono::milliseconds flushInterval)
    : m_writer(StoreWriter::of(storePath, flushInterval)), m_channel(m_writer->open(runId)) {}

StoreSink::~StoreSink() { close(); }

void StoreSink::onEvent(const Event& event) { m_writer->add(*m_channel, event); }

void StoreSink::beginClose() { m_writer->beginClose(*m_channel); }

void StoreSink::close() { m_writer->close(*m_channel); }

void StoreSink::stopWaiting() { m_writer->stopWaiting(*m_channel); }

bool StoreSink::waitClosed(std::chrono::milliseconds timeout) {
  return m_writer->waitClosed(*m_channel, timeout);
}

std::optional<std::string> StoreSink::error() const { return m_writer->error(*m_channel); }

std::optional<StoreSinkFailure> StoreSink::failure() const { return m_writer->failure(*m_channel); }

int64_t StoreSink::eventsWritten() const { return m_writer->eventsWritten(*m_channel); }

}  // namespace fl::store
