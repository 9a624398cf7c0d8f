// Dense layer with TF's [in, out] kernel: y[T,out] = x[T,in]·W + b.
// x, y and dy may be bf16 (operand.h) in bf16 runs: the activations the model keeps in bf16.
#pragma once
#include "trainer/cpu/gemm.h"
#include "trainer/cpu/operand.h"

namespace bert::cpu {

void linear_forward(Operand x, const float* w, const float* b, Output y, int t, int in, int out,
                    MatmulPrecision precision);
// dx = dy·Wᵀ (overwrites; skipped when dx is null); dW += xᵀ·dy; db += Σ_rows dy (accumulate false:
// dW, db = instead of +=). A bf16 dy comes with its column sums already in db from its producer (which
// summed the fp32 values before rounding them): db must be null then.
void linear_backward(Operand x, const float* w, Operand dy, float* dx, float* dw, float* db, int t, int in, int out,
                     MatmulPrecision precision, bool accumulate = true);
// db += column sums of dy[t, n] (accumulate false: db =).
void add_column_sums(const float* dy, float* db, int t, int n, bool accumulate = true);

}  // namespace bert::cpu
