// bf16 autocast for a transformer's forward pass on the GPU: while a MixedPrecisionScope lives,
// matrix products on `device` run in bfloat16 (float32 accumulation) and the operations
// autocast keeps in float32 (softmax, norms, losses) stay there, as torch.autocast(dtype=
// torch.bfloat16) does in Python. The state is the thread's own, so the scope is opened by the
// thread that runs the forward; the backward needs no scope.
//
// Position encodings and Q/K filters opt out (FloatRegion): their sines, FFTs and phases are
// computed in float32 on float32 inputs, so FoPE, FourierQK and ALiBi keep the float32
// semantics they are graded on; only the attention product that follows rounds to bf16.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

namespace fl::nn {

class MixedPrecisionScope {
 public:
  // Turns bf16 autocast on for `device`; enabled = false makes the scope do nothing.
  MixedPrecisionScope(c10::DeviceType device, bool enabled);
  ~MixedPrecisionScope();
  MixedPrecisionScope(const MixedPrecisionScope&) = delete;
  MixedPrecisionScope& operator=(const MixedPrecisionScope&) = delete;

 private:
  c10::DeviceType m_device;
  bool m_enabled;
  bool m_wasEnabled = false;
  c10::ScalarType m_previousType = c10::ScalarType::BFloat16;
};

// True while autocast is on for the device of a tensor on `device`.
bool autocastActive(c10::DeviceType device);

// While it lives, autocast is suspended on this thread: operations run in their inputs' dtype.
class FloatRegion {
 public:
  FloatRegion();

 private:
  c10::impl::ExcludeDispatchKeyGuard m_noAutocast;
};

// q or k as the fused attention kernels take them: in v's precision, rows laid out contiguously;
// x itself when it already is. Under autocast q and k leave the filter and the rotation in
// float32 (FloatRegion), and scaled_dot_product_attention would cast them to v's precision
// itself, keeping their strides: after an FFT along T, T is their innermost axis, and with a last
// stride other than 1 SDPA skips its fused kernels for its math one (float32 products, softmax
// and dropout, as an H200 device profile of a FourierQK step showed).
at::Tensor asFusedAttentionInput(const at::Tensor& x, const at::Tensor& v);

}  // namespace fl::nn
