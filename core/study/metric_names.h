// Metric names as a study reads them: a family of numbered metrics (val/ppl@64, @128, ... under
// val/ppl@*), an experiment's declared names (an entry ending in '*' stands for every name it
// begins), and the check that a study file names only metrics its runs record.
//
//   unrecordedMetrics(spec, {"val/loss", "val/ppl@64", "qk/period_h*"})
//     -> {"claims[0].metric: no run of this study records val/los (did you mean val/loss?)"}
//
// Torch-free: the GUI's widgets and the fuzz targets read specs too.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/engine/study_spec.h"

namespace fl::study {

// "val/ppl@*" for val/ppl@64 and for val/ppl@*; empty for a metric without an '@'.
std::string familyOf(const std::string& metric);
bool isFamily(const std::string& metric);  // ends in "@*"
// The number after the '@' of `key` when it is a member of `family` ("val/ppl@128": 128).
std::optional<double> memberLength(const std::string& key, const std::string& family);
// "val/ppl@64, @128, @256": the members of `family` among `keys`, by their numbers.
std::string membersOf(const std::set<std::string>& keys, const std::string& family);

// Whether a declared name covers a wanted one. Either may end in '*' (every name it begins):
// qk/period_h* covers qk/period_h0; val/ppl@64 covers the family val/ppl@*.
bool coversMetric(const std::string& declared, const std::string& wanted);

// Where a study names a metric: the part that reads it, which one (a claim's, figure's or
// reference row's index; a table column's), and the place as the file writes it.
struct MetricPlace {
  enum class Part { Claim, Table, Figure, Reference };
  Part part = Part::Claim;
  size_t index = 0;
  std::string where;  // "claims[0].over"
  std::string metric;
};

// The metrics a study file's reading parts name: claims' metric, over and b_metric, the
// table's and figures' metrics, the reference rows' values.
std::vector<MetricPlace> metricsNamed(const StudySpec& spec);

// A metric the spec names that no declared name covers.
struct UnrecordedMetric {
  MetricPlace place;
  // The name meant where one is a typo away ("did you mean test/kl?") or the numbers its
  // family has ("of val/ppl@* they record val/ppl@64, @128"); may be empty.
  std::string hint;
  // "claims[0].metric: no run of this study records test/kll (did you mean test/kl?)"
  std::string text() const;
};

std::vector<UnrecordedMetric> unrecordedMetrics(const StudySpec& spec,
                                                const std::vector<std::string>& declared);

// The declared names as a list, a family's numbers once and the machine's series last:
// "train/loss, val/ppl@64, @128, qk/period_h0 and the system/ series (cpu_percent, rss_mib)";
// said once beside unrecordedMetrics' lines.
std::string recordedMetricsText(const std::vector<std::string>& declared);

}  // namespace fl::study
