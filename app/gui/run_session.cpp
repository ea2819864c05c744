#include "app/gui/run_session.h"

#include "core/store/store_sink.h"

namespace fl::gui {

RunSession::RunSession(std::shared_ptr<const Experiment> experiment, nlohmann::json config,
                       std::string storePath, int64_t runId, RunnerOptions options)
    : m_experiment(std::move(experiment)),
      m_config(std::move(config)),
      m_storePath(std::move(storePath)),
      m_runId(runId),
      m_options(std::move(options)) {
  m_options.checkpointDir = m_storePath + ".files/run-" + std::to_string(m_runId);
}

RunSession::~RunSession() {
  if (m_runner) {
    m_runner->cancel();
    m_runner->join();
  }
  // No close() while training: it would make the GUI thread wait for the writer. The sink
  // writes a terminal status at once; here, at the end, whatever is left is flushed.
  if (m_storeSink) m_storeSink->close();
}

void RunSession::start() {
  if (m_runner) return;
  m_storeSink = std::make_unique<store::StoreSink>(m_storePath, m_runId);
  m_sinks = std::make_unique<FanOutSink>(std::vector<EventSink*>{m_storeSink.get(), &m_queue});
  m_runner = std::make_unique<Runner>(m_experiment, m_config, *m_sinks, m_options);
  m_runner->start();
}

void RunSession::cancel() {
  if (m_runner) m_runner->cancel();
}

bool RunSession::finished() const { return !m_runner || m_runner->isDone(); }

int64_t RunSession::requestProbe(const std::map<std::string, double>& inputs) {
  return m_runner ? m_runner->requestProbe(inputs) : 0;
}

}  // namespace fl::gui
