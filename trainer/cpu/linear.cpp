#include "trainer/cpu/linear.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "trainer/cpu/bf16_column_sums.h"
#include "trainer/cpu/bf16_copy.h"
#include "trainer/cpu/blas.h"
#include "trainer/cpu/gemm.h"

namespace bert::cpu {

void linear_forward(Operand x, const float* w, const float* b, Output y, int t, int in, int out, MatmulPrecision p) {
  gemm_bias(false, false, t, out, in, x, in, w, out, b, y, out, p);
}

namespace {

void products(Operand x, const float* w, Operand dy, float* dx, float* dw, int t, int in, int out, MatmulPrecision p,
              bool accumulate) {
  if (dx) gemm(false, true, t, in, out, 1.0f, dy, out, w, out, 0.0f, dx, in, p);
  gemm(true, false, in, out, t, 1.0f, x, in, dy, out, accumulate ? 1.0f : 0.0f, dw, out, p);
}

}  // namespace

void add_column_sums(const float* dy, float* db, int t, int n, bool accumulate) {
  if (t == 0) {
    if (!accumulate) std::fill(db, db + n, 0.0f);
    return;
  }
  std::vector<float> ones(static_cast<size_t>(t), 1.0f);
  blas_sgemv_t(t, n, 1.0f, dy, n, ones.data(), accumulate ? 1.0f : 0.0f, db);
}

void linear_backward(Operand x, const float* w, Operand dy, float* dx, float* dw, float* db, int t, int in, int out,
                     MatmulPrecision p, bool accumulate) {
  if (dy.bf16) {
    if (db) throw std::logic_error("linear_backward: a bf16 dy's column sums come from its producer (db must be null)");
    return products(x, w, dy, dx, dw, t, in, out, p, accumulate);
  }
  // bf16 runs: dy, read by both products, is rounded once, in the pass that sums its columns
  thread_local Bf16Copy dy16;
  const ScopedBf16 round_once(dy16, dy.f32, static_cast<size_t>(t) * out, p, [&](uint16_t* y16) {
    round_to_bf16_with_column_sums(dy.f32, t, out, y16, db, accumulate);
  });
  if (p != MatmulPrecision::bf16) add_column_sums(dy.f32, db, t, out, accumulate);
  products(x, w, dy, dx, dw, t, in, out, p, accumulate);
}

}  // namespace bert::cpu
