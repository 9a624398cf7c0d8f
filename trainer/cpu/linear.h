// Dense layer with TF's [in, out] kernel: y[T,out] = x[T,in]·W + b.
#pragma once

namespace bert::cpu {

void linear_forward(const float* x, const float* w, const float* b, float* y, int t, int in, int out);
// dx = dy·Wᵀ (overwrites; skipped when dx is null); dW += xᵀ·dy; db += Σ_rows dy (accumulate false:
// dW, db = instead of +=).
void linear_backward(const float* x, const float* w, const float* dy, float* dx, float* dw, float* db, int t,
                     int in, int out, bool accumulate = true);
// db += column sums of dy[t, n] (accumulate false: db =).
void add_column_sums(const float* dy, float* db, int t, int n, bool accumulate = true);

}  // namespace bert::cpu
