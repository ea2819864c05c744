#include "core/nn/transformer/fused_elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "core/nn/transformer/vector_lanes.h"

namespace fl::nn {

namespace {

using namespace lanes;

constexpr int64_t kGrain = 1 << 16;  // elements per parallel chunk

// d/dx gelu(x) = Phi(x) + x phi(x); with e = exp(-x^2 / 2), phi(x) = e / sqrt(2 pi) and
// erf(|x| / sqrt 2) = 1 - t (a1 + t (a2 + ...)) e, t = 1 / (1 + p |x| / sqrt 2).
FL_INLINE Floats geluDerivative(const Floats& x) {
  const Floats e = expNonPositive(x * x * -0.5f);
  const Floats ax = x < splat(0.0f) ? -x : x;
  const Floats t = splat(1.0f) / (ax * (0.3275911f * 0.70710678118654752f) + 1.0f);
  Floats poly = splat(1.061405429f);
  poly = poly * t - 1.453152027f;
  poly = poly * t + 1.421413741f;
  poly = poly * t - 0.284496736f;
  poly = poly * t + 0.254829592f;
  const Floats erfAbs = splat(1.0f) - poly * t * e;
  const Floats erfX = x < splat(0.0f) ? -erfAbs : erfAbs;
  return (erfX + 1.0f) * 0.5f + x * e * 0.3989422804014327f;
}

FL_VECTOR_CLONES
void geluBackwardKernel(const float* x, const float* grad, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(out + i, load(grad + i) * geluDerivative(load(x + i)));
  if (i < n)
    storePartial(
        out + i, n - i,
        loadPartial(grad + i, n - i, 0.0f) * geluDerivative(loadPartial(x + i, n - i, 0.0f)));
}

// out_i = keep(seed, i) ? x_i * scale : 0 for i in [begin, end): element i's draw is
// fmix32(key + i * kWeyl) with the key of its 2^32-element stretch.
FL_VECTOR_CLONES
void dropoutKernel(const float* x, float* out, int64_t begin, int64_t end, uint64_t seed,
                   uint32_t threshold, float scale) {
  Uints offsets;
  for (int64_t l = 0; l < kLanes; ++l) offsets[l] = static_cast<uint32_t>(l) * kWeyl;
  for (int64_t i = begin; i < end; i += kLanes) {
    const auto key =
        static_cast<uint32_t>(splitMix64(seed ^ splitMix64(static_cast<uint64_t>(i) >> 32)));
    const Uints hash = fmix32(key + static_cast<uint32_t>(i) * kWeyl + offsets);
    const int64_t n = std::min(kLanes, end - i);
    const Floats v = n == kLanes ? load(x + i) : loadPartial(x + i, n, 0.0f);
    const Floats kept = (hash < threshold) ? v * scale : splat(0.0f);
    if (n == kLanes)
      store(out + i, kept);
    else
      storePartial(out + i, n, kept);
  }
}

uint32_t keepThreshold(double p) {
  return static_cast<uint32_t>(
      std::min(std::llround((1.0 - std::clamp(p, 0.0, 1.0)) * 4294967296.0), 4294967295LL));
}

torch::Tensor applyDropout(const torch::Tensor& x, double p, uint64_t seed) {
  auto in = x.contiguous();
  auto out = torch::empty_like(in);
  const float* src = in.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  const uint32_t threshold = keepThreshold(p);
  const auto scale = static_cast<float>(1.0 / (1.0 - p));
  // Lane l of the vector at i draws for element i + l, so chunks may start anywhere.
  at::parallel_for(0, in.numel(), kGrain, [&](int64_t begin, int64_t end) {
    dropoutKernel(src, dst, begin, end, seed, threshold, scale);
  });
  return out;
}

class FusedGeluFunction : public torch::autograd::Function<FusedGeluFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x) {
    ctx->save_for_backward({x});
    return torch::gelu(x);  // LibTorch's forward is already vectorised
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto x = ctx->get_saved_variables()[0].contiguous();
    const auto grad = grads[0].contiguous();
    auto out = torch::empty_like(x);
    const float *xd = x.data_ptr<float>(), *gd = grad.data_ptr<float>();
    float* od = out.data_ptr<float>();
    at::parallel_for(0, x.numel(), kGrain, [&](int64_t begin, int64_t end) {
      geluBackwardKernel(xd + begin, gd + begin, od + begin, end - begin);
    });
    return {out};
  }
};

class HashedDropoutFunction : public torch::autograd::Function<HashedDropoutFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               double p, int64_t seed) {
    ctx->saved_data["p"] = p;
    ctx->saved_data["seed"] = seed;
    return applyDropout(x, p, static_cast<uint64_t>(seed));
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    // The same mask, redrawn: d(x_i * keep_i * scale) / dx_i = keep_i * scale.
    return {applyDropout(grads[0], ctx->saved_data["p"].toDouble(),
                         static_cast<uint64_t>(ctx->saved_data["seed"].toInt())),
            torch::Tensor(), torch::Tensor()};
  }
};

bool fusable(const torch::Tensor& x) {
  return fusedOpsEnabled() && x.device().is_cpu() && x.scalar_type() == torch::kFloat;
}

}  // namespace

bool fusedOpsEnabled() {
  static const bool enabled = [] {
    const char* env = std::getenv("FOURIERLAB_FUSED_OPS");
    return !(env && std::strcmp(env, "0") == 0);
  }();
  return enabled;
}

torch::Tensor fusedGelu(const torch::Tensor& x) {
  return fusable(x) ? FusedGeluFunction::apply(x) : torch::gelu(x);
}

torch::Tensor hashedDropout(const torch::Tensor& x, double p, uint64_t seed) {
  TORCH_CHECK(p >= 0 && p < 1, "dropout probability ", p, " is not in [0, 1)");
  TORCH_CHECK(x.device().is_cpu() && x.scalar_type() == torch::kFloat,
              "hashed dropout runs on float CPU tensors, got ", x.scalar_type(), " on ",
              x.device());
  if (p == 0) return x;
  return HashedDropoutFunction::apply(x, p, static_cast<int64_t>(seed));
}

}  // namespace fl::nn
