// Row-major GEMM with bf16 operands and fp32 accumulation/result through oneDNN's matmul (AMX or
// avx512_bf16 kernels): C = alpha·op(A)·op(B) + beta·C with A, B, C in fp32 memory; A and B are
// rounded to bf16 (bf16_round.h) into per-thread scratch first. The backend's `run.precision: bf16`.
#pragma once
#include <cstdint>
#include <string>

namespace bert::cpu {

void gemm_bf16(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
               float beta, float* c, int ldc);
// The same with A already in bf16 (an operand its producer wrote as bf16, e.g. attention's dropped
// probabilities): read as is, no rounding.
void gemm_bf16(bool ta, bool tb, int m, int n, int k, float alpha, const uint16_t* a, int lda, const float* b, int ldb,
               float beta, float* c, int ldc);
// C = op(A)·op(B) + bias, the fp32 bias[n] added to every row in oneDNN's epilogue (no pass over C first).
void gemm_bf16_bias(bool ta, bool tb, int m, int n, int k, const float* a, int lda, const float* b, int ldb,
                    const float* bias, float* c, int ldc);

// Whether this CPU has bf16 matrix instructions oneDNN uses (avx512_bf16 or AMX-BF16); `isa` gets
// oneDNN's name of the instruction set it will use.
bool cpu_has_bf16_matmul(std::string* isa = nullptr);

// fp32 → bf16 bits as bf16_round.h rounds them; OpenMP threads over large n.
void to_bf16(const float* x, uint16_t* y, size_t n);

// Registers `bf16`, the bf16 rounding of the fp32 buffer [base, base + n): gemm_bf16 reads an operand
// lying inside a registered buffer from its copy instead of rounding it at every call. Use Bf16Copy
// (bf16_copy.h), which keeps the two in step. Process-wide, like the matmul precision; the calling
// thread only (the model's GEMMs are issued from one thread).
void add_bf16_copy(const float* base, size_t n, const uint16_t* bf16);
void remove_bf16_copy(const float* base);

}  // namespace bert::cpu
