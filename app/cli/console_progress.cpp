#include "app/cli/console_progress.h"

#include <cmath>
#include <type_traits>

#include "core/engine/system_metrics.h"

namespace fl::cli {

std::string formatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const auto total = static_cast<long long>(std::llround(seconds));
  char buf[32];
  if (total >= 3600)
    std::snprintf(buf, sizeof(buf), "%lld:%02lld:%02lld", total / 3600, (total / 60) % 60,
                  total % 60);
  else
    std::snprintf(buf, sizeof(buf), "%lld:%02lld", total / 60, total % 60);
  return buf;
}

ConsoleProgress::ConsoleProgress(std::FILE* out, bool interactive)
    : m_out(out), m_interactive(interactive) {}

void ConsoleProgress::handle(const Event& event) {
  std::visit(
      [this](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, ProgressEvent>) {
          onProgress(e);
        } else if constexpr (std::is_same_v<T, MetricEvent>) {
          onMetric(e);
        } else if constexpr (std::is_same_v<T, StatusEvent>) {
          if (e.status == RunStatus::Running) {
            finish();
            std::fprintf(m_out, "%s\n", e.message.c_str());
          }
        } else if constexpr (std::is_same_v<T, LogEvent>) {
          finish();
          std::fprintf(m_out, "%s\n", e.text.c_str());
        }
      },
      event);
}

std::string ConsoleProgress::countedIn(const ProgressEvent& e, int64_t step) {
  std::string text = "step " + std::to_string(step) + "/" + std::to_string(e.totalSteps);
  // A run of one pass (the language models count steps only) said "epoch 0/1" all along.
  if (e.totalEpochs > 1)
    text += " epoch " + std::to_string(e.epoch) + "/" + std::to_string(e.totalEpochs);
  return text;
}

void ConsoleProgress::onProgress(const ProgressEvent& e) {
  m_last = e;
  // An evaluation's metrics precede the progress event that closes it.
  if (e.evaluated && !m_evalMetrics.empty()) printEvaluationLine(m_evalStep);
  if (!m_interactive) return;
  const double fraction =
      e.totalSteps > 0 ? static_cast<double>(e.step) / static_cast<double>(e.totalSteps) : 1.0;
  const double eta = fraction > 0 ? e.wallSeconds * (1.0 - fraction) / fraction : NAN;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::fprintf(m_out, "\r[%s] %3.0f%%  %s  loss %.4f  %s elapsed, ETA %s ", bar.c_str(),
               100.0 * fraction, countedIn(e, e.step).c_str(), e.lastLoss,
               formatDuration(e.wallSeconds).c_str(), formatDuration(eta).c_str());
  std::fflush(m_out);
  m_lineOpen = true;
}

void ConsoleProgress::onMetric(const MetricEvent& e) {
  // The evaluation line says what the run computed; the process's figures are sampled on their
  // own clock, between evaluations, and read from the store (runs show, export).
  if (e.key == "train/loss" || isSystemMetric(e.key)) return;
  m_evalStep = e.step;
  m_evalMetrics[e.key] = e.value;
}

void ConsoleProgress::printEvaluationLine(int64_t step) {
  // On a terminal the bar already shows progress; print evaluations only in plain mode.
  if (!m_interactive) {
    std::fprintf(m_out, "eval %s loss %.4f", countedIn(m_last, step).c_str(), m_last.lastLoss);
    for (const auto& [key, value] : m_evalMetrics)
      std::fprintf(m_out, " %s %.4g", key.c_str(), value);
    std::fprintf(m_out, " (%s)\n", formatDuration(m_last.wallSeconds).c_str());
    std::fflush(m_out);
  }
  m_evalMetrics.clear();
}

void ConsoleProgress::finish() {
  if (!m_evalMetrics.empty()) printEvaluationLine(m_evalStep);
  if (m_lineOpen) {
    std::fprintf(m_out, "\n");
    m_lineOpen = false;
  }
}

}  // namespace fl::cli
