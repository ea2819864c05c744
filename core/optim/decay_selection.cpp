#include "core/optim/decay_selection.h"

namespace fl::optim {

DecaySelection decayWeightMatricesOnly(
    const torch::OrderedDict<std::string, torch::Tensor>& named) {
  DecaySelection selection;
  for (const auto& item : named) {
    const auto& name = item.key();
    const bool isWeight = name.size() >= 6 && name.compare(name.size() - 6, 6, "weight") == 0;
    selection.parameters.push_back(item.value());
    selection.decay.push_back(isWeight && item.value().dim() >= 2);
  }
  return selection;
}

}  // namespace fl::optim
