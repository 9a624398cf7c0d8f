// The MLCommons reference's pretraining TFRecords (its create_pretraining_data.py output and the
// published files): per record a tf.train.Example with input_ids, input_mask, segment_ids
// (int64 x L), masked_lm_positions, masked_lm_ids (int64 x P), masked_lm_weights (float x P) and
// next_sentence_labels (int64 x 1). Read into sequences with every value checked (same rules as
// the HDF5 readers, plus: weights 1 exactly where a position is set); the first problem is a
// DataError "FILE: record R (byte offset O): feature F: ...".
#pragma once
#include <string>

#include "formats/sequences.h"
#include "formats/shard_io.h"

namespace bert::data {

struct TFRecordShape {
  int seq_len = 0;   // L of the records
  int max_pred = 0;  // P of the records
};

// `limits.seq_len` / `max_pred` of 0 accept the width of the first record (all must agree).
SequenceSet read_mlperf_tfrecord(const std::string& path, const Limits& limits, TFRecordShape* shape = nullptr);

}  // namespace bert::data
