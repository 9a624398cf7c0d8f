// The double-precision reference of cross_entropy.cpp (two std::exp per logit), kept for its tests.
#include "trainer/cpu/cross_entropy.h"

#include <cmath>
#include <cstddef>

#include "trainer/cpu/cross_entropy_rows.h"

namespace bert::cpu {

CrossEntropyResult cross_entropy_ref(const float* logits, const int32_t* labels, int rows, int classes,
                                 float grad_scale, float* dlogits) {
  return cross_entropy_rows(logits, labels, rows, classes, dlogits, [&](const float* x, int label, float* g) {
    int best = 0;
    for (int c = 1; c < classes; ++c)
      if (x[c] > x[best]) best = c;
    const float mx = x[best];
    double sum = 0;
    for (int c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(x[c] - mx));
    const double log_z = std::log(sum) + mx;
    const CrossEntropyRow row{log_z - x[label], best == label};
    if (g) {
      for (int c = 0; c < classes; ++c)
        g[c] = grad_scale * static_cast<float>(std::exp(static_cast<double>(x[c]) - log_z));
      g[label] -= grad_scale;
    }
    return row;
  });
}

}  // namespace bert::cpu
