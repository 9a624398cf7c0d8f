// Shared pieces of the attention kernels (nvcc only): tile sizes and the guarded tile loader.
#pragma once
#include <cuda_bf16.h>

#include <string>

#include "trainer/cuda/attention.h"
#include "trainer/cuda/check.h"
#include "trainer/cuda/device_utils.cuh"

namespace bert::cuda::attn {

using dev::bf16;
constexpr int D = kAttentionHeadDim;
constexpr int kTile = 64;        // queries per block (forward) / keys per block (backward)
constexpr int kWarps = 4;        // 16 rows each
constexpr int kLdH = D + 8;      // bf16 shared row stride: 144 bytes, keeps 32-byte fragment alignment
constexpr int kLdF = kTile + 4;  // fp32 shared row stride
constexpr float kScale = 0.125f; // 1/sqrt(64)

// Copies rows [row0, row0+64) of one head's 64 columns into shared memory, zero past `len`.
// src points at token 0's first column of the head's block; ld is the qkv row stride.
__device__ __forceinline__ void load_tile(bf16 (*dst)[kLdH], const bf16* src, size_t ld, int row0, int len) {
  for (int v = threadIdx.x; v < kTile * D / 8; v += blockDim.x) {
    const int r = v / (D / 8), c = (v % (D / 8)) * 8;
    dev::Bf16x8 x;
    if (row0 + r < len) {
      x = *reinterpret_cast<const dev::Bf16x8*>(src + static_cast<size_t>(row0 + r) * ld + c);
    } else {
#pragma unroll
      for (int j = 0; j < 8; ++j) x.v[j] = __float2bfloat16(0.f);
    }
    *reinterpret_cast<dev::Bf16x8*>(&dst[r][c]) = x;
  }
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
