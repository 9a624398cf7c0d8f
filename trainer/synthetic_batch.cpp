#include "trainer/synthetic_batch.h"

#include <algorithm>
#include <random>

namespace bert::trainer {

data::Batch make_synthetic_batch(int rows, int seq_len, int max_pred, int vocab_size, uint64_t seed) {
  std::mt19937_64 gen(seed);
  data::Batch b;
  b.rows = rows;
  b.seq_len = seq_len;
  b.num_sequences = rows;
  const size_t n = static_cast<size_t>(rows) * seq_len;
  b.input_ids.resize(n);
  b.segment_ids.assign(n, 0);
  b.input_mask.assign(n, 1);
  b.position_ids.resize(n);
  const int n_pred = std::min(max_pred, std::max(1, seq_len * 15 / 100));
  std::uniform_int_distribution<int> tok(5, std::max(5, vocab_size - 1));
  for (int r = 0; r < rows; ++r) {
    const int first = r * seq_len;
    for (int p = 0; p < seq_len; ++p) {
      b.input_ids[first + p] = tok(gen) % vocab_size;
      b.position_ids[first + p] = p;
      b.segment_ids[first + p] = p >= seq_len / 2;
    }
    b.cu_seqlens.push_back(first);
    b.seq_row.push_back(r);
    b.seq_first_token.push_back(first);
    b.seq_lengths.push_back(seq_len);
    b.nsp_labels.push_back(static_cast<int8_t>(gen() & 1));
    for (int m = 0; m < n_pred; ++m) {
      const int pos = 1 + m * (seq_len - 2) / n_pred;
      b.mlm_token_index.push_back(first + pos);
      b.mlm_label_ids.push_back(b.input_ids[first + pos]);
      b.mlm_sequence.push_back(r);
    }
  }
  b.cu_seqlens.push_back(static_cast<int32_t>(n));
  return b;
}

}  // namespace bert::trainer
