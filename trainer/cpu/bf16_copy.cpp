#include "trainer/cpu/bf16_copy.h"

#include "trainer/cpu/gemm.h"
#include "trainer/cpu/gemm_bf16.h"

namespace bert::cpu {

void Bf16Copy::refresh(const float* x, size_t n) {
  to_bf16(x, reserve(x, n), n);
}

uint16_t* Bf16Copy::reserve(const float* x, size_t n) {
  release();
  copy_.resize(n);
  add_bf16_copy(x, n, copy_.data());
  base_ = x;
  return copy_.data();
}

void Bf16Copy::release() {
  if (base_) remove_bf16_copy(base_);
  base_ = nullptr;
}

ScopedBf16::ScopedBf16(Bf16Copy& slot, const float* x, size_t n, MatmulPrecision precision,
                       const std::function<void(uint16_t*)>& fill) {
  if (precision != MatmulPrecision::bf16) return;
  if (fill)
    fill(slot.reserve(x, n));
  else
    slot.refresh(x, n);
  slot_ = &slot;
}

ScopedBf16::~ScopedBf16() {
  if (slot_) slot_->release();
}

}  // namespace bert::cpu
