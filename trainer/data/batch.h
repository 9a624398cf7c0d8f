// A training or eval batch as the model consumes it: the contract between trainer/data (loader)
// and the model backends (cpu/, cuda/). Tokens are laid out as rows of length `seq_len`.
//
// Padded layout (fixed-length or variable-length shards): one sequence per row.
// Packed layout (NVIDIA packed shards): up to 3 sequences per row; positions restart at 0 for
// every sequence and attention is block-diagonal, described by cu_seqlens over *sequences*.
// `num_sequences` counts sequences, never packs: samples always means sequences.
#pragma once
#include <cstdint>
#include <vector>

namespace bert::data {

struct Batch {
  int rows = 0;           // padded rows or packs
  int seq_len = 0;        // tokens per row (max_seq_length, e.g. 128 or 512)
  int num_sequences = 0;  // real sequences in the batch (== rows when not packed)
  bool packed = false;

  // rows * seq_len each; padding has input_ids = 0, input_mask = 0, segment_ids = 0.
  std::vector<int32_t> input_ids;
  std::vector<int8_t> segment_ids;
  std::vector<int8_t> input_mask;    // 1 = real token
  std::vector<int32_t> position_ids; // 0..len-1 per sequence (restarts inside a pack)

  // Sequences: sequence s occupies flat token range [cu_seqlens[s], cu_seqlens[s+1]) in the
  // rows*seq_len token array (row r starts at r*seq_len). size num_sequences + 1.
  // The ranges tile the array: cu_seqlens[0] = 0, cu_seqlens[num_sequences] = rows*seq_len, and
  // the padding at the end of a row belongs to the row's last sequence (input_mask = 0 there), so
  // block-diagonal attention over cu_seqlens plus key masking by input_mask is exact.
  // Real tokens of sequence s: [seq_first_token[s], seq_first_token[s] + seq_lengths[s]).
  std::vector<int32_t> cu_seqlens;
  std::vector<int32_t> seq_row;         // row of each sequence, size num_sequences
  std::vector<int32_t> seq_first_token; // flat index of each sequence's first token ([CLS])
  std::vector<int32_t> seq_lengths;     // real tokens of each sequence, size num_sequences
  std::vector<int8_t> nsp_labels;       // per sequence: 0 = is next, 1 = random

  // Masked LM targets, only at masked positions (the MLM head runs on these rows only).
  std::vector<int32_t> mlm_token_index;  // flat token index (row*seq_len + pos)
  std::vector<int32_t> mlm_label_ids;    // original token id
  std::vector<int32_t> mlm_sequence;     // which sequence each masked token belongs to

  int num_masked() const { return static_cast<int>(mlm_token_index.size()); }
};

}  // namespace bert::data
