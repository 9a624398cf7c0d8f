// Packing sequences into rows ("packs") of at most seq_len tokens and max_per_pack sequences
// (NVIDIA uses 512 and 3: generate_packing_strategy.py --max_seq_per_sample 3 of its packed_data/ scripts). Sequences keep their masks (positions stay
// relative to the sequence); the pack order is shuffled from the seed.
//
// Two ways:
//  - pack_sequences: best-fit decreasing over one in-memory set (one shard). Used by
//    `bert-data synth --format packed` and `bert-data pack --per-shard`.
//  - the global packer (`bert-data pack`, default; dataset_tools.h pack_files_global): the solver
//    below works on the length HISTOGRAM of all input shards, never on sequences, so its cost
//    depends on seq_len, not on the 156.7M MLPerf sequences (~0.1 s for 512). Written from the
//    published idea of histogram packing (Graphcore's SPFHP: longest first, in bulk per pack shape;
//    NVIDIA's NNLS mixture), not from their code:
//      greedy pass  lengths longest first; each takes the fullest pack of <= 3 it can still form
//                   from the counts left (second and third partner each the longest that fits),
//                   and that choice is applied to as many copies as the counts allow;
//      pricing      at equal fill the partners with the lowest price win. Prices start at -1 (more
//                   sequences per pack: BERT-like data has more short sequences than two-per-pack
//                   fills can use). After each pass, every length loses 0.2 x the share of its
//                   sequences left in packs that are not full, so longer sequences take those as
//                   partners earlier; 100 passes at most (fewer once the bound is met), the best kept.
//    It is still a heuristic: fill comes first, so e.g. {6 x4, 4 x4, 1 x9} into 10 gives 7 packs
//    ([6,4] x4, [1,1,1] x3) where 6 exist. On bert-data synth lengths it is within 0.1% of the
//    token bound (dataset/README.md "Packing"). A max_per_pack above 3 is searched as 3.
//    The result is a list of strategies: a multiset of lengths and how many packs have it.
//
// How the global packer stays bounded in memory (MLPerf: 156.7M sequences, ~78M packs):
//   pass 1  reads only the lengths of each shard (read_lengths), one shard at a time, into the
//           histogram (seq_len+1 counters);
//   solve   strategies; one uint32 strategy id per pack (~0.3 GB), shuffled from the seed; walking
//           the packs in that order lists, per length, the slots (pack * max_per_pack + slot,
//           uint32: ~0.6 GB) that sequences of that length will fill; each length's slot list is
//           then shuffled from the seed, so which sequence of a length lands where is random;
//   pass 2  reads the shards again in the same order, one at a time (full validation); the j-th
//           sequence of length L goes to the j-th slot of L. Each sequence is appended, with its
//           pack and slot, to the spill file of the output shard owning that pack (buffers flushed
//           at a fixed budget), so no more than one input shard of token data is in memory;
//   pass 3  each spill file is read back, its records ordered by (pack, slot) and written as one
//           packed output shard; the spill file is deleted. One output shard in memory at a time.
// Every sequence is read once in pass 2 and lands in exactly one slot (MLPerf: each datum at most
// once). The spill files need about the dataset's size of disk next to the output.
#pragma once
#include <cstdint>
#include <vector>

#include "formats/sequences.h"
#include "formats/data_error.h"

namespace bert::data {

SequenceSet pack_sequences(const SequenceSet& in, int seq_len, int max_per_pack, uint64_t seed);

// Real tokens / (rows * seq_len): 1.0 = no padding.
double packing_efficiency(const SequenceSet& packed, int seq_len);

// One pack shape and how many packs have it; lengths in descending order.
struct PackStrategy {
  std::vector<int> lengths;
  int64_t count = 0;
  int tokens() const;
};

// hist[L] = number of sequences of length L (index 0 unused, size <= seq_len+1). Throws DataError
// for a count at a length > seq_len or a negative count. Identical shapes are merged; the
// strategies cover the histogram exactly.
std::vector<PackStrategy> solve_packing(const std::vector<int64_t>& hist, int seq_len, int max_per_pack);

int64_t count_packs(const std::vector<PackStrategy>& strategies);

// Lower bounds on the number of packs for a histogram (so upper bounds on sequences per pack):
//  tokens    ceil(total tokens / seq_len)
//  per_pack  ceil(sequences / max_per_pack)
//  long      sequences longer than seq_len/2 never share a pack with each other; one longer than
//            seq_len/3 shares with at most one such other, so with B longer than half and M in
//            (seq_len/3, seq_len/2]: B + ceil(max(0, M - B) / 2) (only when max_per_pack >= 2)
//  best      the largest of these.
struct PackingBounds {
  int64_t sequences = 0, tokens = 0;
  int64_t tokens_packs = 0, per_pack_packs = 0, long_packs = 0, best_packs = 0;
  double max_sequences_per_pack() const { return best_packs ? static_cast<double>(sequences) / best_packs : 0.0; }
};
PackingBounds packing_bounds(const std::vector<int64_t>& hist, int seq_len, int max_per_pack);

}  // namespace bert::data
