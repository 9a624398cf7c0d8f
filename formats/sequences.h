// Sequences of one shard in memory, independent of the on-disk layout: every reader produces it
// and every writer consumes it. Flat (CSR) arrays, so a shard of 36k sequences is a handful of
// allocations. Token ids are int16 as on disk (vocab 30522 < 32767).
#pragma once
#include <cstdint>
#include <vector>

namespace bert::data {

struct SequenceSet {
  // Sequence i: real tokens [tok_off[i], tok_off[i+1]) of input_ids/segment_ids ([CLS] A [SEP] B [SEP]).
  std::vector<int16_t> input_ids;
  std::vector<int8_t> segment_ids;
  std::vector<int64_t> tok_off{0};
  // Sequence i: masked tokens [mlm_off[i], mlm_off[i+1]); positions are relative to the sequence,
  // ascending, never 0.
  std::vector<int16_t> mlm_positions;
  std::vector<int16_t> mlm_ids;
  std::vector<int64_t> mlm_off{0};
  std::vector<int8_t> nsp_labels;  // 0 = is next, 1 = random
  // Packed shards only: pack p holds sequences [pack_off[p], pack_off[p+1]). Empty when unpacked.
  std::vector<int64_t> pack_off;

  int64_t size() const { return static_cast<int64_t>(nsp_labels.size()); }
  bool packed() const { return !pack_off.empty(); }
  int64_t num_packs() const { return packed() ? static_cast<int64_t>(pack_off.size()) - 1 : size(); }
  int length(int64_t i) const { return static_cast<int>(tok_off[i + 1] - tok_off[i]); }
  int num_masked(int64_t i) const { return static_cast<int>(mlm_off[i + 1] - mlm_off[i]); }
  int64_t total_tokens() const { return static_cast<int64_t>(input_ids.size()); }

  // Appends sequence `i` of `other` (not its pack grouping).
  void append(const SequenceSet& other, int64_t i);
  // Appends one sequence from raw arrays.
  void append(const int16_t* ids, const int8_t* seg, int len, const int16_t* pos, const int16_t* mids,
              int n_masked, int8_t nsp);
  void reserve(int64_t sequences, int64_t tokens, int64_t masked);
};

}  // namespace bert::data
