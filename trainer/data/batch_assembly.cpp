#include "trainer/data/batch_assembly.h"

#include <algorithm>

#include "formats/data_error.h"
#include "trainer/data/loader.h"

namespace bert::data {

void assemble_rows(const RowRef* rows, int count, int seq_len, Batch& b) {
  const int64_t L = seq_len;
  b.rows = count;
  b.seq_len = seq_len;
  b.packed = count > 0 && rows[0].set->packed();
  const size_t tokens = static_cast<size_t>(count) * L;
  b.input_ids.assign(tokens, 0);
  b.segment_ids.assign(tokens, 0);
  b.input_mask.assign(tokens, 0);
  b.position_ids.assign(tokens, 0);
  b.cu_seqlens.clear();
  b.seq_row.clear();
  b.seq_first_token.clear();
  b.seq_lengths.clear();
  b.nsp_labels.clear();
  b.mlm_token_index.clear();
  b.mlm_label_ids.clear();
  b.mlm_sequence.clear();
  for (int r = 0; r < count; ++r) {
    const SequenceSet& s = *rows[r].set;
    const int64_t first = s.packed() ? s.pack_off[rows[r].unit] : rows[r].unit;
    const int64_t last = s.packed() ? s.pack_off[rows[r].unit + 1] : rows[r].unit + 1;
    int64_t at = r * L;
    for (int64_t i = first; i < last; ++i) {
      const int len = s.length(i);
      if (at + len > (r + 1) * L) throw DataError("batch assembly: sequence or pack longer than seq_len");
      const int seq = static_cast<int>(b.nsp_labels.size());
      std::copy_n(s.input_ids.data() + s.tok_off[i], len, b.input_ids.data() + at);
      std::copy_n(s.segment_ids.data() + s.tok_off[i], len, b.segment_ids.data() + at);
      std::fill_n(b.input_mask.data() + at, len, int8_t{1});
      for (int t = 0; t < len; ++t) b.position_ids[at + t] = t;
      // The first sequence of a row starts its tiling range at the row start (== at).
      b.cu_seqlens.push_back(static_cast<int32_t>(at));
      b.seq_row.push_back(r);
      b.seq_first_token.push_back(static_cast<int32_t>(at));
      b.seq_lengths.push_back(len);
      b.nsp_labels.push_back(s.nsp_labels[i]);
      for (int64_t m = s.mlm_off[i]; m < s.mlm_off[i + 1]; ++m) {
        b.mlm_token_index.push_back(static_cast<int32_t>(at + s.mlm_positions[m]));
        b.mlm_label_ids.push_back(s.mlm_ids[m]);
        b.mlm_sequence.push_back(seq);
      }
      at += len;
    }
  }
  b.num_sequences = static_cast<int>(b.nsp_labels.size());
  b.cu_seqlens.push_back(static_cast<int32_t>(tokens));
}

void assemble_batch(const SequenceSet& seqs, const int64_t* order, int64_t first, int count, int seq_len,
                    Batch& batch) {
  std::vector<RowRef> rows(static_cast<size_t>(count));
  for (int r = 0; r < count; ++r) rows[r] = {&seqs, order ? order[first + r] : first + r};
  assemble_rows(rows.data(), count, seq_len, batch);
}

}  // namespace bert::data
