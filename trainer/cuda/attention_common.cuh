// Shared pieces of the attention kernels (nvcc only): the guarded tile loader with the block's threads,
// shape checks, the block's place. Tile sizes: attention_tiles.h.
#pragma once
#include <cuda_bf16.h>

#include <string>

#include "trainer/cuda/attention.h"
#include "trainer/cuda/attention_tiles.h"
#include "trainer/cuda/check.h"
#include "trainer/cuda/device_utils.cuh"
#include "trainer/cuda/mma_bf16.cuh"

namespace bert::cuda::attn {

using dev::bf16;
static_assert(D == kAttentionHeadDim);

// load_tile (attention_tiles.h) with the block's threads.
__device__ __forceinline__ void load_tile(bf16 (*dst)[kLdH], const bf16* src, size_t ld, int row0, int len) {
  mma::DeviceWarp w;
  load_tile(w, dst, src, ld, row0, len, static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
}

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
