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

// Where a block works: blockIdx.z = sequence, .y = head, .x = tile of kTile rows (queries in the
// forward pass, keys in the backward pass), plus the packed-QKV addressing both kernels share.
struct BlockTile {
  int seq, head, row0, s0, len, warp, lane, hd;
  size_t ld;         // row stride of the packed [tokens, 3 * heads * D] QKV
  const bf16* base;  // Q columns of this head at the sequence's first token
};

template <class Args>
__device__ __forceinline__ BlockTile block_tile(const Args& a) {
  BlockTile t;
  t.seq = blockIdx.z;
  t.head = blockIdx.y;
  t.row0 = blockIdx.x * kTile;
  t.s0 = a.seq_first_token[t.seq];
  t.len = a.seq_lengths[t.seq];
  t.warp = threadIdx.x >> 5;
  t.lane = threadIdx.x & 31;
  t.hd = a.shape.heads * D;
  t.ld = 3 * static_cast<size_t>(t.hd);
  t.base = a.qkv + static_cast<size_t>(t.s0) * t.ld + t.head * D;
  return t;
}

}  // namespace bert::cuda::attn
