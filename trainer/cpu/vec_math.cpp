#include "trainer/cpu/vec_math.h"

namespace bert::cpu {

BERT_CPU_CLONES void softmax_row(float* row, int n) {
  float mx = row[0];
#pragma omp simd reduction(max : mx)
  for (int j = 0; j < n; ++j) mx = row[j] > mx ? row[j] : mx;
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (int j = 0; j < n; ++j) {
    row[j] = exp_approx(row[j] - mx);
    sum += row[j];
  }
  const float inv = 1.0f / sum;
#pragma omp simd
  for (int j = 0; j < n; ++j) row[j] *= inv;
}

}  // namespace bert::cpu
