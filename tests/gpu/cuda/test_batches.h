// Batches for the CUDA model tests, in the Batch contract of trainer/data/batch.h: each row holds
// the given sequence lengths back to back (one = padded row, several = a pack), random ids, ~15% of
// the non-[CLS] positions masked, the row's padding belonging to its last sequence.
#pragma once
#include <random>
#include <vector>

#include "trainer/data/batch.h"

namespace bert::cuda::test {

inline data::Batch make_batch(int seq_len, const std::vector<std::vector<int>>& rows, int vocab, uint64_t seed) {
  std::mt19937_64 g(seed);
  data::Batch b;
  b.rows = static_cast<int>(rows.size());
  b.seq_len = seq_len;
  const int n = b.rows * seq_len;
  b.input_ids.assign(n, 0);
  b.segment_ids.assign(n, 0);
  b.input_mask.assign(n, 0);
  b.position_ids.assign(n, 0);
  b.cu_seqlens.push_back(0);
  for (int r = 0; r < b.rows; ++r) {
    int at = r * seq_len;
    b.packed = b.packed || rows[r].size() > 1;
    for (size_t k = 0; k < rows[r].size(); ++k) {
      const int len = rows[r][k];
      const int s = b.num_sequences++;
      b.seq_row.push_back(r);
      b.seq_first_token.push_back(at);
      b.seq_lengths.push_back(len);
      b.nsp_labels.push_back(static_cast<int8_t>(g() % 2));
      for (int i = 0; i < len; ++i) {
        b.input_ids[at + i] = 1 + static_cast<int32_t>(g() % (vocab - 1));
        b.segment_ids[at + i] = i > len / 2 ? 1 : 0;
        b.input_mask[at + i] = 1;
        b.position_ids[at + i] = i;
        if (i > 0 && g() % 100 < 15) {
          b.mlm_token_index.push_back(at + i);
          b.mlm_label_ids.push_back(1 + static_cast<int32_t>(g() % (vocab - 1)));
          b.mlm_sequence.push_back(s);
        }
      }
      at += len;
      b.cu_seqlens.push_back(k + 1 == rows[r].size() ? (r + 1) * seq_len : at);
    }
  }
  return b;
}

}  // namespace bert::cuda::test
