#include "core/nn/transformer/fourier_position.h"

#include <algorithm>

#include <torch/torch.h>

#include "core/nn/transformer/rotary.h"

namespace fl::nn {

int64_t officialSeriesPairs(int64_t keptFrequencies, int64_t headDim) {
  return std::max<int64_t>(1, std::min(keptFrequencies, headDim / 4));
}

FourierPositionImpl::FourierPositionImpl(FourierPositionOptions options)
    : m_options(std::move(options)) {
  const int64_t k = static_cast<int64_t>(m_options.keptFrequencies.size());
  const int64_t m = m_options.seriesPairs;
  TORCH_CHECK(k >= 1,
              "FoPE needs at least one frequency above the floor (train_len too short "
              "for this head size and theta?)");
  TORCH_CHECK(m >= 1 && m <= k && m <= m_options.headDim / 2, "FoPE series pairs must be in [1, ",
              std::min(k, m_options.headDim / 2), "], got ", m);
  auto init = [&] {
    auto c = torch::empty({m_options.heads, k, m});
    torch::nn::init::xavier_normal_(c, m_options.gain);
    return c + stepIdentity().unsqueeze(0);
  };
  torch::NoGradGuard noGrad;
  auto cosInit = init();
  auto sinInit = init();
  if (m_options.learnable) {
    m_cos = register_parameter("cos_coef", cosInit);
    m_sin = register_parameter("sin_coef", sinInit);
  } else {
    m_cos = register_buffer("cos_coef", cosInit);
    m_sin = register_buffer("sin_coef", sinInit);
  }
}

torch::Tensor FourierPositionImpl::stepIdentity() const {
  const int64_t k = static_cast<int64_t>(m_options.keptFrequencies.size());
  const int64_t m = m_options.seriesPairs;
  // The official rule: pair j starts on frequency j * ceil(K / M), none when that is past K.
  auto eye = torch::zeros({k, m});
  const int64_t stride = (k + m - 1) / m;
  for (int64_t j = 0; j < m; ++j)
    if (j * stride < k) eye[j * stride][j] = 1.0;
  return eye;
}

void FourierPositionImpl::resetToIdentity() {
  torch::NoGradGuard noGrad;
  auto eye = stepIdentity().unsqueeze(0).to(m_cos.options());
  m_cos.copy_(eye.expand_as(m_cos));
  m_sin.copy_(eye.expand_as(m_sin));
}

std::pair<torch::Tensor, torch::Tensor> FourierPositionImpl::basis(int64_t length) const {
  const auto options = m_cos.options().requires_grad(false);
  auto angles = rotaryAngles(m_options.keptFrequencies, length, 0);  // (T, K), double
  return {torch::cos(angles).to(options), torch::sin(angles).to(options)};
}

std::pair<torch::Tensor, torch::Tensor> FourierPositionImpl::factors(
    const torch::Tensor& cosBasis, const torch::Tensor& sinBasis) const {
  const int64_t length = cosBasis.size(0);
  // (T, K) x (H, K, M) -> (H, T, M)
  auto cosFactor = torch::matmul(cosBasis, m_cos);
  auto sinFactor = torch::matmul(sinBasis, m_sin);
  const int64_t pad = m_options.headDim / 2 - m_options.seriesPairs;
  if (pad > 0) {
    // The official padding: both factors 1 on the pairs without a series.
    auto ones =
        torch::ones({m_options.heads, length, pad}, cosFactor.options().requires_grad(false));
    cosFactor = torch::cat({cosFactor, ones}, -1);
    sinFactor = torch::cat({sinFactor, ones}, -1);
  }
  return {cosFactor, sinFactor};
}

std::pair<torch::Tensor, torch::Tensor> FourierPositionImpl::factors(int64_t length) const {
  auto [cosBasis, sinBasis] = basis(length);
  return factors(cosBasis, sinBasis);
}

}  // namespace fl::nn
