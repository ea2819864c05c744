#include "app/gui/probe_server.h"

#include "core/engine/runner.h"

namespace fl::gui {

ProbeServer::ProbeServer(std::shared_ptr<const Experiment> experiment, const nlohmann::json& config,
                         const std::string& checkpointPath, int64_t checkpointStep, int64_t runId)
    : m_runId(runId) {
  RunnerOptions options;
  options.resume = ResumePoint{checkpointPath, checkpointStep};
  options.serveProbesOnly = true;
  m_runner = std::make_unique<Runner>(std::move(experiment), config, m_queue, options);
  m_runner->start();
}

ProbeServer::~ProbeServer() {
  m_runner->cancel();
  m_runner->join();
}

void ProbeServer::request(const std::map<std::string, double>& inputs) {
  m_runner->requestProbe(inputs);
}

std::vector<SnapshotEvent> ProbeServer::takeAnswers(std::string* failure) {
  std::vector<SnapshotEvent> answers;
  for (auto& e : m_queue.takeAll()) {
    if (auto* s = std::get_if<SnapshotEvent>(&e); s && s->requestId != 0)
      answers.push_back(std::move(*s));
    if (auto* st = std::get_if<StatusEvent>(&e); st && st->status == RunStatus::Failed && failure)
      *failure = st->message;
  }
  return answers;
}

}  // namespace fl::gui
