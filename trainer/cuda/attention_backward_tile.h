// One block of the attention backward (FlashAttention-2 order, register tiles), written once for the
// device kernel (attention_backward.cu, W = mma::DeviceWarp) and for the host check (tests/unit/cuda,
// W = the PTX instruction model): block = (64-key tile, head, sequence), 4 warps of 16 keys. For each
// 64-query tile, per warp and in two halves of 32 queries:
//   S^T = K Q^T and dP^T = V dO^T by mma.sync m16n8k16 into registers (K, V as A fragments by
//   ldmatrix; Q, dO rows are B's columns: plain ldmatrix), P^T = exp(S^T / 8 - lse[q]),
//   dS^T = P^T (dP^T keep/(1-p) - Dq[q]) with Dq = rowsum(dO * O) (precomputed), both packed to bf16 A
//   fragments in registers: dV += (P^T keep/(1-p)) dO and dK += dS^T Q (dO, Q by ldmatrix.trans);
// dS^T also goes to shared memory ([key][query]); after the block barrier each warp computes dQ for 16
// queries of the tile, dS (ldmatrix.trans of dS^T) times K (ldmatrix.trans), added into an fp32
// accumulator with atomics; meanwhile the next query tile's Q and dO copies (cp.async) are in flight.
// dK, dV leave the registers once, at the end.
// Fragment layouts: see attention_forward_tile.h (PTX ISA 9.7.14.5.8, 9.7.14.5.15).
//
// Dropout: element (q, key) of dropout_spec.h (the attention draw: 8 consecutive keys of one query a
// Philox block); a lane holds keys g, g+8 (rows of S^T) of queries 2t, 2t+1 (columns), and the 8 keys of
// a Philox block lie in the 8 lanes of one t. With the forward's keep bits (keep_bits), no Philox at
// all: the tile's words of the block's keys come into shared memory with Q and dO (cp.async), and a lane
// reads the word of each of its 16 queries that holds its keys g and g+8 (key_w is a multiple of 16, so
// both lie in one 32-key word). Without them, lane g of those 8 draws the 4 blocks
// of query block nb = g (queries 8g + 2t, +1 x keys g.., g+8..) and 7 shuffles give every lane its bit
// of the other lanes' blocks: 4 Philox calls a lane per 64-query tile.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "trainer/cuda/attention_tiles.h"

namespace bert::cuda::attn {

template <class T>
struct BackwardShared {
  SharedTile<T> k, v, q, dout;
  SharedTile<T> ds;  // dS^T of the query tile: [key][query]
  float lse[kTile];
  float dq[kTile];    // Dq = rowsum(dO * O)
  uint32_t keep[kTile][kTile / 32];  // with the forward's keep bits: the tile's words of the block's keys
};

// What one block reads and writes (the kernel fills it from AttentionBackwardArgs and blockIdx);
// row0: the block's first key.
template <class T>
struct BackwardTile : SequenceTile<T> {
  const T* dout = nullptr;     // dO columns of the head at the sequence's first token (row stride hd)
  const float* lse = nullptr;  // the forward's log-sum-exp of the head, at the sequence's first token
  const float* dvec = nullptr; // Dq of the head, at the sequence's first token
  float* dq_acc = nullptr;     // [tokens, hd] fp32, added to
  T* dqkv = nullptr;           // [tokens, 3 * hd]: this block's dK, dV rows written
  const uint32_t* keep_bits = nullptr;  // the forward's keep words of the head ([tokens, seq_len / 32]), or null
};

// Starts copying the forward's keep words of queries q0 .. q0 + 63 for the block's 64 keys (two words a
// query) into sh.keep, one 4-byte copy a thread (zeros past the sequence or the row's words).
template <class W>
BERT_TILE_FN void load_keep_words(W& w, const BackwardTile<typename W::T>& a, uint32_t (*keep)[kTile / 32], int q0,
                                  int tid, int nthreads) {
  const int wpr = a.seq_len / 32;
  for (int i = tid; i < kTile * (kTile / 32); i += nthreads) {
    const int q = i / (kTile / 32), word = (a.row0 >> 5) + i % (kTile / 32);
    const bool valid = q0 + q < a.len && word < wpr;  // an invalid copy reads nothing: the row0 word of q0
    w.copy4(&keep[q][i % (kTile / 32)],
            a.keep_bits + static_cast<size_t>(a.s0 + (valid ? q0 + q : q0)) * wpr + (valid ? word : a.row0 >> 5), valid);
  }
}

// key_major_keeps' bits from the forward's keep words in shared memory (load_keep_words): query
// 8 nb + 2t + (i & 1) of the tile, key key_w + g + 8 (i >> 1) (key_w - row0 is 0, 16, 32 or 48: both keys
// lie in word (key_w - row0) / 32).
template <class T>
BERT_TILE_FN uint32_t stored_keeps(const BackwardTile<T>& a, const uint32_t (*keep)[kTile / 32], int key_w, int lane) {
  const int g = lane >> 2, t = lane & 3, off = (key_w & 31) + g, wi = (key_w - a.row0) >> 5;
  uint32_t bits = 0;
  BERT_TILE_UNROLL
  for (int nb = 0; nb < kTile / 8; ++nb)
    BERT_TILE_UNROLL
    for (int j = 0; j < 2; ++j) {
      const uint32_t word = keep[8 * nb + 2 * t + j][wi];
      bits |= ((word >> off) & 1u) << (4 * nb + j);
      bits |= ((word >> (off + 8)) & 1u) << (4 * nb + 2 + j);
    }
  return bits;
}

// Keep flags of the lane's S^T elements for one 64-query tile, as bit nb * 4 + i for block nb's C
// element i (key g + 8 (i >> 1), query 8 nb + 2t + (i & 1)); keys from key_w (the warp's first key,
// a multiple of 16), queries from the tile's first flat token q_tok0. aligned: seq_len % 8 == 0 (every
// 8-key group starts a Philox block; then all lanes shuffle: call from converged code).
template <class W>
BERT_TILE_FN uint32_t key_major_keeps(W& w, const DropoutSpec& d, uint64_t q_tok0, int heads, int head, int seq_len,
                                      int key_w, int lane, bool aligned) {
  const int g = lane >> 2, t = lane & 3;
  const auto element = [&](int q, int key) {
    return (static_cast<uint64_t>(q_tok0 + q) * heads + head) * seq_len + key;
  };
  uint32_t bits = 0;
  if (aligned) {
    uint32_t mine = 0;  // byte i: query 8g + 2t + (i & 1), keys key_w + 8 (i >> 1) .. +7
    BERT_TILE_UNROLL
    for (int i = 0; i < 4; ++i) mine |= d.keep8(element(8 * g + 2 * t + (i & 1), key_w + 8 * (i >> 1)) >> 3) << (8 * i);
    // lane g ^ x (lane ^ 4x, same t) drew query block nb = g ^ x; this lane's key in its bytes is g
    BERT_TILE_UNROLL
    for (int x = 0; x < 8; ++x) {
      const uint32_t word = x ? w.shfl_xor(mine, 4 * x) : mine;
      const int nb = g ^ x;
      BERT_TILE_UNROLL
      for (int i = 0; i < 4; ++i) bits |= ((word >> (8 * i + g)) & 1u) << (4 * nb + i);
    }
  } else {
    BERT_TILE_ROLLED
    for (int nb = 0; nb < kTile / 8; ++nb)
      for (int i = 0; i < 4; ++i)
        bits |= uint32_t(d.keep_attention(element(8 * nb + 2 * t + (i & 1), key_w + g + 8 * (i >> 1)))) << (4 * nb + i);
  }
  return bits;
}

// Query q0 + tid's log-sum-exp (in log2 units) and Dq, for thread tid < kTile; past the sequence
// lse = inf (P = exp2(s - inf) = 0) and Dq = 0.
template <class T>
BERT_TILE_FN void load_rows(const BackwardTile<T>& a, int q0, int tid, float log2e, float* lse, float* dq) {
  if (tid >= kTile) return;
  const bool ok = q0 + tid < a.len;
  *lse = ok ? a.lse[q0 + tid] * log2e : INFINITY;
  *dq = ok ? a.dvec[q0 + tid] : 0.f;
}

// The whole block; tid = threadIdx.x of nthreads = kWarps * 32 threads (>= kTile: one thread per query
// of the row vectors), sh the block's shared memory.
template <class W>
BERT_TILE_FN void attention_backward_tile(W& w, const BackwardTile<typename W::T>& a,
                                          BackwardShared<typename W::T>& sh, int tid, int nthreads) {
  const int warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
  load_tile(w, sh.k, a.q + a.hd, a.ld, a.row0, a.len, tid, nthreads);
  load_tile(w, sh.v, a.q + 2 * a.hd, a.ld, a.row0, a.len, tid, nthreads);

  float dk[D / 8][4], dv[D / 8][4];  // keys g | g+8 of the warp, dims 8n + 2t, +1
  BERT_TILE_UNROLL
  for (int n = 0; n < D / 8; ++n) dk[n][0] = dk[n][1] = dk[n][2] = dk[n][3] = dv[n][0] = dv[n][1] = dv[n][2] = dv[n][3] = 0.f;
  const bool drop = a.dropout.p > 0.f, aligned = a.seq_len % 8 == 0;
  const float dscale = a.dropout.scale();
  const float log2e = 1.4426950408889634f;
  const int key_w = a.row0 + warp * 16;
  const bool key_ok[2] = {key_w + g < a.len, key_w + g + 8 < a.len};

  // The first query tile; each later one is started once the tile before it no longer reads Q, dO and
  // the row vectors (after the barrier before its dQ), so its copies fly during that dQ.
  const bool stored = drop && a.keep_bits;
  load_tile(w, sh.q, a.q, a.ld, 0, a.len, tid, nthreads);
  load_tile(w, sh.dout, a.dout, static_cast<size_t>(a.hd), 0, a.len, tid, nthreads);
  if (stored) load_keep_words(w, a, sh.keep, 0, tid, nthreads);
  float row_lse = 0.f, row_dq = 0.f;  // thread tid < kTile: query tid's of the tile being loaded
  load_rows(a, 0, tid, log2e, &row_lse, &row_dq);
  if (tid < kTile) {
    sh.lse[tid] = row_lse;
    sh.dq[tid] = row_dq;
  }
  w.copy_wait();
  w.sync();

  for (int q0 = 0; q0 < a.len; q0 += kTile) {
    const uint32_t keeps =
        !drop ? ~0u
        : stored     ? stored_keeps(a, sh.keep, key_w, lane)
                      : key_major_keeps(w, a.dropout, static_cast<uint64_t>(a.s0) + q0, a.heads, a.head, a.seq_len,
                                        key_w, lane, aligned);

    BERT_TILE_ROLLED
    for (int half = 0; half < 2; ++half) {
      // S^T and dP^T of the warp's 16 keys and queries 32 half + 8 nb + 2t, +1 (nb < 4)
      float s[4][4], dp[4][4];
      BERT_TILE_UNROLL
      for (int nb = 0; nb < 4; ++nb) s[nb][0] = s[nb][1] = s[nb][2] = s[nb][3] = dp[nb][0] = dp[nb][1] = dp[nb][2] = dp[nb][3] = 0.f;
      BERT_TILE_UNROLL
      for (int kc = 0; kc < D / 16; ++kc) {
        // K, V rows (keys) as A fragments of dims 16 kc..: matrices (keys 0-7 | 8-15) x (dims 0-7 | 8-15)
        uint32_t ka[4], va[4];
        w.ldmatrix_x4(ka, &sh.k[warp * 16 + (lane & 7) + ((lane >> 3) & 1) * 8][kc * 16 + (lane >> 4) * 8]);
        w.ldmatrix_x4(va, &sh.v[warp * 16 + (lane & 7) + ((lane >> 3) & 1) * 8][kc * 16 + (lane >> 4) * 8]);
        BERT_TILE_UNROLL
        for (int nb2 = 0; nb2 < 2; ++nb2) {
          // B[dim][query] = Q[query][dim]: plain ldmatrix of Q rows; matrices (queries of block 2 nb2 |
          // 2 nb2 + 1) x (dims 0-7 | 8-15): b0, b1 of the first block, then of the second
          const int qrow = half * 32 + nb2 * 16 + (lane & 7) + (lane >> 4) * 8, col = kc * 16 + ((lane >> 3) & 1) * 8;
          uint32_t qb[4], gb[4];
          w.ldmatrix_x4(qb, &sh.q[qrow][col]);
          w.ldmatrix_x4(gb, &sh.dout[qrow][col]);
          w.mma(s[2 * nb2], ka, qb[0], qb[1]);
          w.mma(s[2 * nb2 + 1], ka, qb[2], qb[3]);
          w.mma(dp[2 * nb2], va, gb[0], gb[1]);
          w.mma(dp[2 * nb2 + 1], va, gb[2], gb[3]);
        }
      }

      uint32_t pa[2][4], dsa[2][4];  // A fragments (keys x 16-query chunks 2 half, 2 half + 1)
      BERT_TILE_UNROLL
      for (int nb = 0; nb < 4; ++nb) {
        const int qc = half * 32 + nb * 8 + 2 * t;  // query (in the tile) of C elements 0, 2
        float pd[4], ds[4];
        BERT_TILE_UNROLL
        for (int i = 0; i < 4; ++i) {
          const int qi = qc + (i & 1);
          const float p = key_ok[i >> 1] ? exp2f(s[nb][i] * (kScale * log2e) - sh.lse[qi]) : 0.f;
          const float keep = (keeps >> (4 * (half * 4 + nb) + i)) & 1u ? dscale : 0.f;
          pd[i] = p * keep;
          ds[i] = p * (dp[nb][i] * keep - sh.dq[qi]);
        }
        // C (key g | g+8, queries 2t, 2t+1 of block nb) is A's (row g | g+8, cols 2t.. + 8 (nb & 1))
        // of 16-query chunk nb / 2
        pa[nb >> 1][(nb & 1) * 2] = w.pack_bf16(pd[0], pd[1]);
        pa[nb >> 1][(nb & 1) * 2 + 1] = w.pack_bf16(pd[2], pd[3]);
        dsa[nb >> 1][(nb & 1) * 2] = w.pack_bf16(ds[0], ds[1]);
        dsa[nb >> 1][(nb & 1) * 2 + 1] = w.pack_bf16(ds[2], ds[3]);
        w.store_bf16x2(&sh.ds[warp * 16 + g][qc], ds[0], ds[1]);
        w.store_bf16x2(&sh.ds[warp * 16 + g + 8][qc], ds[2], ds[3]);
      }

      // dV += Pd^T dO, dK += dS^T Q: B[query][dim] with rows = queries in shared memory: ldmatrix.trans
      BERT_TILE_UNROLL
      for (int kc = 0; kc < 2; ++kc) {
        const int qrow = (half * 2 + kc) * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
        BERT_TILE_UNROLL
        for (int n2 = 0; n2 < D / 16; ++n2) {
          uint32_t gb[4], qb[4];  // b0, b1 of dims 16 n2..+7, then of dims 16 n2 + 8..+15
          w.ldmatrix_x4_trans(gb, &sh.dout[qrow][n2 * 16 + (lane >> 4) * 8]);
          w.ldmatrix_x4_trans(qb, &sh.q[qrow][n2 * 16 + (lane >> 4) * 8]);
          w.mma(dv[2 * n2], pa[kc], gb[0], gb[1]);
          w.mma(dv[2 * n2 + 1], pa[kc], gb[2], gb[3]);
          w.mma(dk[2 * n2], dsa[kc], qb[0], qb[1]);
          w.mma(dk[2 * n2 + 1], dsa[kc], qb[2], qb[3]);
        }
      }
    }
    w.sync();  // every warp's dS^T rows are in sh.ds; Q, dO, the row vectors and keep words are read no more
    const int q1 = q0 + kTile;
    if (q1 < a.len) {
      load_tile(w, sh.q, a.q, a.ld, q1, a.len, tid, nthreads);
      load_tile(w, sh.dout, a.dout, static_cast<size_t>(a.hd), q1, a.len, tid, nthreads);
      if (stored) load_keep_words(w, a, sh.keep, q1, tid, nthreads);
      load_rows(a, q1, tid, log2e, &row_lse, &row_dq);  // into registers: stored after the dQ
    }

    // dQ of queries 16 warp .. +15 of the tile = dS (16 queries x 64 keys) K. A[query][key] = dS^T[key][query]:
    // ldmatrix.trans of matrices (keys 0-7 | 8-15) x (queries 0-7 | 8-15) in the A order a0 (q 0-7, keys
    // 0-7), a1 (q 8-15, keys 0-7), a2 (q 0-7, keys 8-15), a3; B[key][dim] = K rows: ldmatrix.trans
    float dq[D / 8][4];
    BERT_TILE_UNROLL
    for (int n = 0; n < D / 8; ++n) dq[n][0] = dq[n][1] = dq[n][2] = dq[n][3] = 0.f;
    BERT_TILE_UNROLL
    for (int kc = 0; kc < kTile / 16; ++kc) {
      uint32_t da[4];
      w.ldmatrix_x4_trans(da, &sh.ds[kc * 16 + (lane & 7) + (lane >> 4) * 8][warp * 16 + ((lane >> 3) & 1) * 8]);
      BERT_TILE_UNROLL
      for (int n2 = 0; n2 < D / 16; ++n2) {
        uint32_t kb[4];
        w.ldmatrix_x4_trans(kb, &sh.k[kc * 16 + (lane & 7) + ((lane >> 3) & 1) * 8][n2 * 16 + (lane >> 4) * 8]);
        w.mma(dq[2 * n2], da, kb[0], kb[1]);
        w.mma(dq[2 * n2 + 1], da, kb[2], kb[3]);
      }
    }
    // Lanes t, t^1 hold dims 8n + 4 (t >> 1) .. +3 of rows g and g+8 between them: they swap a pair so
    // that the even lane holds row g's four and the odd one row g+8's, each added with one 4-wide
    // reduction (a quarter of the scalar atomics: they, not the MMAs, bound this loop)
    const bool odd = t & 1;
    BERT_TILE_UNROLL
    for (int n = 0; n < D / 8; ++n) {
      const float r0 = w.shfl_xor(odd ? dq[n][0] : dq[n][2], 1), r1 = w.shfl_xor(odd ? dq[n][1] : dq[n][3], 1);
      if (odd) {
        dq[n][0] = r0;
        dq[n][1] = r1;
      } else {
        dq[n][2] = r0;
        dq[n][3] = r1;
      }
    }
    const int q = q0 + warp * 16 + g + 8 * odd;
    if (q < a.len) {
      float* dst = a.dq_acc + static_cast<size_t>(a.s0 + q) * a.hd + a.head * D + 4 * (t >> 1);
      BERT_TILE_UNROLL
      for (int n = 0; n < D / 8; ++n)
        w.atomic_add4(dst + 8 * n, dq[n][0] * kScale, dq[n][1] * kScale, dq[n][2] * kScale, dq[n][3] * kScale);
    }
    if (q1 < a.len && tid < kTile) {
      sh.lse[tid] = row_lse;
      sh.dq[tid] = row_dq;
    }
    w.copy_wait();
    w.sync();  // the next tile has landed; every warp is done with sh.ds
  }

  // dK (scaled) and dV of the warp's keys into dqkv
  BERT_TILE_UNROLL
  for (int r = 0; r < 2; ++r) {
    if (!key_ok[r]) continue;
    typename W::T* dst = a.dqkv + static_cast<size_t>(a.s0 + key_w + g + 8 * r) * a.ld + a.head * D + 2 * t;
    BERT_TILE_UNROLL
    for (int n = 0; n < D / 8; ++n) {
      w.store_bf16x2(dst + a.hd + 8 * n, dk[n][2 * r] * kScale, dk[n][2 * r + 1] * kScale);
      w.store_bf16x2(dst + 2 * a.hd + 8 * n, dv[n][2 * r], dv[n][2 * r + 1]);
    }
  }
}

}  // namespace bert::cuda::attn
