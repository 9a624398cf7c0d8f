// Attention forward, FlashAttention-2 style register tiles: block = (64-query tile, head, sequence),
// 4 warps of 16 query rows. Per 64-key tile: S = Q K^T with mma.sync m16n8k16 (bf16 in, fp32 out)
// straight into registers (Q and K fragments by ldmatrix), the online softmax on those registers
// (a row lives in one quad of lanes: two shuffles per row maximum, the row sum kept per lane and
// reduced once at the end), dropout, P packed to bf16 A fragments in registers, and O += P V with
// V fragments by ldmatrix.trans. Scores and probabilities never touch shared memory.
// Dropout: a lane holds keys 2t, 2t+1 of each 8-key column block for rows g and g+8; the lanes t and
// t^1 split one aligned 4-key group, so each draws one Philox block (4 elements) for one of the two
// rows and they swap halves with one shuffle: one Philox call per 4 elements.
// 128 registers at most (launch bounds: 4 blocks of 4 warps per SM), no spills (NOTES.md).
#include "trainer/cuda/attention_common.cuh"
#include "trainer/cuda/mma_bf16.cuh"

namespace bert::cuda {
namespace {

using namespace attn;
using mma::ldmatrix_x4;
using mma::ldmatrix_x4_trans;
using mma::mma_16816;
using mma::pack_bf16;

struct ForwardShared {
  bf16 q[kTile][kLdH];
  bf16 k[kTile][kLdH];
  bf16 v[kTile][kLdH];
};

constexpr int kKeyBlocks = kTile / 8;  // 8-key column blocks of a key tile (S n-tiles)
constexpr int kDimBlocks = D / 8;      // 8-dim column blocks of O

// Keep flags of the lane's 4 elements of one 8-key block: rows g (keep[0], keep[1]) and g+8
// (keep[2], keep[3]), keys 2t, 2t+1. e_row: element number of (row g, key 0 of the block) and
// row_stride: element distance from row g to row g+8. aligned: every 4-key group starts a Philox block.
__device__ __forceinline__ void block_keeps(const DropoutSpec& d, uint64_t e_row, uint64_t row_stride, int t,
                                            bool aligned, bool keep[4]) {
  if (aligned) {
    // lane t draws the 4-key group 2*(t/2).. of row g (t even) or row g+8 (t odd)
    const uint64_t e = e_row + ((t & 1) ? row_stride : 0) + 4 * (t >> 1);
    bool mine[4];
    d.keep4(e, mine);
    const unsigned bits = mine[0] | (mine[1] << 1) | (mine[2] << 2) | (mine[3] << 3);
    const unsigned other = __shfl_xor_sync(0xffffffffu, bits, 1);
    const unsigned g_bits = (t & 1) ? other : bits, g8_bits = (t & 1) ? bits : other;
    const int sh = (t & 1) * 2;  // keys 2t, 2t+1 within the group: bits 0-1 (t even) or 2-3 (t odd)
    keep[0] = (g_bits >> sh) & 1;
    keep[1] = (g_bits >> (sh + 1)) & 1;
    keep[2] = (g8_bits >> sh) & 1;
    keep[3] = (g8_bits >> (sh + 1)) & 1;
  } else {
    const uint64_t e = e_row + 2 * t;
    keep[0] = d.keep(e);
    keep[1] = d.keep(e + 1);
    keep[2] = d.keep(e + row_stride);
    keep[3] = d.keep(e + row_stride + 1);
  }
}

__global__ void __launch_bounds__(kWarps * 32, 4) attention_forward_kernel(AttentionForwardArgs a) {
  __shared__ __align__(128) ForwardShared sh;
  a.dropout = a.dropout.resolved();
  const auto [seq, head, q0, s0, len, warp, lane, hd, ld, base] = block_tile(a);
  if (q0 >= len) return;
  const int g = lane >> 2, t = lane & 3;

  load_tile(sh.q, base, ld, q0, len);
  __syncthreads();
  // Q fragments of the warp's 16 rows, 4 chunks of 16 dims
  uint32_t qa[D / 16][4];
#pragma unroll
  for (int kc = 0; kc < D / 16; ++kc)
    ldmatrix_x4(qa[kc], &sh.q[warp * 16 + (lane & 7) + ((lane >> 3) & 1) * 8][kc * 16 + (lane >> 4) * 8]);

  const bool drop = a.dropout.p > 0.f;
  const float dscale = a.dropout.scale();
  const float log2e_scale = kScale * 1.4426950408889634f;
  const uint64_t row_stride = 8ull * a.shape.heads * a.shape.seq_len;  // element distance of rows g, g+8
  const uint64_t e_row0 = (static_cast<uint64_t>(s0 + q0 + warp * 16 + g) * a.shape.heads + head) * a.shape.seq_len;
  const bool aligned = a.shape.seq_len % 4 == 0;

  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};  // rows g, g+8 (l: this lane's partial sum)
  float o[kDimBlocks][4];
#pragma unroll
  for (int n = 0; n < kDimBlocks; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.f;

  for (int k0 = 0; k0 < len; k0 += kTile) {
    __syncthreads();  // the previous tile's K/V are consumed
    load_tile(sh.k, base + hd, ld, k0, len);
    load_tile(sh.v, base + 2 * hd, ld, k0, len);
    __syncthreads();

    // S = Q K^T: K rows are B's columns, so plain ldmatrix of K rows gives B fragments
    float s[kKeyBlocks][4];
#pragma unroll
    for (int nb = 0; nb < kKeyBlocks; ++nb) {
      s[nb][0] = s[nb][1] = s[nb][2] = s[nb][3] = 0.f;
#pragma unroll
      for (int kc2 = 0; kc2 < D / 32; ++kc2) {
        uint32_t kb[4];  // dims kc2*32 + {0, 8, 16, 24}: b0, b1 of chunk 2*kc2 and of chunk 2*kc2+1
        ldmatrix_x4(kb, &sh.k[nb * 8 + (lane & 7)][kc2 * 32 + (lane >> 3) * 8]);
        mma_16816(s[nb], qa[2 * kc2], kb[0], kb[1]);
        mma_16816(s[nb], qa[2 * kc2 + 1], kb[2], kb[3]);
      }
    }

    // online softmax over this tile, rows g (c0, c1) and g+8 (c2, c3)
    float tmax[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int nb = 0; nb < kKeyBlocks; ++nb) {
      const int key = k0 + nb * 8 + 2 * t;
      const bool v0 = key < len, v1 = key + 1 < len;
      s[nb][0] = v0 ? s[nb][0] * log2e_scale : -INFINITY;
      s[nb][1] = v1 ? s[nb][1] * log2e_scale : -INFINITY;
      s[nb][2] = v0 ? s[nb][2] * log2e_scale : -INFINITY;
      s[nb][3] = v1 ? s[nb][3] * log2e_scale : -INFINITY;
      tmax[0] = fmaxf(tmax[0], fmaxf(s[nb][0], s[nb][1]));
      tmax[1] = fmaxf(tmax[1], fmaxf(s[nb][2], s[nb][3]));
    }
    float alpha[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      tmax[r] = fmaxf(tmax[r], __shfl_xor_sync(0xffffffffu, tmax[r], 1));
      tmax[r] = fmaxf(tmax[r], __shfl_xor_sync(0xffffffffu, tmax[r], 2));
      const float mn = fmaxf(m[r], tmax[r]);  // finite: key k0 < len is valid
      alpha[r] = exp2f(m[r] - mn);
      m[r] = mn;
      l[r] *= alpha[r];
    }
#pragma unroll
    for (int n = 0; n < kDimBlocks; ++n) {
      o[n][0] *= alpha[0];
      o[n][1] *= alpha[0];
      o[n][2] *= alpha[1];
      o[n][3] *= alpha[1];
    }

    // P (undropped into the normaliser, dropped into O), as bf16 A fragments of 16-key chunks
    uint32_t pa[kTile / 16][4];
#pragma unroll
    for (int nb = 0; nb < kKeyBlocks; ++nb) {
      float p[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) p[j] = exp2f(s[nb][j] - m[j >> 1]);
      l[0] += p[0] + p[1];
      l[1] += p[2] + p[3];
      if (drop) {
        bool keep[4];
        block_keeps(a.dropout, e_row0 + k0 + nb * 8, row_stride, t, aligned, keep);
#pragma unroll
        for (int j = 0; j < 4; ++j) p[j] = keep[j] ? p[j] * dscale : 0.f;
      }
      // 8-key block nb is half (nb & 1) of 16-key chunk nb/2: a0/a1 (keys 0-7) or a2/a3 (keys 8-15)
      pa[nb >> 1][(nb & 1) * 2] = pack_bf16(p[0], p[1]);
      pa[nb >> 1][(nb & 1) * 2 + 1] = pack_bf16(p[2], p[3]);
    }

    // O += P V: V rows are keys (B's k), so ldmatrix.trans gives B fragments of two 8-dim blocks
#pragma unroll
    for (int kc = 0; kc < kTile / 16; ++kc) {
#pragma unroll
      for (int n2 = 0; n2 < kDimBlocks / 2; ++n2) {
        uint32_t vb[4];  // b0, b1 of dims n2*16..+7, then of dims n2*16+8..+15
        ldmatrix_x4_trans(vb, &sh.v[kc * 16 + (lane & 7) + ((lane >> 3) & 1) * 8][n2 * 16 + (lane >> 4) * 8]);
        mma_16816(o[2 * n2], pa[kc], vb[0], vb[1]);
        mma_16816(o[2 * n2 + 1], pa[kc], vb[2], vb[3]);
      }
    }
  }

#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int q = q0 + warp * 16 + g + 8 * r;
    if (q >= len) continue;
    const size_t tok = static_cast<size_t>(s0 + q);
    const float inv = 1.f / l[r];
    bf16* dst = a.out + tok * hd + head * D + 2 * t;
#pragma unroll
    for (int n = 0; n < kDimBlocks; ++n)
      *reinterpret_cast<__nv_bfloat162*>(dst + n * 8) = __floats2bfloat162_rn(o[n][2 * r] * inv, o[n][2 * r + 1] * inv);
    if (t == 0) a.lse[static_cast<size_t>(head) * a.shape.tokens + tok] = (m[r] + log2f(l[r])) * 0.6931471805599453f;
  }
}

}  // namespace

void attention_forward(const AttentionForwardArgs& a, cudaStream_t stream) {
  check_shape(a.shape);
  if (a.shape.tokens == 0) return;
  // Rows of tokens outside every sequence (padding) must read as zeros downstream.
  BERT_CUDA_CHECK(cudaMemsetAsync(a.out, 0, static_cast<size_t>(a.shape.tokens) * a.shape.heads * D * sizeof(bf16), stream));
  if (a.shape.num_sequences == 0 || a.shape.max_seqlen == 0) return;
  const dim3 grid(dev::ceil_div(a.shape.max_seqlen, kTile), a.shape.heads, a.shape.num_sequences);
  attention_forward_kernel<<<grid, kWarps * 32, 0, stream>>>(a);
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
