#include "trainer/optim/lamb.h"

#include <cmath>

namespace bert::optim {

double global_grad_norm(const model::ParamLayout& layout, const float* grads) {
  const size_t n = layout.total;
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (size_t i = 0; i < n; ++i) s += static_cast<double>(grads[i]) * grads[i];
  return std::sqrt(s);
}

Lamb::Lamb(const model::ParamLayout& layout, LambHyper hyper)
    : layout_(layout), h_(hyper), m_(layout.total, 0.0f), v_(layout.total, 0.0f), u_(layout.total, 0.0f) {}

void Lamb::step(float* params, const float* grads, double lr, double grad_factor) {
  ++t_;
  const double b1 = h_.beta1, b2 = h_.beta2;
  const double c1 = 1.0 - std::pow(b1, static_cast<double>(t_)), c2 = 1.0 - std::pow(b2, static_cast<double>(t_));
  for (const model::ParamInfo& p : layout_.tensors) {
    float* w = params + p.offset;
    const float* g = grads + p.offset;
    float* m = m_.data() + p.offset;
    float* v = v_.data() + p.offset;
    float* u = u_.data() + p.offset;
    const double wd = p.no_decay ? 0.0 : h_.weight_decay;
    double wn2 = 0, un2 = 0;
    const auto n = static_cast<int64_t>(p.size);
#pragma omp parallel for schedule(static) reduction(+ : wn2, un2)
    for (int64_t i = 0; i < n; ++i) {
      const double gi = g[i] * grad_factor;
      const double mi = b1 * m[i] + (1.0 - b1) * gi;
      const double vi = b2 * v[i] + (1.0 - b2) * gi * gi;
      m[i] = static_cast<float>(mi);
      v[i] = static_cast<float>(vi);
      const double ui = (mi / c1) / (std::sqrt(vi / c2) + h_.eps) + wd * w[i];
      u[i] = static_cast<float>(ui);
      wn2 += static_cast<double>(w[i]) * w[i];
      un2 += ui * ui;
    }
    const double wn = std::sqrt(wn2), un = std::sqrt(un2);
    const double r = (!p.no_decay && wn > 0 && un > 0) ? wn / un : 1.0;
    const double scale = lr * r;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) w[i] = static_cast<float>(w[i] - scale * u[i]);
  }
}

}  // namespace bert::optim
