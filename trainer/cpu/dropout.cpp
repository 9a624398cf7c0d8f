#include "trainer/cpu/dropout.h"

namespace bert::cpu {

void dropout_forward(const float* x, float* y, uint8_t* keep, const int32_t* token_flat, int t, int n,
                     const model::DropoutStream& rng, float p) {
  const float scale = 1.0f / (1.0f - p);
#pragma omp parallel for schedule(static)
  for (int r = 0; r < t; ++r) {
    const size_t row = static_cast<size_t>(r) * n;
    const uint64_t base = static_cast<uint64_t>(token_flat[r]) * static_cast<uint64_t>(n);
    if (p <= 0.0f) {
      for (int c = 0; c < n; ++c) keep[row + c] = 1, y[row + c] = x[row + c];
      continue;
    }
    rng.fill_keep(base, n, p, keep + row);
    for (int c = 0; c < n; ++c) y[row + c] = keep[row + c] ? x[row + c] * scale : 0.0f;
  }
}

void dropout_backward(const float* dy, float* dx, const uint8_t* keep, size_t count, float p) {
  const float scale = 1.0f / (1.0f - p);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < count; ++i) dx[i] = keep[i] ? dy[i] * scale : 0.0f;
}

}  // namespace bert::cpu
