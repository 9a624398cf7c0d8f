// GELU, tanh form (TF reference and NVIDIA): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
#pragma once
#include <cstddef>
#include <cstdint>

namespace bert::cpu {

// y16 (optional): y's bf16 rounding too, written in the same pass (bf16 runs: the GEMM operand).
void gelu_forward(const float* x, float* y, size_t n, uint16_t* y16 = nullptr);
// dx = dy·gelu'(x) (overwrites).
void gelu_backward(const float* x, const float* dy, float* dx, size_t n);
// The same with std::exp per element (gelu_ref.cpp): the reference the vectorized ones are tested against.
void gelu_forward_ref(const float* x, float* y, size_t n);
void gelu_backward_ref(const float* x, const float* dy, float* dx, size_t n);

}  // namespace bert::cpu
