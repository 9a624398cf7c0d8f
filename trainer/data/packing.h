// Packing sequences into rows of seq_len tokens, at most `max_per_pack` per row (NVIDIA uses 3).
// NVIDIA solves a packing mixture by NNLS over the global length histogram; this is best-fit
// decreasing per input set, which reaches the same ~2 sequences per pack on BERT-like lengths.
// Pack order is shuffled from the seed; sequences keep their masks (positions stay relative).
#pragma once
#include <cstdint>

#include "trainer/data/sequences.h"
#include "trainer/data/data_error.h"

namespace bert::data {

SequenceSet pack_sequences(const SequenceSet& in, int seq_len, int max_per_pack, uint64_t seed);

// Real tokens / (rows * seq_len): 1.0 = no padding.
double packing_efficiency(const SequenceSet& packed, int seq_len);

}  // namespace bert::data
