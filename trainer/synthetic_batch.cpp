#include "trainer/synthetic_batch.h"

#include <algorithm>
#include <random>
#include <vector>

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
      b.input_ids[first + pos] = std::min(103, vocab_size - 1);  // [MASK]
    }
  }
  b.cu_seqlens.push_back(static_cast<int32_t>(n));
  return b;
}



data::Batch slice_rows(const data::Batch& b, int first, int count) {
  data::Batch out;
  out.rows = count;
  out.seq_len = b.seq_len;
  const size_t lo = static_cast<size_t>(first) * b.seq_len, hi = static_cast<size_t>(first + count) * b.seq_len;
  out.input_ids.assign(b.input_ids.begin() + lo, b.input_ids.begin() + hi);
  out.segment_ids.assign(b.segment_ids.begin() + lo, b.segment_ids.begin() + hi);
  out.input_mask.assign(b.input_mask.begin() + lo, b.input_mask.begin() + hi);
  out.position_ids.assign(b.position_ids.begin() + lo, b.position_ids.begin() + hi);
  const auto shift = static_cast<int32_t>(lo);
  std::vector<int32_t> new_index(static_cast<size_t>(b.num_sequences), -1);
  for (int s = 0; s < b.num_sequences; ++s) {
    if (b.seq_row[s] < first || b.seq_row[s] >= first + count) continue;
    new_index[s] = static_cast<int32_t>(out.seq_row.size());
    out.seq_row.push_back(b.seq_row[s] - first);
    out.seq_first_token.push_back(b.seq_first_token[s] - shift);
    out.cu_seqlens.push_back(b.seq_first_token[s] - shift);
    out.seq_lengths.push_back(b.seq_lengths[s]);
    out.nsp_labels.push_back(b.nsp_labels[s]);
  }
  out.num_sequences = static_cast<int>(out.seq_row.size());
  out.cu_seqlens.push_back(static_cast<int32_t>(hi - lo));
  for (int m = 0; m < b.num_masked(); ++m) {
    if (new_index[b.mlm_sequence[m]] < 0) continue;
    out.mlm_token_index.push_back(b.mlm_token_index[m] - shift);
    out.mlm_label_ids.push_back(b.mlm_label_ids[m]);
    out.mlm_sequence.push_back(new_index[b.mlm_sequence[m]]);
  }
  return out;
}

}  // namespace bert::trainer
