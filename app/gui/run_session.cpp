#include "app/gui/run_session.h"

#include <cstdio>

#include <type_traits>

#include "core/engine/reference_check.h"
#include "core/engine/runner.h"
#include "core/store/run_store.h"
#include "core/store/store_sink.h"

namespace fl::gui {

RunSession::RunSession(std::shared_ptr<const Experiment> experiment, nlohmann::json config,
                       std::string storePath, int64_t runId, std::string name, QObject* parent)
    : QObject(parent),
      m_experiment(std::move(experiment)),
      m_config(std::move(config)),
      m_storePath(std::move(storePath)) {
  m_live.id = runId;
  m_live.experiment = m_experiment->name();
  m_live.name = std::move(name);
}

RunSession::~RunSession() {
  if (m_runner) {
    m_runner->cancel();
    m_runner->join();
  }
  if (m_storeSink) m_storeSink->close();
}

void RunSession::start() {
  if (m_started) return;
  m_started = true;
  m_storeSink = std::make_unique<store::StoreSink>(m_storePath, m_live.id);
  m_sinks = std::make_unique<FanOutSink>(std::vector<EventSink*>{m_storeSink.get(), &m_queue});
  RunnerOptions options;
  options.checkpointDir = m_storePath + ".files/run-" + std::to_string(m_live.id);
  options.resume = m_resume;
  m_runner = std::make_unique<Runner>(m_experiment, m_config, *m_sinks, options);
  m_runner->start();
}

void RunSession::cancel() {
  if (m_runner) m_runner->cancel();
  else {
    m_live.status = RunStatus::Cancelled;
    m_live.message = "cancelled before it started";
  }
}

int64_t RunSession::requestProbe(const std::map<std::string, double>& inputs) {
  return m_runner ? m_runner->requestProbe(inputs) : 0;
}

std::string LiveRun::summary() const {
  std::string text;
  if (!judgement.empty()) {
    text = judgement;
    if (auto loss = lastMetrics.find("val/loss"); loss != lastMetrics.end()) {
      char value[32];
      std::snprintf(value, sizeof value, "%.4g", loss->second);
      text += std::string(" (val/loss ") + value + ")";
    }
  }
  // A finished run's message repeats the judgement ("LEAKS -- detail; ..."): keep what follows.
  std::string rest = message;
  if (!judgement.empty() && rest.rfind(judgement + " -- ", 0) == 0) {
    const auto end = rest.find("; ");
    rest = end == std::string::npos ? std::string() : rest.substr(end + 2);
  }
  if (!rest.empty()) text += (text.empty() ? "" : "; ") + rest;
  return text;
}

// The paper's part of the verdict is read from the message the way every list reads it.
bool LiveRun::judged() const {
  return !judgement.empty() || verdictHeadline(message).find("paper") != std::string::npos;
}

bool LiveRun::judgedBad() const {
  return (!judgement.empty() && !judgementOk) ||
         verdictHeadline(message).find("outside paper") != std::string::npos;
}

RunDelta RunSession::drain() {
  RunDelta delta;
  for (auto& event : m_queue.takeAll()) {
    std::visit(
        [&](auto& e) {
          using T = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<T, MetricEvent>) {
            for (auto* series : {&delta.metrics[e.key], &m_history.metrics[e.key]}) {
              series->first.push_back(static_cast<double>(e.step));
              series->second.push_back(e.value);
            }
            m_live.lastMetrics[e.key] = e.value;
          } else if constexpr (std::is_same_v<T, SnapshotEvent>) {
            const auto& meta = e.snapshot.meta;
            if (meta.contains("verdict") && e.requestId == 0) {
              m_live.judgement = meta.value("verdict", "");
              m_live.judgementOk = meta.value("ok", true);
            }
            if (e.requestId == 0) m_history.snapshots.push_back(e);
            delta.snapshots.push_back(std::move(e));
          } else if constexpr (std::is_same_v<T, ProgressEvent>) {
            m_live.progress = e;
          } else if constexpr (std::is_same_v<T, StatusEvent>) {
            m_live.status = e.status;
            if (!e.device.empty()) m_live.device = e.device;
            m_live.message = e.message;
            delta.statusChanged = true;
          }
        },
        event);
  }
  // No close() here: it would make the GUI thread wait for the writer. The sink writes a
  // terminal status at once, and the destructor flushes whatever is left.
  return delta;
}

}  // namespace fl::gui
