// Attention forward: block = (64-query tile, head, sequence), 4 warps of 16 query rows.
// Per 64-key tile: S = Q K^T on tensor cores (wmma bf16, fp32 accumulate) into a per-warp fp32
// scratch; each warp then runs the online softmax row by row (lane owns 2 adjacent columns),
// applies dropout, writes P as bf16, and P V (tensor cores) is folded into fp32 registers.
#include <mma.h>

#include "trainer/cuda/attention_common.cuh"

namespace bert::cuda {
namespace {

using namespace nvcuda;
using namespace attn;

struct ForwardShared {
  union {
    bf16 q[kTile][kLdH];          // only until the Q fragments are in registers
    bf16 p[kWarps][16][kLdH];     // then the warps' probability tiles
  };
  bf16 k[kTile][kLdH];
  bf16 v[kTile][kLdH];
  float s[kWarps][16][kLdF];      // scores, then the P V partial product
};

__global__ void __launch_bounds__(kWarps * 32) attention_forward_kernel(AttentionForwardArgs a) {
  __shared__ __align__(128) ForwardShared sh;
  a.dropout = a.dropout.resolved();
  const auto [seq, head, q0, s0, len, warp, lane, hd, ld, base] = block_tile(a);
  if (q0 >= len) return;

  load_tile(sh.q, base, ld, q0, len);
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> qf[D / 16];
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) wmma::load_matrix_sync(qf[kk], &sh.q[warp * 16][kk * 16], kLdH);
  __syncthreads();  // sh.q is reused as sh.p below

  const float dscale = a.dropout.scale();
  const float log2e_scale = kScale * 1.4426950408889634f;
  float m[16], l[16], o[16][2];
#pragma unroll
  for (int r = 0; r < 16; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.f;
    o[r][0] = o[r][1] = 0.f;
  }

  for (int k0 = 0; k0 < len; k0 += kTile) {
    __syncthreads();  // previous tile's K/V fully consumed
    load_tile(sh.k, base + hd, ld, k0, len);
    load_tile(sh.v, base + 2 * hd, ld, k0, len);
    __syncthreads();

#pragma unroll
    for (int n = 0; n < kTile / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.f);
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> kf;
        wmma::load_matrix_sync(kf, &sh.k[n * 16][kk * 16], kLdH);
        wmma::mma_sync(acc, qf[kk], kf, acc);
      }
      wmma::store_matrix_sync(&sh.s[warp][0][n * 16], acc, kLdF, wmma::mem_row_major);
    }
    __syncwarp();

    const int c = 2 * lane;
    const bool valid0 = k0 + c < len, valid1 = k0 + c + 1 < len;
#pragma unroll
    for (int r = 0; r < 16; ++r) {
      const float2 sv = *reinterpret_cast<const float2*>(&sh.s[warp][r][c]);
      const float x0 = valid0 ? sv.x * log2e_scale : -INFINITY;
      const float x1 = valid1 ? sv.y * log2e_scale : -INFINITY;
      const float mn = fmaxf(m[r], dev::warp_max(fmaxf(x0, x1)));  // finite: key k0 is valid
      const float alpha = exp2f(m[r] - mn);
      float p0 = exp2f(x0 - mn), p1 = exp2f(x1 - mn);
      l[r] = l[r] * alpha + dev::warp_sum(p0 + p1);
      m[r] = mn;
      o[r][0] *= alpha;
      o[r][1] *= alpha;
      if (a.dropout.p > 0.f) {
        const uint64_t qtok = static_cast<uint64_t>(s0 + q0 + warp * 16 + r);
        const uint64_t e = (qtok * a.shape.heads + head) * a.shape.seq_len + k0 + c;
        bool k2[2];
        if ((e & 1) == 0) {
          a.dropout.keep2(e, k2);  // c is even: one Philox call for the lane's two keys
        } else {
          k2[0] = a.dropout.keep(e);
          k2[1] = a.dropout.keep(e + 1);
        }
        p0 = k2[0] ? p0 * dscale : 0.f;
        p1 = k2[1] ? p1 * dscale : 0.f;
      }
      sh.p[warp][r][c] = __float2bfloat16(p0);
      sh.p[warp][r][c + 1] = __float2bfloat16(p1);
    }
    __syncwarp();

#pragma unroll
    for (int n = 0; n < D / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.f);
#pragma unroll
      for (int kk = 0; kk < kTile / 16; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> pf;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> vf;
        wmma::load_matrix_sync(pf, &sh.p[warp][0][kk * 16], kLdH);
        wmma::load_matrix_sync(vf, &sh.v[kk * 16][n * 16], kLdH);
        wmma::mma_sync(acc, pf, vf, acc);
      }
      wmma::store_matrix_sync(&sh.s[warp][0][n * 16], acc, kLdF, wmma::mem_row_major);
    }
    __syncwarp();
#pragma unroll
    for (int r = 0; r < 16; ++r) {
      const float2 pv = *reinterpret_cast<const float2*>(&sh.s[warp][r][c]);
      o[r][0] += pv.x;
      o[r][1] += pv.y;
    }
    __syncwarp();
  }

  const int c = 2 * lane;
#pragma unroll
  for (int r = 0; r < 16; ++r) {
    const int q = q0 + warp * 16 + r;
    if (q >= len) continue;
    const size_t tok = static_cast<size_t>(s0 + q);
    const float inv = 1.f / l[r];
    __nv_bfloat162 v2;
    v2.x = __float2bfloat16(o[r][0] * inv);
    v2.y = __float2bfloat16(o[r][1] * inv);
    *reinterpret_cast<__nv_bfloat162*>(a.out + tok * hd + head * D + c) = v2;
    if (lane == 0) a.lse[static_cast<size_t>(head) * a.shape.tokens + tok] = (m[r] + log2f(l[r])) * 0.6931471805599453f;
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
