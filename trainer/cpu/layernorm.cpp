#include "trainer/cpu/layernorm.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "trainer/cpu/vec_math.h"

namespace bert::cpu {

namespace {

// Rows per partial sum of dgamma/dbeta: fixed, so the sums do not depend on the thread count.
constexpr int kRowChunk = 32;

BERT_CPU_CLONES void forward_row(const float* x, const float* gamma, const float* beta, float* y, int n, float& mean,
                                 float& rstd) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int j = 0; j < n; ++j) s += x[j];
  const float mu = static_cast<float>(s / n);
  double v = 0;
#pragma omp simd reduction(+ : v)
  for (int j = 0; j < n; ++j) {
    const float d = x[j] - mu;
    v += static_cast<double>(d) * d;
  }
  const float rs = static_cast<float>(1.0 / std::sqrt(v / n + kLayerNormEps));
#pragma omp simd
  for (int j = 0; j < n; ++j) y[j] = (x[j] - mu) * rs * gamma[j] + beta[j];
  mean = mu;
  rstd = rs;
}

// dx of one row, and the row's terms of dgamma/dbeta added into the chunk's double partials.
BERT_CPU_CLONES void backward_row(const float* x, const float* gamma, float mu, float rs, const float* dy, float* dx,
                                  double* pg, double* pb, int n) {
  double sum_g = 0, sum_gx = 0;
#pragma omp simd reduction(+ : sum_g, sum_gx)
  for (int j = 0; j < n; ++j) {
    const float xhat = (x[j] - mu) * rs;
    const float g = dy[j] * gamma[j];
    sum_g += g;
    sum_gx += static_cast<double>(g) * xhat;
    pg[j] += static_cast<double>(dy[j]) * xhat;
    pb[j] += dy[j];
  }
  const float mg = static_cast<float>(sum_g / n), mgx = static_cast<float>(sum_gx / n);
#pragma omp simd
  for (int j = 0; j < n; ++j) dx[j] = rs * (dy[j] * gamma[j] - mg - (x[j] - mu) * rs * mgx);
}

}  // namespace

void layernorm_forward(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                       int t, int n) {
#pragma omp parallel for schedule(static)
  for (int r = 0; r < t; ++r)
    forward_row(x + static_cast<size_t>(r) * n, gamma, beta, y + static_cast<size_t>(r) * n, n, mean[r], rstd[r]);
}

// Row by row (contiguous), dgamma/dbeta as per-chunk partials summed in chunk order afterwards: the
// column-wise pass over all rows was strided (one cache line per element).
void layernorm_backward(const float* x, const float* gamma, const float* mean, const float* rstd, const float* dy,
                        float* dx, float* dgamma, float* dbeta, int t, int n, bool accumulate) {
  const int chunks = (t + kRowChunk - 1) / kRowChunk;
  thread_local std::vector<double> scratch;  // the calling thread's, kept across calls
  scratch.assign(static_cast<size_t>(chunks) * 2 * n, 0.0);
  double* const partial = scratch.data();  // [chunk][dgamma n | dbeta n], shared by the team
#pragma omp parallel for schedule(static)
  for (int c = 0; c < chunks; ++c) {
    double* pg = partial + static_cast<size_t>(c) * 2 * n;
    for (int r = c * kRowChunk; r < std::min(t, (c + 1) * kRowChunk); ++r) {
      const size_t at = static_cast<size_t>(r) * n;
      backward_row(x + at, gamma, mean[r], rstd[r], dy + at, dx + at, pg, pg + n, n);
    }
  }
#pragma omp parallel for schedule(static)
  for (int j = 0; j < n; ++j) {
    double dg = 0, db = 0;
    for (int c = 0; c < chunks; ++c) {
      dg += partial[static_cast<size_t>(c) * 2 * n + j];
      db += partial[static_cast<size_t>(c) * 2 * n + n + j];
    }
    dgamma[j] = (accumulate ? dgamma[j] : 0.0f) + static_cast<float>(dg);
    dbeta[j] = (accumulate ? dbeta[j] : 0.0f) + static_cast<float>(db);
  }
}

}  // namespace bert::cpu
