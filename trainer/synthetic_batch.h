// In-memory batches for `trainer --benchmark`: full-length sequences (padded layout, one per row),
// 15% of tokens masked (at most max_pred), random token ids; deterministic from the seed.
#pragma once
#include <cstdint>

#include "trainer/data/batch.h"

namespace bert::trainer {

data::Batch make_synthetic_batch(int rows, int seq_len, int max_pred, int vocab_size, uint64_t seed);

}  // namespace bert::trainer
