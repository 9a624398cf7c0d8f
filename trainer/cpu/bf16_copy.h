// A bf16 copy of an fp32 buffer that bf16 GEMMs read instead of rounding the operand at every call
// (run.precision bf16), registered with gemm_bf16 while it is valid:
//   the model's weights: rounded once per optimizer step (LAMB writes the copy next to the fp32
//     update, Lamb::step's params_bf16), registered for the whole run (CpuBackend, cpu_step);
//   an activation or gradient read by several GEMMs in a row (a layer input by Q, K and V, a dense
//     layer's dy by its dx and dW products): rounded once, released after those calls.
// The owner keeps the copy equal to the rounding of the buffer while it is registered.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "trainer/cpu/gemm.h"

namespace bert::cpu {

class Bf16Copy {
 public:
  Bf16Copy() = default;
  ~Bf16Copy() { release(); }
  Bf16Copy(const Bf16Copy&) = delete;
  Bf16Copy& operator=(const Bf16Copy&) = delete;

  // Rounds x[0, n) into the copy (OpenMP threads) and registers it for that buffer.
  void refresh(const float* x, size_t n);
  // Registers the copy for x[0, n) and returns it for the caller to fill with x's rounding (a producer
  // that writes both in one pass), before any GEMM reads x.
  uint16_t* reserve(const float* x, size_t n);
  // Unregisters (the memory stays for the next refresh).
  void release();
  // The copy, for a writer that keeps it in step (Lamb::step); null before refresh().
  uint16_t* data() { return base_ ? copy_.data() : nullptr; }

 private:
  std::vector<uint16_t> copy_;
  const float* base_ = nullptr;
};

// Holds a Bf16Copy of x[0, n) for a scope when the GEMMs run in bf16 (precision bf16), else nothing.
// `slot` is the caller's reusable copy (e.g. a thread_local), so no fresh memory per call.
// With `fill`, the caller's producer writes the rounding into the buffer it is given (a pass that
// computes something else from x as well) instead of the plain rounding.
class ScopedBf16 {
 public:
  ScopedBf16(Bf16Copy& slot, const float* x, size_t n, MatmulPrecision precision,
             const std::function<void(uint16_t*)>& fill = nullptr);
  ~ScopedBf16();
  ScopedBf16(const ScopedBf16&) = delete;
  ScopedBf16& operator=(const ScopedBf16&) = delete;

 private:
  Bf16Copy* slot_ = nullptr;
};

}  // namespace bert::cpu
