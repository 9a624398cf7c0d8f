// A GEMM operand or result in fp32 or bf16 memory: bf16 runs keep some activations in bf16 only (the
// feed-forward block's), which products read and write as they are. Converts implicitly from either
// pointer type, so fp32 callers pass plain pointers.
#pragma once
#include <cstddef>
#include <cstdint>

namespace bert::cpu {

struct Operand {
  const float* f32 = nullptr;
  const uint16_t* bf16 = nullptr;
  Operand(const float* p) : f32(p) {}     // NOLINT(google-explicit-constructor)
  Operand(const uint16_t* p) : bf16(p) {}  // NOLINT(google-explicit-constructor)
  Operand operator+(size_t elements) const { return f32 ? Operand(f32 + elements) : Operand(bf16 + elements); }
};

struct Output {
  float* f32 = nullptr;
  uint16_t* bf16 = nullptr;
  Output(float* p) : f32(p) {}     // NOLINT(google-explicit-constructor)
  Output(uint16_t* p) : bf16(p) {}  // NOLINT(google-explicit-constructor)
  Output operator+(size_t elements) const { return f32 ? Output(f32 + elements) : Output(bf16 + elements); }
};

}  // namespace bert::cpu
