#include "core/engine/panel_spec.h"

namespace fl {

std::string toString(PanelKind kind) {
  switch (kind) {
    case PanelKind::MetricLines:
      return "metric-lines";
    case PanelKind::SnapshotCurves:
      return "snapshot-curves";
    case PanelKind::SnapshotBars:
      return "snapshot-bars";
    case PanelKind::SnapshotHeatmap:
      return "snapshot-heatmap";
    case PanelKind::HeatmapOverSteps:
      return "heatmap-over-steps";
    case PanelKind::Probe:
      return "probe";
    case PanelKind::Verdict:
      return "verdict";
  }
  return "?";
}

}  // namespace fl
