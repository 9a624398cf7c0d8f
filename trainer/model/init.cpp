#include "trainer/model/init.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace bert::model {

void init_params(const ParamLayout& layout, uint64_t seed, std::vector<float>& params) {
  params.assign(layout.total, 0.0f);
  const float stddev = layout.config.initializer_range;
  for (size_t t = 0; t < layout.tensors.size(); ++t) {
    const ParamInfo& p = layout.tensors[t];
    float* w = params.data() + p.offset;
    if (p.is_gamma) {
      std::fill(w, w + p.size, 1.0f);
    } else if (p.is_matrix) {
      // One engine per tensor (seeded by seed and tensor index) so each tensor's values do not
      // depend on the others' sizes.
      std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(t)};
      std::mt19937_64 gen(seq);
      std::normal_distribution<float> normal(0.0f, 1.0f);
      for (size_t i = 0; i < p.size; ++i) {
        float z;
        do z = normal(gen);
        while (std::fabs(z) > 2.0f);
        w[i] = z * stddev;
      }
    }
  }
}

}  // namespace bert::model
