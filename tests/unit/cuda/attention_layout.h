// A batch's attention layout, shared by the attention tests (the tile tests here, the GPU tests in
// tests/gpu/cuda): rows of seq_len tokens, each holding the given sequence lengths back to back, as the
// Batch's seq_first_token / seq_lengths (first_flat, lengths) and the CPU's compact offsets (start).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "trainer/cuda/attention_tiles.h"

namespace bert::cuda::test {

struct Layout {
  int seq_len, heads;
  std::vector<std::vector<int>> rows;  // each row's sequence lengths, back to back
  std::vector<int32_t> first_flat, lengths, start{0};
  Layout(int seq, int h, std::vector<std::vector<int>> r) : seq_len(seq), heads(h), rows(std::move(r)) {
    for (size_t i = 0; i < rows.size(); ++i) {
      int off = static_cast<int>(i) * seq_len;
      for (int len : rows[i]) {
        first_flat.push_back(off);
        lengths.push_back(len);
        start.push_back(start.back() + len);
        off += len;
      }
    }
  }
  int tokens() const { return static_cast<int>(rows.size()) * seq_len; }
  int hd() const { return heads * attn::D; }
  int num_seqs() const { return static_cast<int>(lengths.size()); }
  int max_len() const { return *std::max_element(lengths.begin(), lengths.end()); }
  bool in_sequence(int tok) const {
    for (int s = 0; s < num_seqs(); ++s)
      if (tok >= first_flat[s] && tok < first_flat[s] + lengths[s]) return true;
    return false;
  }
  // flat token of the compact row c (sequence order)
  template <class F>
  void for_each_token(F f) const {  // f(sequence, position, flat token, compact row)
    for (int s = 0; s < num_seqs(); ++s)
      for (int i = 0; i < lengths[s]; ++i) f(s, i, static_cast<size_t>(first_flat[s] + i), static_cast<size_t>(start[s] + i));
  }
};

}  // namespace bert::cuda::test
