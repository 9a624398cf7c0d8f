// A dense layer's dy read once in a bf16 backward: its bf16 rounding (for the dx and dW products) and
// its column sums (the bias gradient) in the same pass. Rows go in fixed blocks whose partial sums are
// added in block order, so the sums do not depend on the thread count.
#pragma once
#include <cstdint>
#include <functional>

namespace bert::cpu {

// y16 = bf16(dy) ([t, n], row-major, as bf16_round.h rounds); db += Σ_rows dy (accumulate false: db =).
void round_to_bf16_with_column_sums(const float* dy, int t, int n, uint16_t* y16, float* db, bool accumulate);
// The same for a dy computed row by row as it is rounded (it is never stored in fp32): row(r, scratch)
// returns row r of dy, n floats, written into `scratch` (the calling thread's, n floats) or lying elsewhere.
using DyRow = std::function<const float*(int r, float* scratch)>;
void round_to_bf16_with_column_sums(const DyRow& row, int t, int n, uint16_t* y16, float* db, bool accumulate);

}  // namespace bert::cpu
