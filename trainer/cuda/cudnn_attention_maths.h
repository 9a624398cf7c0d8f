// What cuDNN's fused attention is told about a batch, computed on the device each pass (so a captured
// graph runs every batch) by one definition the host tests check (tests/unit/cuda):
//   - each sequence as one entry of a ragged batch: its length (0 for an entry static shapes pad with:
//     first token -1), and where its rows start, in elements of a tensor whose token rows are `stride`
//     apart (the fused qkv: 3 * hidden; the attention output: hidden). Entries past the batch's own, and
//     the closing entry B, start at the end (tokens * stride), so the offsets never decrease: padded
//     entries come after every real one (device_batch.h).
//   - the attention dropout's Philox key: cuDNN draws its masks from Philox4x32 keyed by a 64-bit seed, at
//     a counter offset. Each (run seed, rank, micro-step, layer) gets a seed of its own, mixed by SplitMix64
//     (offset 0), so no two layers or steps share a stream. The masks are cuDNN's, not the CPU trainer's
//     (dropout_rng.h): the same probability, other bits.
#pragma once
#include <cstdint>

#include "trainer/model/host_device.h"

namespace bert::cuda {

BERT_HD int32_t cudnn_sequence_length(const int32_t* first, const int32_t* lens, int b, int real_entries) {
  return b < real_entries && first[b] >= 0 ? lens[b] : 0;
}

BERT_HD int32_t cudnn_ragged_offset(const int32_t* first, int b, int real_entries, int tokens, int stride) {
  return b < real_entries && first[b] >= 0 ? first[b] * stride : tokens * stride;
}

BERT_HD uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

BERT_HD uint64_t cudnn_dropout_seed(uint64_t seed, uint32_t rank, uint32_t micro_step, uint32_t stream_id) {
  uint64_t h = splitmix64(seed);
  h = splitmix64(h ^ (static_cast<uint64_t>(rank) << 32 | stream_id));
  return splitmix64(h ^ micro_step);
}

}  // namespace bert::cuda
