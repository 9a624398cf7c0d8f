// Row-major GEMM with bf16 operands and fp32 accumulation/result through oneDNN's matmul (AMX or
// avx512_bf16 kernels): C = alpha·op(A)·op(B) + beta·C with A, B, C in fp32 memory; A and B are
// rounded to bf16 (nearest even) into per-thread scratch first. The backend's `run.precision: bf16`.
#pragma once
#include <cstdint>
#include <string>

namespace bert::cpu {

void gemm_bf16(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
               float beta, float* c, int ldc);

// Whether this CPU has bf16 matrix instructions oneDNN uses (avx512_bf16 or AMX-BF16); `isa` gets
// oneDNN's name of the instruction set it will use.
bool cpu_has_bf16_matmul(std::string* isa = nullptr);

// fp32 → bf16 bits, round to nearest even (NaN stays NaN); OpenMP threads over large n.
void to_bf16(const float* x, uint16_t* y, size_t n);

// Registers `bf16`, the bf16 rounding of the fp32 buffer [base, base + n) (the model's weights):
// gemm_bf16 reads an operand lying inside it from the copy instead of rounding it at every call.
// The owner keeps the copy equal to to_bf16(base) (Bf16Weights: once per optimizer step) and clears
// it (nullptr) before either buffer goes away. One per process, like the matmul precision.
void set_bf16_mirror(const float* base, size_t n, const uint16_t* bf16);

}  // namespace bert::cpu
