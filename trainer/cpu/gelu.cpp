#include "trainer/cpu/gelu.h"

#include <algorithm>

#include "trainer/cpu/gemm_bf16.h"
#include "trainer/cpu/vec_math.h"

namespace bert::cpu {

namespace {
constexpr float kC = 0.7978845608028654f;  // sqrt(2/pi)
constexpr float kA = 0.044715f;
constexpr size_t kBlock = 4096;

// tanh(u) = 1 − 2/(1 + e^(2u)) through the vectorized exp; |u| > 15 saturates (e^30 is finite in float,
// so no inf/inf).
inline float tanh_approx(float u) {
  const float uc = u > 15.0f ? 15.0f : (u < -15.0f ? -15.0f : u);
  return 1.0f - 2.0f / (1.0f + exp_approx(2.0f * uc));
}

BERT_CPU_CLONES void forward_block(const float* x, float* y, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanh_approx(kC * (v + kA * v * v * v)));
  }
}

BERT_CPU_CLONES void backward_block(const float* x, const float* dy, float* dx, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float th = tanh_approx(kC * (v + kA * v * v * v));
    const float dinner = kC * (1.0f + 3.0f * kA * v * v);
    dx[i] = dy[i] * (0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * dinner);
  }
}

}  // namespace

void gelu_forward(const float* x, float* y, size_t n, uint16_t* y16) {
  const auto blocks = static_cast<int64_t>((n + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < blocks; ++b) {
    const size_t at = static_cast<size_t>(b) * kBlock, len = std::min(kBlock, n - at);
    forward_block(x + at, y + at, len);
    if (y16) to_bf16(y + at, y16 + at, len);  // while the block is in L1
  }
}

void gelu_backward(const float* x, const float* dy, float* dx, size_t n) {
  const auto blocks = static_cast<int64_t>((n + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < blocks; ++b) {
    const size_t at = static_cast<size_t>(b) * kBlock;
    backward_block(x + at, dy + at, dx + at, std::min(kBlock, n - at));
  }
}

}  // namespace bert::cpu
