#include "trainer/cpu/cross_entropy.h"

#include <cmath>
#include <cstddef>

#include "trainer/cpu/cross_entropy_rows.h"
#include "trainer/cpu/vec_math.h"

namespace bert::cpu {

namespace {

constexpr int kChunk = 256;

// One row: the max and first argmax, Σ e^(x−max) with one exp per logit (kept in g when the gradient
// is wanted), then g ← scale·e/Σ − scale·onehot. g may alias x.
BERT_CPU_CLONES CrossEntropyRow ce_row(const float* x, int label, int n, float grad_scale, float* g) {
  float mx = x[0];
#pragma omp simd reduction(max : mx)
  for (int c = 0; c < n; ++c) mx = x[c] > mx ? x[c] : mx;
  int best = 0;
  while (x[best] != mx) ++best;
  const float x_label = x[label];
  // Float lanes over chunks of 256, chunks added in double: a plain float sum over 30522 terms
  // drifts by ~1e-5 relative, the chunked one stays at the rounding of the exps.
  double sum = 0.0;
  if (g) {
    for (int c0 = 0; c0 < n; c0 += kChunk) {
      const int c1 = c0 + kChunk < n ? c0 + kChunk : n;
      float part = 0.0f;
#pragma omp simd reduction(+ : part)
      for (int c = c0; c < c1; ++c) {
        g[c] = exp_approx(x[c] - mx);
        part += g[c];
      }
      sum += part;
    }
    const float f = static_cast<float>(grad_scale / sum);
#pragma omp simd
    for (int c = 0; c < n; ++c) g[c] *= f;
    g[label] -= grad_scale;
  } else {
    for (int c0 = 0; c0 < n; c0 += kChunk) {
      const int c1 = c0 + kChunk < n ? c0 + kChunk : n;
      float part = 0.0f;
#pragma omp simd reduction(+ : part)
      for (int c = c0; c < c1; ++c) part += exp_approx(x[c] - mx);
      sum += part;
    }
  }
  return {std::log(sum) + mx - x_label, best == label};
}

}  // namespace

CrossEntropyResult cross_entropy(const float* logits, const int32_t* labels, int rows, int classes,
                                 float grad_scale, float* dlogits) {
  return cross_entropy_rows(logits, labels, rows, classes, dlogits, [&](const float* x, int label, float* g) {
    return ce_row(x, label, classes, grad_scale, g);
  });
}

}  // namespace bert::cpu
