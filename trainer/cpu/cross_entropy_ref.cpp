// The double-precision reference of cross_entropy.cpp (two std::exp per logit), kept for its tests.
#include "trainer/cpu/cross_entropy.h"

#include <cmath>
#include <cstddef>

namespace bert::cpu {

CrossEntropyResult cross_entropy_ref(const float* logits, const int32_t* labels, int rows, int classes,
                                 float grad_scale, float* dlogits) {
  double loss = 0;
  int64_t correct = 0;
#pragma omp parallel for schedule(static) reduction(+ : loss, correct)
  for (int r = 0; r < rows; ++r) {
    const float* x = logits + static_cast<size_t>(r) * classes;
    int best = 0;
    for (int c = 1; c < classes; ++c)
      if (x[c] > x[best]) best = c;
    const float mx = x[best];
    double sum = 0;
    for (int c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(x[c] - mx));
    const double log_z = std::log(sum) + mx;
    loss += log_z - x[labels[r]];
    correct += best == labels[r];
    if (dlogits) {
      float* g = dlogits + static_cast<size_t>(r) * classes;
      for (int c = 0; c < classes; ++c)
        g[c] = grad_scale * static_cast<float>(std::exp(static_cast<double>(x[c]) - log_z));
      g[labels[r]] -= grad_scale;
    }
  }
  return {loss, correct};
}

}  // namespace bert::cpu
