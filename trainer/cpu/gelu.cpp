#include "trainer/cpu/gelu.h"

#include <algorithm>
#include <vector>

#include "trainer/cpu/bf16_column_sums.h"
#include "trainer/cpu/bf16_round.h"

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

void gelu_forward(const float* x, float* y, size_t n) {
  const auto blocks = static_cast<int64_t>((n + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < blocks; ++b) {
    const size_t at = static_cast<size_t>(b) * kBlock;
    forward_block(x + at, y + at, std::min(kBlock, n - at));
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

void gelu_forward(const uint16_t* x16, uint16_t* y16, size_t n) {
  const auto blocks = static_cast<int64_t>((n + kBlock - 1) / kBlock);
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < blocks; ++b) {
    thread_local std::vector<float> x;  // a block in L1
    x.resize(kBlock);
    const size_t at = static_cast<size_t>(b) * kBlock, len = std::min(kBlock, n - at);
    widen_bf16(x16 + at, x.data(), len);
    forward_block(x.data(), x.data(), len);
    round_to_bf16(x.data(), y16 + at, len);
  }
}

void gelu_backward(const uint16_t* x16, const float* dy, uint16_t* dx16, float* db, int rows, int cols,
                   bool accumulate) {
  const auto row = [&](int r, float* out) {
    const size_t at = static_cast<size_t>(r) * cols;
    widen_bf16(x16 + at, out, static_cast<size_t>(cols));
    backward_block(out, dy + at, out, static_cast<size_t>(cols));
    return static_cast<const float*>(out);
  };
  round_to_bf16_with_column_sums(row, rows, cols, dx16, db, accumulate);
}

}  // namespace bert::cpu
