#include "experiments/addition/lens_snapshots.h"

#include <algorithm>
#include <cmath>

#include <torch/torch.h>

#include "core/engine/tensor_values.h"

namespace fl::addition {

namespace {

// Where the paper's dominant periods fall on the frequency axis, for the panels to mark: at the
// nearest frequency the DFT has (k = M / period rounded, at most M/2), where their spikes show.
nlohmann::json periodMarks(int64_t numbers) {
  const std::pair<double, const char*> periods[] = {{10, "10"}, {5, "5"}, {2.5, "2.5"}, {2, "2"}};
  nlohmann::json marks = nlohmann::json::array();
  for (const auto& [period, text] : periods) {
    const auto k =
        std::min<int64_t>(std::llround(static_cast<double>(numbers) / period), numbers / 2);
    marks.push_back({{"at", k}, {"label", std::string("period ") + text}});
  }
  return marks;
}

SnapshotAxis frequencyAxis(const LensSpectra& s) {
  std::vector<float> ticks(s.frequencies.begin(), s.frequencies.end());
  return {"frequency k (period " + std::to_string(s.numbers) + "/k numbers)", "", ticks};
}

Snapshot perLayer(const std::string& name, const ModuleSpectra& module, const LensSpectra& s) {
  Snapshot out;
  out.name = name;
  out.shape = {module.perLayer.size(0), module.perLayer.size(1)};
  out.data = toFloatVector(module.perLayer);
  std::vector<float> layers;
  for (int64_t l = 1; l <= module.perLayer.size(0); ++l) layers.push_back(static_cast<float>(l));
  out.axes = {{"layer", "", layers}, frequencyAxis(s)};
  out.valueLabel = "mean |DFT| of W_U o";
  out.meta["x_marks"] = periodMarks(s.numbers);
  out.keep = SnapshotKeep::LatestStep;  // its panel shows the latest
  return out;
}

}  // namespace

void reportLensSpectra(const LensSpectra& s, EvalReport& out) {
  out.snapshot(perLayer("lens/attn", s.attention, s));
  out.snapshot(perLayer("lens/mlp", s.mlp, s));

  Snapshot modules;
  modules.name = "lens/modules";
  auto both = torch::stack({s.attention.summed, s.mlp.summed});
  modules.shape = {both.size(0), both.size(1)};
  modules.data = toFloatVector(both);
  modules.axes = {{"module", "", {0, 1}}, frequencyAxis(s)};
  modules.valueLabel = "mean |DFT| of the summed logits";
  modules.meta["row_labels"] = {"attention, all layers", "MLP, all layers"};
  modules.meta["x_marks"] = periodMarks(s.numbers);
  modules.keep = SnapshotKeep::LatestStep;
  out.snapshot(std::move(modules));

  out.metric("lens/high_share_attn", s.attention.highShare);
  out.metric("lens/high_share_mlp", s.mlp.highShare);
}

}  // namespace fl::addition
