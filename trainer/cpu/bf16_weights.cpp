#include "trainer/cpu/bf16_weights.h"

#include "trainer/cpu/gemm_bf16.h"

namespace bert::cpu {

Bf16Weights::~Bf16Weights() {
  if (!copy_.empty()) set_bf16_mirror(nullptr, 0, nullptr);
}

void Bf16Weights::refresh(const float* params, size_t n) {
  copy_.resize(n);
  to_bf16(params, copy_.data(), n);
  set_bf16_mirror(params, n, copy_.data());
}

}  // namespace bert::cpu
