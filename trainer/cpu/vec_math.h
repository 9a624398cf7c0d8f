// Elementwise math that the compiler vectorizes (glibc's expf is a scalar call inside a loop), and
// BERT_CPU_CLONES, which compiles a hot loop for AVX-512, AVX2 and baseline x86-64 and picks one at
// load time (the trainer is built without -march, so it runs on any x86-64 node).
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define BERT_CPU_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define BERT_CPU_CLONES
#endif

namespace bert::cpu {

// e^x in float, Cephes' expf polynomial after reduction by ln 2: relative error below 2e-7 on
// [-87, 88]; 0 below -87.3 (softmax and cross entropy only feed x ≤ 0 or bounded logits).
inline float exp_approx(float x) {
  const float hi = 88.3762626647949f, lo = -87.3365447504f;
  const float xc = x > hi ? hi : (x < lo ? lo : x);
  // n = round(xc / ln 2) by the 1.5·2^23 trick (exact for |n| < 2^22): floorf would be a libm call
  // that keeps GCC from vectorizing every loop around this function (GELU, softmax, cross entropy).
  const float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float two_n;
  std::memcpy(&two_n, &bits, sizeof two_n);
  return x < lo ? 0.0f : e * two_n;
}

// In place: row ← softmax(row) over n floats (max subtracted first).
void softmax_row(float* row, int n);

}  // namespace bert::cpu
