// Random initialisation from the seed, as BERT does it: matrices (kernels, embeddings, NSP weights)
// from a normal(0, initializer_range) truncated at 2 standard deviations; LayerNorm gamma = 1;
// biases and beta = 0. Deterministic for a seed and independent of thread count.
#pragma once
#include <cstdint>
#include <vector>

#include "trainer/model/params.h"

namespace bert::model {

void init_params(const ParamLayout& layout, uint64_t seed, std::vector<float>& params);

}  // namespace bert::model
