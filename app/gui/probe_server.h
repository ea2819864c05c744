// ProbeServer: answers the interactive probe for a run that is not training, from its last
// checkpoint: a Runner that loads the checkpoint on its own thread and only serves probe
// requests (RunnerOptions::serveProbesOnly). Nothing it does is recorded in the store.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/event_queue.h"
#include "core/engine/experiment.h"

namespace fl {
class Runner;
}

namespace fl::gui {

class ProbeServer {
 public:
  ProbeServer(std::shared_ptr<const Experiment> experiment, const nlohmann::json& config,
              const std::string& checkpointPath, int64_t checkpointStep, int64_t runId);
  ~ProbeServer();

  int64_t runId() const { return m_runId; }
  void request(const std::map<std::string, double>& inputs);
  // The probe answers so far, and the reason it stopped if it failed (e.g. a missing file).
  std::vector<SnapshotEvent> takeAnswers(std::string* failure);

 private:
  int64_t m_runId;
  EventQueue m_queue;
  std::unique_ptr<Runner> m_runner;
};

}  // namespace fl::gui
