#include "core/nn/transformer/mixed_precision.h"

#include <ATen/autocast_mode.h>

namespace fl::nn {

MixedPrecisionScope::MixedPrecisionScope(c10::DeviceType device, bool enabled)
    : m_device(device), m_enabled(enabled) {
  if (!m_enabled) return;
  m_wasEnabled = at::autocast::is_autocast_enabled(device);
  m_previousType = at::autocast::get_autocast_dtype(device);
  at::autocast::set_autocast_enabled(device, true);
  at::autocast::set_autocast_dtype(device, at::kBFloat16);
  at::autocast::increment_nesting();
}

MixedPrecisionScope::~MixedPrecisionScope() {
  if (!m_enabled) return;
  // The outermost scope drops the bf16 copies of the weights autocast cached for this forward.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(m_device, m_wasEnabled);
  at::autocast::set_autocast_dtype(m_device, m_previousType);
}

bool autocastActive(c10::DeviceType device) { return at::autocast::is_autocast_enabled(device); }

FloatRegion::FloatRegion() : m_noAutocast(c10::autocast_dispatch_keyset) {}

at::Tensor asFusedAttentionInput(const at::Tensor& x, const at::Tensor& v) {
  // Not to(dtype, ..., MemoryFormat::Contiguous) alone: with the dtype unchanged it returns x
  // as it is, strides and all (ATen asks x's suggested format, which is "contiguous" for any
  // tensor not channels-last).
  if (x.scalar_type() == v.scalar_type()) return x.stride(-1) == 1 ? x : x.contiguous();
  return x.to(v.scalar_type(), /*non_blocking=*/false, /*copy=*/false,
              at::MemoryFormat::Contiguous);
}

}  // namespace fl::nn
