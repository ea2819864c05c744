// Verdict: how a run is judged, as data rather than words in its status message. Two sources:
// the experiment's own judgement of an evaluation (fourier-qk's leakage detector: "LEAKS") and
// a finished run's comparison with a paper's published figure ("test/kl 0.160 vs paper 0.146 ±
// 0.033: within the paper's spread"). The Runner attaches a finished run's verdicts to its
// terminal StatusEvent, the run store keeps them in their own table, and every list colours a
// run by `passed`, never by reading its message back.
//
//   for (const Verdict& v : status.verdicts) if (v.passed == false) markRed();
//   verdictHeadline(verdicts)   // "LEAKS, outside paper": a few words for a list
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace fl {

struct Snapshot;
struct ReferenceVerdict;

enum class VerdictSource {
  Experiment,  // the experiment judged an evaluation (a snapshot's meta, see below)
  Paper,       // a metric against a preset's published figure
};

std::string toString(VerdictSource source);  // "experiment", "paper"
std::optional<VerdictSource> parseVerdictSource(const std::string& text);

struct Verdict {
  VerdictSource source = VerdictSource::Paper;
  std::string subject;  // the snapshot that judged ("leak/verdict") or the metric ("test/kl")
  std::string label;    // a few words: "LEAKS", "no leak", "within paper", "outside paper"
  std::optional<bool> passed;  // unset when there is nothing to judge by (no published spread)
  std::string detail;          // the whole sentence
  // Paper verdicts: the run's value, the published one, and the preset that carries it.
  double value = NAN;
  double paperMean = NAN;
  std::optional<double> paperStd;
  std::string preset;
};

// How an experiment states a judgement in a snapshot's meta (PanelKind::Verdict draws it):
// {"verdict": "LEAKS", "ok": false, "detail": "ordered loss 1.2 < shuffled 3.4 ..."}.
inline constexpr const char* kVerdictMetaLabel = "verdict";
inline constexpr const char* kVerdictMetaPassed = "ok";
inline constexpr const char* kVerdictMetaDetail = "detail";

// The labels of paper verdicts.
inline constexpr const char* kWithinPaper = "within paper";
inline constexpr const char* kOutsidePaper = "outside paper";
inline constexpr const char* kVersusPaper = "vs paper";  // no spread to judge by

// The snapshot's verdict, when its meta states one.
std::optional<Verdict> verdictOfSnapshot(const Snapshot& snapshot);
Verdict verdictOfReference(const ReferenceVerdict& reference);

// A few words for a list: the experiment's labels, then one word for the paper (outside if
// any figure is): "LEAKS, outside paper"; empty when there is no verdict.
std::string verdictHeadline(const std::vector<Verdict>& verdicts);
// The sentences joined with "; ".
std::string verdictDetails(const std::vector<Verdict>& verdicts);
// Any verdict failed (false), all that could judge passed (true), or none could judge.
std::optional<bool> verdictsPassed(const std::vector<Verdict>& verdicts);

}  // namespace fl
