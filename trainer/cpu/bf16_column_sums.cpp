#include "trainer/cpu/bf16_column_sums.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "trainer/cpu/bf16_round.h"
#include "trainer/cpu/vec_math.h"

namespace bert::cpu {

namespace {

constexpr int kRows = 32;  // rows per task: its partial sums (n floats) stay in L1 while it reads them

BERT_CPU_CLONES void add_row(const float* x, float* acc, int n) {
#pragma omp simd
  for (int c = 0; c < n; ++c) acc[c] += x[c];
}

}  // namespace

void round_to_bf16_with_column_sums(const DyRow& row, int t, int n, uint16_t* y16, float* db, bool accumulate) {
  const int tasks = (t + kRows - 1) / kRows;
  thread_local std::vector<float> partial;  // the caller's: the pointer below is what the team shares
  partial.assign(static_cast<size_t>(tasks) * n, 0.0f);
  float* const sums = partial.data();
#pragma omp parallel for schedule(static) if (static_cast<long>(t) * n > (1L << 16))
  for (int task = 0; task < tasks; ++task) {
    thread_local std::vector<float> scratch;
    scratch.resize(static_cast<size_t>(n));
    float* acc = sums + static_cast<size_t>(task) * n;
    for (int r = task * kRows; r < std::min(t, (task + 1) * kRows); ++r) {
      const float* dy = row(r, scratch.data());
      round_to_bf16(dy, y16 + static_cast<size_t>(r) * n, static_cast<size_t>(n));
      add_row(dy, acc, n);
    }
  }
  // The tasks' sums in task order: the same bits at any thread count.
  if (!accumulate) std::fill(db, db + n, 0.0f);
  for (int task = 0; task < tasks; ++task) add_row(sums + static_cast<size_t>(task) * n, db, n);
}

void round_to_bf16_with_column_sums(const float* dy, int t, int n, uint16_t* y16, float* db, bool accumulate) {
  round_to_bf16_with_column_sums([&](int r, float*) { return dy + static_cast<size_t>(r) * n; }, t, n, y16, db,
                                 accumulate);
}

}  // namespace bert::cpu
