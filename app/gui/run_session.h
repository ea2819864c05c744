// RunSession: one run training alone for the window (a TrainingSession): its Runner (training
// thread), its StoreSink (writer thread) and the queue between the Runner and the GUI thread,
// emptied by takeEvents() on the window's ~30 Hz tick. The GUI thread never waits on training or on
// disk. It keeps no run data: the events go to the run's RunView.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/training_session.h"
#include "core/engine/event_queue.h"
#include "core/engine/experiment.h"
#include "core/engine/runner.h"

namespace fl::store {
class StoreSink;
}

namespace fl::gui {

class RunSession : public TrainingSession {
 public:
  // `options.checkpointDir` is set here (the store's folder of the run).
  RunSession(std::shared_ptr<const Experiment> experiment, nlohmann::json config,
             std::string storePath, int64_t runId, RunnerOptions options);
  ~RunSession() override;  // cancels, joins the training thread, flushes the store

  void start();
  bool started() const { return m_runner != nullptr; }
  int64_t runId() const { return m_runId; }

  void cancel() override;
  bool finished() const override;
  int threads() const override { return m_options.threads; }
  int64_t requestProbe(const std::map<std::string, double>& inputs) override;
  std::vector<Event> takeEvents() override { return m_queue.takeAll(); }
  const void* worker() const override { return this; }

 private:
  std::shared_ptr<const Experiment> m_experiment;
  nlohmann::json m_config;
  std::string m_storePath;
  int64_t m_runId;
  RunnerOptions m_options;
  EventQueue m_queue;
  std::unique_ptr<store::StoreSink> m_storeSink;
  std::unique_ptr<FanOutSink> m_sinks;
  std::unique_ptr<Runner> m_runner;
};

}  // namespace fl::gui
