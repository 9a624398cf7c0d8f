// Synthetic BERT pretraining batches for the throughput benchmark (and its PyTorch peer, which
// reads the same batches from a file written by --dump-batches).
//   padded: one full-length sequence per row (every token real: the dense seq-512 case)
//   packed: sequences with an MLPerf-like length distribution (mean ~254 tokens, see lengths()),
//           packed first-fit-decreasing into rows of seq_len tokens, at most 3 per pack; a batch's
//           packs are taken in the pool's mix of 1-, 2- and 3-sequence packs
// Masked tokens per sequence as the MLPerf generator: min(76, max(1, round(0.15 * len))).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trainer/data/batch.h"
#include "trainer/model/step_costs.h"

namespace bert::bench {

data::Batch make_padded_batch(int rows, int seq_len, int vocab, uint64_t seed);
data::Batch make_packed_batch(int rows, int seq_len, int vocab, uint64_t seed);

// The same sequences as `b` (packed or not), one per row of b.seq_len tokens from the row's start,
// padded: how a trainer without packing (MLPerf's reference, the PyTorch peer) runs them.
data::Batch padded_rows_of(const data::Batch& b);

// Real tokens, and Σ len² over sequences (attention work), of a batch.
int64_t real_tokens(const data::Batch& b);
int64_t sum_len_squared(const data::Batch& b);
// The useful work of a step on `b` (its real tokens) for model::step_costs.
model::StepShape real_step_shape(const data::Batch& b, int64_t params, bool fp8 = false);

// The batch as the JSON the PyTorch peers read (bench/peers/hf_bert.py, hf_bert_cpu.py).
nlohmann::json batch_json(const data::Batch& b);

}  // namespace bert::bench
