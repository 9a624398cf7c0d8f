// fp32 → bf16 bits as every bf16 operand of the CPU backend is rounded (GEMM inputs, the weights' bf16
// copy LAMB writes, attention's dropped probabilities): nearest even, NaN stays a quiet NaN, subnormal
// inputs become signed zero. That is AVX512-BF16's vcvtneps2bf16, which round_to_bf16 uses when the
// CPU has it (every CPU the bf16 precision accepts does); bf16_bits and the loop elsewhere give the
// same bits.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bert::cpu {

inline uint16_t bf16_bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  const bool nan = (u & 0x7fffffffu) > 0x7f800000u, subnormal = (u & 0x7f800000u) == 0;
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  return static_cast<uint16_t>(nan ? (u >> 16) | 0x40u : subnormal ? (u >> 16) & 0x8000u : rounded);
}

void round_to_bf16(const float* x, uint16_t* y, size_t n);
// bf16 bits → float (exact: the bits become the float's upper half).
void widen_bf16(const uint16_t* x, float* y, size_t n);

// The same bits, written past the cache (non-temporal stores) where they fill whole lines: for a copy
// nothing reads before it has left the cache anyway (LAMB's copy of the weights). Those stores are
// weakly ordered: the writing thread calls stream_fence() before another thread may read y.
void round_to_bf16_stream(const float* x, uint16_t* y, size_t n);
void stream_fence();

// The plain loop alone (tests compare the two paths).
void round_to_bf16_loop(const float* x, uint16_t* y, size_t n);
bool round_to_bf16_is_native();

}  // namespace bert::cpu
