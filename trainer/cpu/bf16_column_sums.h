// A dense layer's dy read once in a bf16 backward: its bf16 rounding (for the dx and dW products) and
// its column sums (the bias gradient) in the same pass. Rows go in fixed blocks whose partial sums are
// added in block order, so the sums do not depend on the thread count.
#pragma once
#include <cstdint>

namespace bert::cpu {

// y16 = bf16(dy) ([t, n], row-major, as bf16_round.h rounds); db += Σ_rows dy (accumulate false: db =).
void round_to_bf16_with_column_sums(const float* dy, int t, int n, uint16_t* y16, float* db, bool accumulate);

}  // namespace bert::cpu
