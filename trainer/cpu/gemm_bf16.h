// Row-major GEMM with bf16 operands and fp32 accumulation through oneDNN's matmul (AMX or avx512_bf16
// kernels): C = alpha·op(A)·op(B) + beta·C. The backend's `run.precision: bf16`.
#pragma once
#include <cstdint>
#include <string>

#include "trainer/cpu/operand.h"

namespace bert::cpu {

// A, B and C each in fp32 or bf16 memory (operand.h): a bf16 one is read or written as is (C rounded
// from the fp32 accumulators as bf16_round.h rounds), an fp32 A or B is rounded first (or read from its
// registered copy, below). With `bias` (fp32, n), oneDNN adds it to every row of the product as it
// writes C (beta must be 0).
void gemm_bf16(bool ta, bool tb, int m, int n, int k, float alpha, Operand a, int lda, Operand b, int ldb,
               float beta, Output c, int ldc, const float* bias = nullptr);

// Whether this CPU has bf16 matrix instructions oneDNN uses (avx512_bf16 or AMX-BF16); `isa` gets
// oneDNN's name of the instruction set it will use. gemm_bf16 on a CPU without them throws
// std::runtime_error with bf16_matmul_refused's line (oneDNN's own error is a dnnl::error).
bool cpu_has_bf16_matmul(std::string* isa = nullptr);
std::string bf16_matmul_refused(const char* onednn_message);

// fp32 → bf16 bits as bf16_round.h rounds them; OpenMP threads over large n.
void to_bf16(const float* x, uint16_t* y, size_t n);

// Registers `bf16`, the bf16 rounding of the fp32 buffer [base, base + n): gemm_bf16 reads an operand
// lying inside a registered buffer from its copy instead of rounding it at every call. Use Bf16Copy
// (bf16_copy.h), which keeps the two in step. Process-wide (one model per process); the calling
// thread only (the model's GEMMs are issued from one thread).
void add_bf16_copy(const float* base, size_t n, const uint16_t* bf16);
void remove_bf16_copy(const float* base);

}  // namespace bert::cpu
