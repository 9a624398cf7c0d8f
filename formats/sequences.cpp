#include "formats/sequences.h"

namespace bert::data {

void SequenceSet::append(const int16_t* ids, const int8_t* seg, int len, const int16_t* pos,
                         const int16_t* mids, int n_masked, int8_t nsp) {
  input_ids.insert(input_ids.end(), ids, ids + len);
  segment_ids.insert(segment_ids.end(), seg, seg + len);
  tok_off.push_back(static_cast<int64_t>(input_ids.size()));
  mlm_positions.insert(mlm_positions.end(), pos, pos + n_masked);
  mlm_ids.insert(mlm_ids.end(), mids, mids + n_masked);
  mlm_off.push_back(static_cast<int64_t>(mlm_positions.size()));
  nsp_labels.push_back(nsp);
}

void SequenceSet::append(const SequenceSet& o, int64_t i) {
  append(o.input_ids.data() + o.tok_off[i], o.segment_ids.data() + o.tok_off[i], o.length(i),
         o.mlm_positions.data() + o.mlm_off[i], o.mlm_ids.data() + o.mlm_off[i], o.num_masked(i),
         o.nsp_labels[i]);
}

void SequenceSet::reserve(int64_t sequences, int64_t tokens, int64_t masked) {
  input_ids.reserve(tokens);
  segment_ids.reserve(tokens);
  tok_off.reserve(sequences + 1);
  mlm_positions.reserve(masked);
  mlm_ids.reserve(masked);
  mlm_off.reserve(sequences + 1);
  nsp_labels.reserve(sequences);
}

}  // namespace bert::data
