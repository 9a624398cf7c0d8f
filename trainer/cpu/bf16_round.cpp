#include "trainer/cpu/bf16_round.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "trainer/cpu/vec_math.h"

namespace bert::cpu {

namespace {

__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void round_native(const float* x, uint16_t* y,
                                                                                   size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256bh b = _mm512_cvtneps_pbh(_mm512_loadu_ps(x + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), reinterpret_cast<__m256i>(b));
  }
  if (i < n) {  // the tail under a mask
    const auto k = static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m256bh b = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(k, x + i));
    _mm256_mask_storeu_epi16(y + i, k, reinterpret_cast<__m256i>(b));
  }
}

// As round_native, with the cache lines y fills whole written by non-temporal stores.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void stream_native(const float* x, uint16_t* y,
                                                                                    size_t n) {
  const size_t head = std::min(n, (64 - (reinterpret_cast<uintptr_t>(y) & 63)) / 2 % 32);  // before a line starts
  round_native(x, y, head);
  size_t i = head;
  for (; i + 32 <= n; i += 32) {
    const __m512bh b = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(x + i));
    _mm512_stream_si512(reinterpret_cast<__m512i*>(y + i), reinterpret_cast<__m512i>(b));
  }
  round_native(x + i, y + i, n - i);
}

bool native() {
  // A function-local static: __builtin_cpu_supports needs libgcc's CPU detection, which a namespace-scope
  // initializer could run before.
  static const bool yes = (__builtin_cpu_init(), __builtin_cpu_supports("avx512bf16"));
  return yes;
}

}  // namespace

BERT_CPU_CLONES void round_to_bf16_loop(const float* x, uint16_t* y, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) y[i] = bf16_bits(x[i]);
}

void round_to_bf16(const float* x, uint16_t* y, size_t n) {
  if (native())
    round_native(x, y, n);
  else
    round_to_bf16_loop(x, y, n);
}

BERT_CPU_CLONES void widen_bf16(const uint16_t* x, float* y, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    const uint32_t u = static_cast<uint32_t>(x[i]) << 16;
    std::memcpy(y + i, &u, sizeof u);
  }
}

void round_to_bf16_stream(const float* x, uint16_t* y, size_t n) {
  if (native())
    stream_native(x, y, n);
  else
    round_to_bf16_loop(x, y, n);
}

void stream_fence() { _mm_sfence(); }

bool round_to_bf16_is_native() { return native(); }

}  // namespace bert::cpu
