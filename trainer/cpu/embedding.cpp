#include "trainer/cpu/embedding.h"

#include <cstddef>

namespace bert::cpu {

void embedding_forward(const int32_t* ids, const int32_t* pos, const int8_t* seg, const float* word,
                       const float* position, const float* type, float* out, int t, int h) {
#pragma omp parallel for schedule(static)
  for (int r = 0; r < t; ++r) {
    const float* w = word + static_cast<size_t>(ids[r]) * h;
    const float* p = position + static_cast<size_t>(pos[r]) * h;
    const float* s = type + static_cast<size_t>(seg[r]) * h;
    float* o = out + static_cast<size_t>(r) * h;
    for (int c = 0; c < h; ++c) o[c] = w[c] + p[c] + s[c];
  }
}

void embedding_backward(const int32_t* ids, const int32_t* pos, const int8_t* seg, const float* dy, float* dword,
                        float* dposition, float* dtype, int t, int h) {
  for (int r = 0; r < t; ++r) {
    const float* g = dy + static_cast<size_t>(r) * h;
    float* w = dword + static_cast<size_t>(ids[r]) * h;
    float* p = dposition + static_cast<size_t>(pos[r]) * h;
    float* s = dtype + static_cast<size_t>(seg[r]) * h;
    for (int c = 0; c < h; ++c) {
      w[c] += g[c];
      p[c] += g[c];
      s[c] += g[c];
    }
  }
}

}  // namespace bert::cpu
