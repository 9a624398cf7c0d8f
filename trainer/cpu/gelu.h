// GELU, tanh form (TF reference and NVIDIA): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
#pragma once
#include <cstddef>
#include <cstdint>

namespace bert::cpu {

void gelu_forward(const float* x, float* y, size_t n);
// dx = dy·gelu'(x) (overwrites).
void gelu_backward(const float* x, const float* dy, float* dx, size_t n);
// bf16 runs, the feed-forward block kept in bf16: y16 = bf16(gelu(x16)), in fp32 math.
void gelu_forward(const uint16_t* x16, uint16_t* y16, size_t n);
// dx16 = bf16(dy·gelu'(x16)) over [rows, cols], and db += the column sums of dy·gelu'(x16) before rounding
// (accumulate false: db =): the bias gradient of the dense layer whose output x16 is
// (bf16_column_sums.h; the same bits at any thread count).
void gelu_backward(const uint16_t* x16, const float* dy, uint16_t* dx16, float* db, int rows, int cols,
                   bool accumulate);
// The same with std::exp per element (gelu_ref.cpp): the reference the vectorized ones are tested against.
void gelu_forward_ref(const float* x, float* y, size_t n);
void gelu_backward_ref(const float* x, const float* dy, float* dx, size_t n);

}  // namespace bert::cpu
