// Shared pieces of the attention kernels (nvcc only): shape checks, the block's place and its keep words. Tile sizes: attention_tiles.h.
#pragma once
#include <cuda_bf16.h>

#include <string>

#include "trainer/cuda/attention.h"
#include "trainer/cuda/attention_tiles.h"
#include "trainer/cuda/check.h"
#include "trainer/cuda/device_utils.cuh"
#include "trainer/cuda/kernel_attributes.h"
#include "trainer/cuda/mma_bf16.cuh"

namespace bert::cuda::attn {

using dev::bf16;
static_assert(D == kAttentionHeadDim);

inline void check_shape(const AttentionShape& s) {
  if (s.seq_len <= 0 || s.seq_len > kAttentionMaxSeq || s.max_seqlen > s.seq_len || s.heads <= 0 ||
      s.tokens % s.seq_len != 0)
    throw CudaError("attention: unsupported shape (seq_len " + std::to_string(s.seq_len) + ", max_seqlen " +
                    std::to_string(s.max_seqlen) + ", tokens " + std::to_string(s.tokens) + ")");
}

inline void check_keep_bits(const AttentionShape& s, const void* keep_bits) {
  if (keep_bits && s.seq_len % 32)
    throw CudaError("attention: keep bits need seq_len % 32 == 0 (seq_len " + std::to_string(s.seq_len) + ")");
}

// The block's SequenceTile: blockIdx.z = sequence, .y = head, .x = tile of kTile rows.
template <class Args>
__device__ __forceinline__ void set_sequence_tile(SequenceTile<bf16>& t, const Args& a) {
  const int seq = blockIdx.z;
  t.head = blockIdx.y;
  t.row0 = blockIdx.x * kTile;
  t.s0 = a.seq_first_token[seq];
  t.len = a.seq_lengths[seq];
  t.heads = a.shape.heads;
  t.seq_len = a.shape.seq_len;
  t.hd = a.shape.heads * D;
  t.ld = 3 * static_cast<size_t>(t.hd);
  t.q = a.qkv + static_cast<size_t>(t.s0) * t.ld + t.head * D;
  t.dropout = a.dropout.resolved();
}

// The head's keep words ([tokens, seq_len / 32] of attention.h's [heads, tokens, seq_len / 32]), or null.
template <class Args, class Word>
__device__ __forceinline__ Word* head_keep_bits(const Args& a, Word* keep_bits, int head) {
  return keep_bits ? keep_bits + static_cast<size_t>(head) * a.shape.tokens * (a.shape.seq_len / 32) : nullptr;
}

}  // namespace bert::cuda::attn
