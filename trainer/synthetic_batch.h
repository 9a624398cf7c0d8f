// In-memory batches for `trainer --benchmark`: full-length sequences (padded layout, one per row),
// 15% of tokens masked (at most max_pred), random token ids; deterministic from the seed.
#pragma once
#include <cstdint>

#include "trainer/data/batch.h"

namespace bert::trainer {

// Row r depends only on (seed, r): a batch of N rows starts with the rows of a batch of M < N rows.
data::Batch make_synthetic_batch(int rows, int seq_len, int max_pred, int vocab_size, uint64_t seed);

// Rows [first, first + count) of a padded (one sequence per row) batch, renumbered from 0.
data::Batch slice_rows(const data::Batch& b, int first, int count);

}  // namespace bert::trainer
