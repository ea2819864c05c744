#include "core/nn/transformer/blocked_attention.h"

#include <algorithm>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <torch/torch.h>

#include "core/engine/blas_gemm.h"
#include "core/nn/transformer/attention_rows.h"

namespace fl::nn {

namespace {

namespace rows = attention_rows;

// Query rows per block: about 32K floats of scores, so a block and its gradient stay in a
// core's L2 cache (T 256: 128 rows; T 4096: 16).
constexpr int64_t kBlockFloats = 32768;

int64_t blockRows(int64_t length, int64_t requested) {
  if (requested > 0) return std::min(requested, length);
  return std::clamp<int64_t>(kBlockFloats / length, 16, length);
}

// C = alpha op(A) op(B) + beta C on row-major buffers (m x n result): op(A) is m x k, stored
// k x m when transposed. beta = 0 never reads C.
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  gemmRowMajor(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// Where one (batch, head)'s (T, D) matrix lies in a (B, H, T, D) tensor whose last dimension is
// contiguous: the model's q, k, v are views into one projection, and y is laid out (B, T, H, D)
// so that merging the heads afterwards needs no copy.
struct UnitLayout {
  int64_t heads = 1, batchStride = 0, headStride = 0, rowStride = 0;
  explicit UnitLayout(const torch::Tensor& t)
      : heads(t.size(1)),
        batchStride(t.stride(0)),
        headStride(t.stride(1)),
        rowStride(t.stride(2)) {}
  int64_t offset(int64_t unit) const {
    return unit / heads * batchStride + unit % heads * headStride;
  }
};

// A unit's matrix: row i at data + i * ld.
template <typename T>
struct Rows {
  T* data;
  int64_t ld;
  T* row(int64_t i) const { return data + i * ld; }
};

template <typename T>
Rows<T> unitRows(T* base, const UnitLayout& layout, int64_t unit) {
  return {base + layout.offset(unit), layout.rowStride};
}

// (B, H, T, D) with the last dimension contiguous, as the kernels read it.
torch::Tensor withContiguousRows(const torch::Tensor& t) {
  return t.stride(-1) == 1 ? t : t.contiguous();
}

// An uninitialised (B, H, T, D) tensor laid out (B, T, H, D).
torch::Tensor emptyHeadsLast(const torch::Tensor& like) {
  return torch::empty({like.size(0), like.size(2), like.size(1), like.size(3)}, like.options())
      .permute({0, 2, 1, 3});
}

// One call's shapes and constants; bias (1 | H, T, T) contiguous.
struct Problem {
  int64_t batch = 0, heads = 0, length = 0, dim = 0, blockRows = 0;
  float scale = 1;
  const float* bias = nullptr;
  int64_t biasHeads = 0;
  AttentionDropout dropout;

  int64_t units() const { return batch * heads; }
  const float* biasOf(int64_t unit) const {
    if (!bias) return nullptr;
    return bias + (biasHeads == 1 ? 0 : unit % heads) * length * length;
  }
  bool dropping() const { return dropout.p > 0; }
  float keepScale() const { return static_cast<float>(1.0 / (1.0 - dropout.p)); }
};

// Per-thread buffers for one block: scores or weights, a second matrix, the dropout factors.
struct Scratch {
  std::vector<float> first, second, dropout;
  explicit Scratch(const Problem& p)
      : first(static_cast<size_t>(p.blockRows * p.length)),
        second(static_cast<size_t>(p.blockRows * p.length)),
        dropout(p.dropping() ? static_cast<size_t>(p.blockRows * p.length) : 0) {}
};

// The block's dropout factors (keepScale or 0) into scratch.dropout.
const float* drawBlockDropout(const Problem& p, int64_t unit, int64_t r0, int64_t n, int64_t cols,
                              Scratch& scratch) {
  rows::drawDropout(scratch.dropout.data(), cols, n, r0, p.dropout.seed, unit, p.length,
                    1.0 - p.dropout.p, p.keepScale());
  return scratch.dropout.data();
}

void forwardUnit(const Problem& p, int64_t unit, Rows<const float> q, Rows<const float> k,
                 Rows<const float> v, Rows<float> y, float* lse, Scratch& scratch) {
  const int64_t t = p.length, d = p.dim;
  for (int64_t r0 = 0; r0 < t; r0 += p.blockRows) {
    const int64_t n = std::min(p.blockRows, t - r0), cols = r0 + n;  // causal: keys < cols
    float* s = scratch.first.data();
    gemm(false, true, n, cols, d, p.scale, q.row(r0), q.ld, k.data, k.ld, 0, s, cols);  // (n, cols)
    rows::softmaxForward(s, cols, n, r0, p.biasOf(unit), t, lse + r0);
    if (p.dropping())
      rows::applyDropout(s, s, drawBlockDropout(p, unit, r0, n, cols, scratch), cols, n);
    gemm(false, false, n, d, cols, 1, s, cols, v.data, v.ld, 0, y.row(r0), y.ld);  // (n, D)
  }
}

void backwardUnit(const Problem& p, int64_t unit, Rows<const float> q, Rows<const float> k,
                  Rows<const float> v, Rows<const float> y, const float* lse, Rows<const float> dy,
                  Rows<float> dq, Rows<float> dk, Rows<float> dv, Scratch& scratch) {
  const int64_t t = p.length, d = p.dim;
  // rowDot_i = sum_j w_ij dW_ij = dy_i . y_i (the dropped-out weights' product with v is y).
  std::vector<float> rowDot(static_cast<size_t>(t));
  for (int64_t i = 0; i < t; ++i) {
    float sum = 0;
    for (int64_t c = 0; c < d; ++c) sum += dy.row(i)[c] * y.row(i)[c];
    rowDot[static_cast<size_t>(i)] = sum;
  }
  for (int64_t r0 = 0; r0 < t; r0 += p.blockRows) {
    const int64_t n = std::min(p.blockRows, t - r0), cols = r0 + n;
    float* w = scratch.first.data();
    float* g = scratch.second.data();
    const float* dropout = nullptr;
    gemm(false, true, n, cols, d, p.scale, q.row(r0), q.ld, k.data, k.ld, 0, w, cols);
    rows::recomputeWeights(w, cols, n, r0, p.biasOf(unit), t, lse + r0);
    if (p.dropping()) {
      dropout = drawBlockDropout(p, unit, r0, n, cols, scratch);
      rows::applyDropout(g, w, dropout, cols, n);  // the dropped-out weights W'
      gemm(true, false, cols, d, n, 1, g, cols, dy.row(r0), dy.ld, 1, dv.data,
           dv.ld);  // dv += W'^T dy
    } else {
      gemm(true, false, cols, d, n, 1, w, cols, dy.row(r0), dy.ld, 1, dv.data, dv.ld);
    }
    gemm(false, true, n, cols, d, 1, dy.row(r0), dy.ld, v.data, v.ld, 0, g, cols);  // dW' = dy v^T
    rows::softmaxBackward(w, g, cols, n, r0, rowDot.data() + r0, dropout);          // dS
    gemm(false, false, n, d, cols, p.scale, w, cols, k.data, k.ld, 0, dq.row(r0),
         dq.ld);  // dq = s dS k
    gemm(true, false, cols, d, n, p.scale, w, cols, q.row(r0), q.ld, 1, dk.data,
         dk.ld);  // dk += s dS^T q
  }
}

// Runs f(unit, scratch) for every (batch, head) unit across LibTorch's threads. Each unit is
// computed whole by one thread (the matrix products inside run single-threaded), so results
// do not depend on the thread count.
template <typename F>
void forEachUnit(const Problem& p, F&& f) {
  at::parallel_for(0, p.units(), /*grain_size=*/1, [&](int64_t begin, int64_t end) {
    SingleThreadedBlas oneThread;
    Scratch scratch(p);
    for (int64_t unit = begin; unit < end; ++unit) f(unit, scratch);
  });
}

Problem makeProblem(const torch::Tensor& q, const torch::Tensor& bias, double scale,
                    AttentionDropout dropout, int64_t requestedRows) {
  Problem p;
  p.batch = q.size(0);
  p.heads = q.size(1);
  p.length = q.size(2);
  p.dim = q.size(3);
  p.blockRows = blockRows(p.length, requestedRows);
  p.scale = static_cast<float>(scale);
  if (bias.defined()) {
    p.bias = bias.data_ptr<float>();
    p.biasHeads = bias.dim() == 3 ? bias.size(0) : 1;
  }
  p.dropout = dropout;
  return p;
}

class BlockedAttentionFunction : public torch::autograd::Function<BlockedAttentionFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& q,
                               const torch::Tensor& k, const torch::Tensor& v,
                               const c10::optional<torch::Tensor>& bias, double scale,
                               double dropoutP, int64_t dropoutSeed, int64_t requestedRows) {
    RECORD_FUNCTION("blocked_attention_forward", std::vector<c10::IValue>());
    auto qc = withContiguousRows(q), kc = withContiguousRows(k), vc = withContiguousRows(v);
    const auto p = makeProblem(qc, bias.value_or(torch::Tensor()), scale,
                               {dropoutP, static_cast<uint64_t>(dropoutSeed)}, requestedRows);
    auto y = emptyHeadsLast(qc);                                          // (B, H, T, D)
    auto lse = torch::empty({p.batch, p.heads, p.length}, qc.options());  // (B, H, T)
    const UnitLayout ql(qc), kl(kc), vl(vc), yl(y);
    const float *qd = qc.data_ptr<float>(), *kd = kc.data_ptr<float>(), *vd = vc.data_ptr<float>();
    float *yd = y.data_ptr<float>(), *ld = lse.data_ptr<float>();
    forEachUnit(p, [&](int64_t u, Scratch& scratch) {
      forwardUnit(p, u, unitRows(qd, ql, u), unitRows(kd, kl, u), unitRows(vd, vl, u),
                  unitRows(yd, yl, u), ld + u * p.length, scratch);
    });
    ctx->save_for_backward({qc, kc, vc, y, lse});
    ctx->saved_data["bias"] = bias.value_or(torch::Tensor());
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["dropout_p"] = dropoutP;
    ctx->saved_data["dropout_seed"] = dropoutSeed;
    ctx->saved_data["rows"] = requestedRows;
    return y;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    RECORD_FUNCTION("blocked_attention_backward", std::vector<c10::IValue>());
    const auto saved = ctx->get_saved_variables();
    const auto &q = saved[0], &k = saved[1], &v = saved[2], &y = saved[3], &lse = saved[4];
    const auto bias = ctx->saved_data["bias"].toTensor();
    const auto p = makeProblem(q, bias, ctx->saved_data["scale"].toDouble(),
                               {ctx->saved_data["dropout_p"].toDouble(),
                                static_cast<uint64_t>(ctx->saved_data["dropout_seed"].toInt())},
                               ctx->saved_data["rows"].toInt());
    auto dy = withContiguousRows(grads[0]);
    auto dq = emptyHeadsLast(q);
    auto dk = emptyHeadsLast(k).zero_();  // accumulated over the query blocks
    auto dv = emptyHeadsLast(v).zero_();
    const UnitLayout ql(q), kl(k), vl(v), yl(y), gl(dy), dql(dq), dkl(dk), dvl(dv);
    const float *qd = q.data_ptr<float>(), *kd = k.data_ptr<float>(), *vd = v.data_ptr<float>(),
                *yd = y.data_ptr<float>(), *ld = lse.data_ptr<float>(), *gd = dy.data_ptr<float>();
    float *dqd = dq.data_ptr<float>(), *dkd = dk.data_ptr<float>(), *dvd = dv.data_ptr<float>();
    forEachUnit(p, [&](int64_t u, Scratch& scratch) {
      backwardUnit(p, u, unitRows(qd, ql, u), unitRows(kd, kl, u), unitRows(vd, vl, u),
                   unitRows(yd, yl, u), ld + u * p.length, unitRows(gd, gl, u),
                   unitRows(dqd, dql, u), unitRows(dkd, dkl, u), unitRows(dvd, dvl, u), scratch);
    });
    return {dq,
            dk,
            dv,
            torch::Tensor(),
            torch::Tensor(),
            torch::Tensor(),
            torch::Tensor(),
            torch::Tensor()};
  }
};

}  // namespace

torch::Tensor blockedCausalAttention(const torch::Tensor& q, const torch::Tensor& k,
                                     const torch::Tensor& v, double scale,
                                     const torch::Tensor& bias, AttentionDropout dropout,
                                     int64_t rowBlock) {
  TORCH_CHECK(q.dim() == 4 && q.sizes() == k.sizes() && q.sizes() == v.sizes(),
              "blocked attention needs q, k, v of one shape (B, H, T, D), got ", q.sizes(), ", ",
              k.sizes(), ", ", v.sizes());
  TORCH_CHECK(q.device().is_cpu() && q.scalar_type() == torch::kFloat &&
                  k.scalar_type() == torch::kFloat && v.scalar_type() == torch::kFloat,
              "blocked attention runs on float CPU tensors, got ", q.scalar_type(), " on ",
              q.device());
  TORCH_CHECK(dropout.p >= 0 && dropout.p < 1, "attention dropout ", dropout.p,
              " is not in [0, 1)");
  // The bias goes in as an optional: 1.13's autograd functions cannot take an undefined tensor.
  c10::optional<torch::Tensor> b;
  if (bias.defined()) {
    const int64_t t = q.size(2);
    TORCH_CHECK(!bias.requires_grad(), "blocked attention takes a constant score bias");
    TORCH_CHECK((bias.dim() == 2 || (bias.dim() == 3 && bias.size(0) == q.size(1))) &&
                    bias.size(-1) == t && bias.size(-2) == t,
                "score bias ", bias.sizes(), " does not fit ", q.size(1), " heads and length ", t);
    b = bias.to(torch::kFloat).contiguous();
  }
  return BlockedAttentionFunction::apply(q, k, v, b, scale, dropout.p,
                                         static_cast<int64_t>(dropout.seed), rowBlock);
}

torch::Tensor attentionDropoutKeepMask(const AttentionDropout& dropout, int64_t batch,
                                       int64_t heads, int64_t length) {
  auto mask = torch::empty({batch, heads, length, length}, torch::kFloat);
  auto* data = mask.data_ptr<float>();
  for (int64_t unit = 0; unit < batch * heads; ++unit)
    rows::drawDropout(data + unit * length * length, length, length, 0, dropout.seed, unit, length,
                      1.0 - dropout.p, /*keepScale=*/1.0f);
  return mask;
}

}  // namespace fl::nn
