// One block of the attention forward (FlashAttention-2 register tiles), written once for the device
// kernel (attention_forward.cu, W = mma::DeviceWarp) and for the host check (tests/unit/cuda,
// W = the PTX instruction model): block = (64-query tile, head, sequence), 4 warps of 16 query rows.
// K and V tiles are double-buffered in shared memory (cp.async: the next tile lands while this one
// computes). Per 64-key tile: S = Q K^T by mma.sync m16n8k16 (bf16 in, fp32 out) straight into
// registers (Q and K fragments by ldmatrix), the online softmax on those registers, dropout, P packed to
// bf16 A fragments in registers, and O += P V with V fragments by ldmatrix.trans. Scores and
// probabilities never touch shared memory.
//
// Register layouts relied on (PTX ISA 9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating
// point type", .bf16, Figures 79/81/83; g = lane >> 2, t = lane & 3):
//   A 16x16: reg j = 0..3 holds (row g + 8*(j & 1), cols 2t, 2t+1 + 8*(j >> 1))
//   B 16x8:  reg j = 0..1 holds (rows 2t, 2t+1 + 8*j, col g)
//   C 16x8:  c[i] = (row g + 8*(i >> 1), col 2t + (i & 1))
// ldmatrix.m8n8.x4.b16 (PTX ISA 9.7.14.5.15): lanes 8i..8i+7 give the row addresses of matrix i; lane
// receives in reg i matrix i's (row g, cols 2t, 2t+1); with .trans, (rows 2t, 2t+1, col g) (CUTLASS
// SM75_U16x8_LDSM_T's destination layout says the same).
//
// Dropout (dropout_rng.h's attention draw: 8 elements a Philox call): a lane holds keys 2t, 2t+1 of
// each 8-key column block for rows g and g+8, so a quad holds rows g, g+8 x 64 keys: 4 words of 32
// keys. Lane t draws one of them (4 Philox calls, one per 8-key block), 3 shuffles give it the other
// three; with keep_bits, the word the lane drew is the one it writes for the backward (attention.h's
// layout: one bit per element, a row's 32 keys a word).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "trainer/cuda/attention_tiles.h"

namespace bert::cuda::attn {

// K and V double-buffered: the next key tile's copies are in flight while this one computes.
template <class T>
struct ForwardShared {
  SharedTile<T> q, k[2], v[2];
};

// What one block reads and writes (the kernel fills it from AttentionForwardArgs and blockIdx);
// row0: the block's first query.
template <class T>
struct ForwardTile : SequenceTile<T> {
  int tokens = 0;
  T* out = nullptr;      // [tokens, hd]
  float* lse = nullptr;  // [heads, tokens]
  uint32_t* keep_bits = nullptr;  // with dropout: the head's [tokens, seq_len / 32] keep words; null: none
};

constexpr int kKeyBlocks = kTile / 8;  // 8-key column blocks of a key tile (S n-tiles)
constexpr int kDimBlocks = D / 8;      // 8-dim column blocks of O

// Keep flags of the lane's 32 elements of one 64-key tile as bit 4 nb + j: 8-key block nb, rows g
// (j = 0, 1) and g+8 (j = 2, 3), keys 8 nb + 2t + (j & 1). e_row: element number of (row g, the tile's
// key 0); row_stride: element distance from row g to row g+8. aligned (seq_len % 8 == 0: every 8-key
// block starts a Philox block; all lanes shuffle, so call from converged code): lane t draws row
// g + 8 (t >> 1), keys 32 (t & 1) .. +31 into *drawn (bit i: key 32 (t & 1) + i).
template <class W>
BERT_TILE_FN uint32_t tile_keeps(W& w, const DropoutSpec& d, uint64_t e_row, uint64_t row_stride, int t, bool aligned,
                                 uint32_t* drawn) {
  uint32_t bits = 0;
  if (aligned) {
    const uint64_t q = (e_row + ((t >> 1) ? row_stride : 0) + 32 * (t & 1)) >> 3;
    uint32_t mine = 0;
BERT_TILE_UNROLL
    for (int n = 0; n < 4; ++n) mine |= d.keep8(q + n) << (8 * n);
    *drawn = mine;
    // from[x]: the word of lane t ^ x, which drew row g + 8 ((t ^ x) >> 1), keys 32 ((t ^ x) & 1)..
    const uint32_t from[4] = {mine, w.shfl_xor(mine, 1), w.shfl_xor(mine, 2), w.shfl_xor(mine, 3)};
BERT_TILE_UNROLL
    for (int r = 0; r < 2; ++r)
BERT_TILE_UNROLL
      for (int hh = 0; hh < 2; ++hh) {
        const int x = t ^ (2 * r + hh);  // selects, not a run-time index into a register array
        const uint32_t word = (x & 2) ? ((x & 1) ? from[3] : from[2]) : ((x & 1) ? from[1] : from[0]);
BERT_TILE_UNROLL
        for (int n = 0; n < 4; ++n) bits |= ((word >> (8 * n + 2 * t)) & 3u) << (4 * (4 * hh + n) + 2 * r);
      }
  } else {
    *drawn = 0;
BERT_TILE_ROLLED
    for (int nb = 0; nb < kKeyBlocks; ++nb)
      for (int j = 0; j < 4; ++j)
        bits |= uint32_t(d.keep_attention(e_row + ((j >> 1) ? row_stride : 0) + 8 * nb + 2 * t + (j & 1))) << (4 * nb + j);
  }
  return bits;
}

// The whole block; tid = threadIdx.x of nthreads = kWarps * 32 threads (the device passes blockDim.x:
// a run-time trip count keeps the tile loads rolled, and the kernel at 128 registers without spills),
// sh the block's shared memory.
template <class W>
BERT_TILE_FN void attention_forward_tile(W& w, const ForwardTile<typename W::T>& a, ForwardShared<typename W::T>& sh,
                                         int tid, int nthreads) {
  const int warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;

  load_tile(w, sh.q, a.q, a.ld, a.row0, a.len, tid, nthreads);
  load_tile(w, sh.k[0], a.q + a.hd, a.ld, 0, a.len, tid, nthreads);
  load_tile(w, sh.v[0], a.q + 2 * a.hd, a.ld, 0, a.len, tid, nthreads);
  w.copy_wait();
  w.sync();
  // Q as A fragments of the warp's 16 rows, 4 chunks of 16 dims: matrices (rows 0-7 | 8-15) x (dims
  // 0-7 | 8-15) in the A register order a0 (g, 2t), a1 (g+8, 2t), a2 (g, 2t+8), a3 (g+8, 2t+8)
  uint32_t qa[D / 16][4];
BERT_TILE_UNROLL
  for (int kc = 0; kc < D / 16; ++kc)
    w.ldmatrix_x4(qa[kc], &sh.q[warp * 16 + (lane & 7) + ((lane >> 3) & 1) * 8][kc * 16 + (lane >> 4) * 8]);

  const bool drop = a.dropout.p > 0.f;
  const float dscale = a.dropout.scale();
  const float log2e_scale = kScale * 1.4426950408889634f;
  const uint64_t row_stride = 8ull * a.heads * a.seq_len;  // element distance of rows g, g+8
  const uint64_t e_row0 = (static_cast<uint64_t>(a.s0 + a.row0 + warp * 16 + g) * a.heads + a.head) * a.seq_len;
  const bool aligned = a.seq_len % 8 == 0;
  const bool keep_out = drop && aligned && a.keep_bits != nullptr;

  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};  // rows g, g+8 (l: this lane's partial sum)
  float o[kDimBlocks][4];
BERT_TILE_UNROLL
  for (int n = 0; n < kDimBlocks; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.f;

  for (int k0 = 0, b = 0; k0 < a.len; k0 += kTile, b ^= 1) {
    if (k0 + kTile < a.len) {  // into the buffer the previous tile read, which every warp left at the barrier
      load_tile(w, sh.k[b ^ 1], a.q + a.hd, a.ld, k0 + kTile, a.len, tid, nthreads);
      load_tile(w, sh.v[b ^ 1], a.q + 2 * a.hd, a.ld, k0 + kTile, a.len, tid, nthreads);
    }
    const SharedTile<typename W::T>& kt = sh.k[b];
    const SharedTile<typename W::T>& vt = sh.v[b];

    // S = Q K^T: B[k = dim][n = key] = K[key][dim], so B's reg j (dims 2t.. + 8j, key g) is a plain
    // ldmatrix fragment (row g, cols 2t..) of the 8x8 block (keys nb*8.., dims 8j..) of K
    float s[kKeyBlocks][4];
BERT_TILE_UNROLL
    for (int nb = 0; nb < kKeyBlocks; ++nb) {
      s[nb][0] = s[nb][1] = s[nb][2] = s[nb][3] = 0.f;
BERT_TILE_UNROLL
      for (int kc2 = 0; kc2 < D / 32; ++kc2) {
        uint32_t kb[4];  // dims kc2*32 + {0, 8, 16, 24}: b0, b1 of chunk 2*kc2 and of chunk 2*kc2+1
        w.ldmatrix_x4(kb, &kt[nb * 8 + (lane & 7)][kc2 * 32 + (lane >> 3) * 8]);
        w.mma(s[nb], qa[2 * kc2], kb[0], kb[1]);
        w.mma(s[nb], qa[2 * kc2 + 1], kb[2], kb[3]);
      }
    }

    // online softmax over this tile, rows g (c0, c1) and g+8 (c2, c3); a row's 64 keys lie in the 4
    // lanes of a quad (same g), so two xor shuffles (1, 2) give the row maximum
    float tmax[2] = {-INFINITY, -INFINITY};
BERT_TILE_UNROLL
    for (int nb = 0; nb < kKeyBlocks; ++nb) {
      const int key = k0 + nb * 8 + 2 * t;
      const bool v0 = key < a.len, v1 = key + 1 < a.len;
      s[nb][0] = v0 ? s[nb][0] * log2e_scale : -INFINITY;
      s[nb][1] = v1 ? s[nb][1] * log2e_scale : -INFINITY;
      s[nb][2] = v0 ? s[nb][2] * log2e_scale : -INFINITY;
      s[nb][3] = v1 ? s[nb][3] * log2e_scale : -INFINITY;
      tmax[0] = fmaxf(tmax[0], fmaxf(s[nb][0], s[nb][1]));
      tmax[1] = fmaxf(tmax[1], fmaxf(s[nb][2], s[nb][3]));
    }
    float alpha[2];
BERT_TILE_UNROLL
    for (int r = 0; r < 2; ++r) {
      tmax[r] = fmaxf(tmax[r], w.shfl_xor(tmax[r], 1));
      tmax[r] = fmaxf(tmax[r], w.shfl_xor(tmax[r], 2));
      const float mn = fmaxf(m[r], tmax[r]);  // finite: key k0 < len is valid
      alpha[r] = exp2f(m[r] - mn);            // 0 on the first tile (m = -inf)
      m[r] = mn;
      l[r] *= alpha[r];
    }
BERT_TILE_UNROLL
    for (int n = 0; n < kDimBlocks; ++n) {
      o[n][0] *= alpha[0];
      o[n][1] *= alpha[0];
      o[n][2] *= alpha[1];
      o[n][3] *= alpha[1];
    }

    // P (undropped into the normaliser, dropped into O), as bf16 A fragments of 16-key chunks
    uint32_t drawn = 0;
    const uint32_t kbits = drop ? tile_keeps(w, a.dropout, e_row0 + k0, row_stride, t, aligned, &drawn) : ~0u;
    uint32_t pa[kTile / 16][4];
BERT_TILE_UNROLL
    for (int nb = 0; nb < kKeyBlocks; ++nb) {
      float p[4];
BERT_TILE_UNROLL
      for (int j = 0; j < 4; ++j) p[j] = exp2f(s[nb][j] - m[j >> 1]);
      l[0] += p[0] + p[1];
      l[1] += p[2] + p[3];
      if (drop)
BERT_TILE_UNROLL
        for (int j = 0; j < 4; ++j) p[j] = (kbits >> (4 * nb + j)) & 1u ? p[j] * dscale : 0.f;
      // C (row g | g+8, keys 2t, 2t+1 of block nb) is A's (row g | g+8, cols 2t.. + 8*(nb & 1)) of
      // 16-key chunk nb/2: regs a0/a1 for the even block, a2/a3 for the odd one
      pa[nb >> 1][(nb & 1) * 2] = w.pack_bf16(p[0], p[1]);
      pa[nb >> 1][(nb & 1) * 2 + 1] = w.pack_bf16(p[2], p[3]);
    }

    if (keep_out) {  // the word this lane drew
      const int q = a.row0 + warp * 16 + g + 8 * (t >> 1), key = k0 + 32 * (t & 1);
      if (q < a.len && key < a.len)
        a.keep_bits[static_cast<size_t>(a.s0 + q) * (a.seq_len / 32) + (key >> 5)] = drawn;
    }

    // O += P V: B[k = key][n = dim] = V[key][dim], rows = keys in shared memory, so B's reg j (keys
    // 2t.. + 8j, dim g) is an ldmatrix.trans fragment of the 8x8 block (keys 8j.., dims 8n..) of V
BERT_TILE_UNROLL
    for (int kc = 0; kc < kTile / 16; ++kc) {
BERT_TILE_UNROLL
      for (int n2 = 0; n2 < kDimBlocks / 2; ++n2) {
        uint32_t vb[4];  // b0, b1 of dims n2*16..+7, then of dims n2*16+8..+15
        w.ldmatrix_x4_trans(vb, &vt[kc * 16 + (lane & 7) + ((lane >> 3) & 1) * 8][n2 * 16 + (lane >> 4) * 8]);
        w.mma(o[2 * n2], pa[kc], vb[0], vb[1]);
        w.mma(o[2 * n2 + 1], pa[kc], vb[2], vb[3]);
      }
    }
    w.copy_wait();
    w.sync();  // the next tile has landed, and every warp is done with buffer b
  }

BERT_TILE_UNROLL
  for (int r = 0; r < 2; ++r) {
    l[r] += w.shfl_xor(l[r], 1);
    l[r] += w.shfl_xor(l[r], 2);
  }
BERT_TILE_UNROLL
  for (int r = 0; r < 2; ++r) {
    const int q = a.row0 + warp * 16 + g + 8 * r;
    if (q >= a.len) continue;
    const size_t tok = static_cast<size_t>(a.s0 + q);
    const float inv = 1.f / l[r];
    typename W::T* dst = a.out + tok * a.hd + a.head * D + 2 * t;
BERT_TILE_UNROLL
    for (int n = 0; n < kDimBlocks; ++n) w.store_bf16x2(dst + n * 8, o[n][2 * r] * inv, o[n][2 * r + 1] * inv);
    if (t == 0) a.lse[static_cast<size_t>(a.head) * a.tokens + tok] = (m[r] + log2f(l[r])) * 0.6931471805599453f;
  }
}

}  // namespace bert::cuda::attn
