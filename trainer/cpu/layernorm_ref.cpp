// The plain-loop LayerNorm (per element in row order, double sums) the vectorised one is tested against.
#include "trainer/cpu/layernorm.h"

#include <cmath>

namespace bert::cpu {

void layernorm_forward_ref(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                       int t, int n) {
#pragma omp parallel for schedule(static)
  for (int r = 0; r < t; ++r) {
    const float* xr = x + static_cast<size_t>(r) * n;
    float* yr = y + static_cast<size_t>(r) * n;
    double s = 0;
    for (int j = 0; j < n; ++j) s += xr[j];
    const float mu = static_cast<float>(s / n);
    double v = 0;
    for (int j = 0; j < n; ++j) v += static_cast<double>(xr[j] - mu) * (xr[j] - mu);
    const float rs = static_cast<float>(1.0 / std::sqrt(v / n + kLayerNormEps));
    for (int j = 0; j < n; ++j) yr[j] = (xr[j] - mu) * rs * gamma[j] + beta[j];
    mean[r] = mu;
    rstd[r] = rs;
  }
}

void layernorm_backward_ref(const float* x, const float* gamma, const float* mean, const float* rstd, const float* dy,
                        float* dx, float* dgamma, float* dbeta, int t, int n) {
#pragma omp parallel for schedule(static)
  for (int r = 0; r < t; ++r) {
    const float* xr = x + static_cast<size_t>(r) * n;
    const float* dyr = dy + static_cast<size_t>(r) * n;
    float* dxr = dx + static_cast<size_t>(r) * n;
    double sum_g = 0, sum_gx = 0;
    for (int j = 0; j < n; ++j) {
      const float xhat = (xr[j] - mean[r]) * rstd[r];
      const float g = dyr[j] * gamma[j];
      sum_g += g;
      sum_gx += static_cast<double>(g) * xhat;
    }
    const float mg = static_cast<float>(sum_g / n), mgx = static_cast<float>(sum_gx / n);
    for (int j = 0; j < n; ++j) {
      const float xhat = (xr[j] - mean[r]) * rstd[r];
      dxr[j] = rstd[r] * (dyr[j] * gamma[j] - mg - xhat * mgx);
    }
  }
#pragma omp parallel for schedule(static)
  for (int j = 0; j < n; ++j) {
    double dg = 0, db = 0;
    for (int r = 0; r < t; ++r) {
      const size_t i = static_cast<size_t>(r) * n + j;
      dg += static_cast<double>(dy[i]) * (x[i] - mean[r]) * rstd[r];
      db += dy[i];
    }
    dgamma[j] += static_cast<float>(dg);
    dbeta[j] += static_cast<float>(db);
  }
}

}  // namespace bert::cpu
