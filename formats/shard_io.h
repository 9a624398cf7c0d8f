// MLPerf BERT HDF5 shards (the layouts: formats/README.md), read with the HDF5 C API (written by
// shard_write.h).
//
//  fixed      input_ids (N,L) i2, input_mask (N,L) i1, segment_ids (N,L) i1,
//             masked_lm_positions (N,P) i2, masked_lm_ids (N,P) i2, next_sentence_labels (N,) i1
//  varlength  input_ids, segment_ids, masked_lm_positions, masked_lm_ids: (N,) vlen i2/i1/i2/i2;
//             next_sentence_labels (N,) i1
//  packed     (N_packs,) all vlen: input_ids i2, segment_ids i1, packed_input_len i2,
//             masked_lm_positions i2 (offset into the pack), masked_lm_ids i2,
//             packed_masked_lm_len i2, next_sentence_labels i1
//
// Reading checks dataset presence, rank, shape and dtype, then every value: ids < vocab, segment
// ids 0/1, mask a prefix of ones, positions ascending in [1, length), lengths consistent, pack
// totals <= seq_len. The first problem throws DataError "FILE: dataset D, sample I: ...".
// HDF5's own error printing is silenced; a truncated or corrupt file is a DataError, never a crash.
#pragma once
#include <string>
#include <vector>

#include "formats/data_error.h"
#include "formats/sequences.h"
#include "formats/shard_format.h"

namespace bert::data {

struct Limits {
  int vocab_size = 30522;
  int seq_len = 512;   // fixed: must equal the file's L; others: maximum real (or pack) length
  int max_pred = 76;   // fixed: must equal the file's P; others: maximum masked per sequence
};

// Layout of an existing file from its dataset names and types.
Format detect_format(const std::string& path);

// Reads samples [first, first+count) (count < 0: to the end) of any layout, validated. For packed
// files `first`/`count` count packs. `layout` (optional) receives the file's layout.
SequenceSet read_shard(const std::string& path, const Limits& limits, int64_t first = 0,
                       int64_t count = -1, Format* layout = nullptr);
// The real length of every sequence of an unpacked (fixed or varlength) file, reading only
// input_ids (varlength) or input_mask (fixed); each is checked to be in [1, limits.seq_len].
// A packed file is a DataError ("needs unpacked ...").
std::vector<int16_t> read_lengths(const std::string& path, const Limits& limits);
// Number of samples (packs for packed files) without reading the data.
int64_t count_samples(const std::string& path);

struct ShardInfo {
  Format format = Format::varlength;
  int64_t samples = 0;  // packs for packed files
  int width = 0;        // fixed: the padded sequence length L (0 otherwise)
  int mlm_width = 0;    // fixed: the padded masked-LM width P (0 otherwise)
};
ShardInfo shard_info(const std::string& path);  // structure only, no values read

// Training shards of a directory in name order (regular files named part*; .chk/.tmp ignored).
std::vector<std::string> list_shards(const std::string& dir);

}  // namespace bert::data
