// The element-wise work of blocked causal attention (blocked_attention.h) on one block of query
// rows of one (batch, head), in place on a row-major buffer that holds the block's scores for
// keys 0 .. cols - 1 (cols = r0 + rows: the keys a causal block can see).
//
// Row i of the block is query r0 + i; it sees keys 0 .. r0 + i. Entries past that are written
// as 0, so the buffer can go straight into the next matrix product. One pass per row keeps the
// row in L1: bias, maximum, exp, sum and normalisation, where the plain attention makes a
// pass over all B x H x T x T scores for each of these.
#pragma once

#include <cstdint>

namespace fl::nn::attention_rows {

// scores (rows x ld, ld >= cols) -> softmax weights in place; lse[i] = log sum_j exp(s_ij +
// b_ij), kept for the backward. bias: null, or the bias rows of this head (row r0 + i at
// bias + (r0 + i) * biasLd).
void softmaxForward(float* scores, int64_t ld, int64_t rows, int64_t r0, const float* bias,
                    int64_t biasLd, float* lse);

// scores -> the forward's weights again, exp(s_ij + b_ij - lse_i) (no second normalisation).
void recomputeWeights(float* scores, int64_t ld, int64_t rows, int64_t r0, const float* bias,
                      int64_t biasLd, const float* lse);

// The softmax backward in place: weights p -> dS = p * (dW - rowDot_i), where dW = gradOut *
// factor is the gradient of the (dropped-out) weights; factor null: no dropout.
void softmaxBackward(float* weights, const float* gradOut, int64_t ld, int64_t rows, int64_t r0,
                     const float* rowDot, const float* factor);

// dst = src * factor over rows x ld.
void applyDropout(float* dst, const float* src, const float* factor, int64_t ld, int64_t rows);

// The dropout factors of rows r0 .. r0 + rows - 1 of attention unit `unit` (batch * H + head)
// at sequence length `length`: factor[i * ld + j] = keepScale with probability keepProbability,
// else 0, for keys j <= r0 + i; 0 past them. A function of (seed, unit, row, key) only (a
// counter-based hash: SplitMix64 per row, then MurmurHash3's 32-bit finaliser on a Weyl
// sequence along the row), so a block drawn again, in any order or thread, is the same, and
// 16 keys are drawn at once.
void drawDropout(float* factor, int64_t ld, int64_t rows, int64_t r0, uint64_t seed, int64_t unit,
                 int64_t length, double keepProbability, float keepScale);

}  // namespace fl::nn::attention_rows
