#include "trainer/cpu/gelu.h"

#include <cmath>

namespace bert::cpu {

namespace {
constexpr float kC = 0.7978845608028654f;  // sqrt(2/pi)
constexpr float kA = 0.044715f;
}  // namespace

void gelu_forward(const float* x, float* y, size_t n) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + std::tanh(kC * (v + kA * v * v * v)));
  }
}

void gelu_backward(const float* x, const float* dy, float* dx, size_t n) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float th = std::tanh(kC * (v + kA * v * v * v));
    const float dinner = kC * (1.0f + 3.0f * kA * v * v);
    dx[i] = dy[i] * (0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * dinner);
  }
}

}  // namespace bert::cpu
