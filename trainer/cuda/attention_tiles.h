// Tile geometry of the attention kernels and their shared-memory tile loader, in plain C++: the
// kernels instantiate the tile code (attention_forward_tile.h) with the device's warp operations
// (mma_bf16.cuh: ldmatrix, mma.sync, shuffles), and tests/unit/cuda runs the very same code on the host
// with models of those instructions (ptx_warp_model.h), so the register-fragment arithmetic is checked
// without a GPU.
#pragma once
#include <cstddef>

#include "trainer/cuda/dropout_spec.h"

#if defined(__CUDACC__)
#define BERT_TILE_FN __device__ __forceinline__
#define BERT_TILE_UNROLL _Pragma("unroll")
#define BERT_TILE_ROLLED _Pragma("unroll 1")
#else
#define BERT_TILE_FN inline
#define BERT_TILE_UNROLL
#define BERT_TILE_ROLLED
#endif

namespace bert::cuda::attn {

constexpr int D = 64;            // head dim (kAttentionHeadDim)
constexpr int kTile = 64;        // queries per block (forward) / keys per block (backward)
constexpr int kWarps = 4;        // 16 rows each
static_assert(kWarps * 32 >= kTile, "the backward loads a tile's row vectors with one thread per query");
constexpr int kLdH = D + 8;      // bf16 shared row stride: 144 bytes, a multiple of 16 (ldmatrix row
                                 // addresses) whose 8 consecutive rows start in 8 different 4-bank groups
constexpr float kScale = 0.125f; // 1/sqrt(64)

// A 64-row tile of one head's 64 columns in shared memory, rows kLdH apart: what load_tile fills and
// ldmatrix reads.
template <class T>
using SharedTile = T[kTile][kLdH];

// Where a block works, what both kernels' tiles share: sequence s0 .. s0 + len of the flat tokens,
// one head, rows [row0, row0 + 64) of it (queries in the forward, keys in the backward; row0 < len).
template <class T>
struct SequenceTile {
  const T* q = nullptr;  // Q columns of the head at the sequence's first token; K at +hd, V at +2*hd
  size_t ld = 0;         // row stride of the packed [tokens, 3 * heads * D] QKV (and dQKV)
  int hd = 0;            // heads * D
  int heads = 0, seq_len = 0;
  int s0 = 0, len = 0;
  int head = 0, row0 = 0;
  DropoutSpec dropout;   // resolved (micro-step read)
};

// Starts copying rows [row0, row0+64) of one head's 64 columns into shared memory, zero past `len`,
// 16 bytes per copy; thread `tid` of `nthreads`. src points at token 0's first column of the head's
// block; ld is the row stride; row0 < len. M supplies copy16(dst, src, valid): an asynchronous copy of
// 16 bytes from src, or of zeros without reading src when !valid (16-byte aligned pointers), landed by
// the thread's M::copy_wait() (each thread waits for its own copies, then the block barrier).
template <class M, class T>
BERT_TILE_FN void load_tile(M& m, T (*dst)[kLdH], const T* src, size_t ld, int row0, int len, int tid,
                            int nthreads) {
BERT_TILE_ROLLED
  for (int v = tid; v < kTile * D / 8; v += nthreads) {
    const int r = v / (D / 8), c = (v % (D / 8)) * 8;
    const bool valid = row0 + r < len;  // an invalid copy reads nothing; its address stays inside the tensor
    m.copy16(&dst[r][c], src + static_cast<size_t>(valid ? row0 + r : row0) * ld + c, valid);
  }
}

}  // namespace bert::cuda::attn
