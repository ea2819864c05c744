// ConsoleProgress: shows a run's progress on stderr. On a terminal, one self-redrawing line with
// a bar, epoch, loss and ETA; otherwise (a pipe, a CI log) plain lines, one per evaluation.
#pragma once

#include <cstdio>
#include <map>
#include <string>

#include "core/engine/events.h"
#include "core/engine/natural_order.h"

namespace fl::cli {

class ConsoleProgress {
 public:
  ConsoleProgress(std::FILE* out, bool interactive);
  void handle(const Event& event);
  void finish();  // ends the redrawn line so later output starts on a fresh one

 private:
  void onProgress(const ProgressEvent& e);
  void onMetric(const MetricEvent& e);
  void printEvaluationLine(int64_t step);
  // "step 400/1000 epoch 2/5", the epoch only where there is more than one.
  static std::string countedIn(const ProgressEvent& e, int64_t step);

  std::FILE* m_out;
  bool m_interactive;
  bool m_lineOpen = false;
  ProgressEvent m_last;
  // The metrics of the evaluation being reported, in the order a reader counts them (@48, @192).
  std::map<std::string, double, NaturalLess> m_evalMetrics;
  int64_t m_evalStep = -1;
};

std::string formatDuration(double seconds);

}  // namespace fl::cli
