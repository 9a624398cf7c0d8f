// Attention backward (FlashAttention-2 order): block = (64-key tile, head, sequence), 4 warps of 16
// keys. For each 64-query tile: S^T = K Q^T and dP^T = V dO^T on tensor cores, then per element
// P = exp(S/8 - lse), dS = P (dP * mask/(1-p) - Dq) with Dq = rowsum(dO * O) precomputed;
// dV += (P*mask/(1-p))^T dO and dK += dS^T Q stay in registers, dQ += dS K is accumulated in an
// fp32 buffer with atomics and cast into dqkv by a last small kernel.
#include <mma.h>

#include "trainer/cuda/attention_common.cuh"

namespace bert::cuda {
namespace {

using namespace nvcuda;
using namespace attn;

struct BackwardShared {
  bf16 k[kTile][kLdH];
  bf16 v[kTile][kLdH];
  bf16 q[kTile][kLdH];
  bf16 dout[kTile][kLdH];
  bf16 ds[kTile][kLdH];          // dS^T of the whole block: [key][query]
  bf16 pd[kWarps][16][kLdH];     // dropped probabilities^T per warp
  float s[kWarps][16][kLdF];     // S^T, later the dQ partial
  float dp[kWarps][16][kLdF];    // dP^T
  float lse[kTile];
  float dq[kTile];               // Dq = rowsum(dO * O)
};

// Dq[head, tok] = sum_d dO[tok, head, d] * O[tok, head, d]: one warp per (token, head).
__global__ void attention_dq_dot_kernel(const bf16* out, const bf16* dout, int tokens, int heads, float* dvec) {
  const size_t w = (blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (w >= static_cast<size_t>(tokens) * heads) return;
  const size_t tok = w / heads;
  const int head = static_cast<int>(w % heads);
  const size_t off = tok * heads * D + head * D + 2 * lane;
  const __nv_bfloat162 o = *reinterpret_cast<const __nv_bfloat162*>(out + off);
  const __nv_bfloat162 g = *reinterpret_cast<const __nv_bfloat162*>(dout + off);
  float s = __bfloat162float(o.x) * __bfloat162float(g.x) + __bfloat162float(o.y) * __bfloat162float(g.y);
  s = dev::warp_sum(s);
  if (lane == 0) dvec[static_cast<size_t>(head) * tokens + tok] = s;
}

__global__ void __launch_bounds__(kWarps * 32) attention_backward_kernel(AttentionBackwardArgs a, const float* dvec,
                                                                         float* dq_acc) {
  extern __shared__ __align__(128) unsigned char smem[];
  BackwardShared& sh = *reinterpret_cast<BackwardShared*>(smem);
  a.dropout = a.dropout.resolved();
  const auto [seq, head, k0, s0, len, warp, lane, hd, ld, base] = block_tile(a);
  if (k0 >= len) return;
  const bf16* dobase = a.dout + static_cast<size_t>(s0) * hd + head * D;
  const float* lse = a.lse + static_cast<size_t>(head) * a.shape.tokens + s0;
  const float* dv = dvec + static_cast<size_t>(head) * a.shape.tokens + s0;

  load_tile(sh.k, base + hd, ld, k0, len);
  load_tile(sh.v, base + 2 * hd, ld, k0, len);

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> dk[D / 16], dvf[D / 16];
#pragma unroll
  for (int n = 0; n < D / 16; ++n) {
    wmma::fill_fragment(dk[n], 0.f);
    wmma::fill_fragment(dvf[n], 0.f);
  }
  const float dscale = a.dropout.scale();
  const int c = 2 * lane;

  for (int q0 = 0; q0 < len; q0 += kTile) {
    __syncthreads();  // previous tile fully consumed
    load_tile(sh.q, base, ld, q0, len);
    load_tile(sh.dout, dobase, hd, q0, len);
    for (int i = threadIdx.x; i < kTile; i += blockDim.x) {
      const bool ok = q0 + i < len;
      sh.lse[i] = ok ? lse[q0 + i] : INFINITY;  // P = exp(s - inf) = 0 for queries past the end
      sh.dq[i] = ok ? dv[q0 + i] : 0.f;
    }
    __syncthreads();

    // S^T (keys x queries) and dP^T = V dO^T for this warp's 16 keys.
#pragma unroll
    for (int n = 0; n < kTile / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> s_acc, dp_acc;
      wmma::fill_fragment(s_acc, 0.f);
      wmma::fill_fragment(dp_acc, 0.f);
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> kf, vf;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> qf, gf;
        wmma::load_matrix_sync(kf, &sh.k[warp * 16][kk * 16], kLdH);
        wmma::load_matrix_sync(vf, &sh.v[warp * 16][kk * 16], kLdH);
        wmma::load_matrix_sync(qf, &sh.q[n * 16][kk * 16], kLdH);
        wmma::load_matrix_sync(gf, &sh.dout[n * 16][kk * 16], kLdH);
        wmma::mma_sync(s_acc, kf, qf, s_acc);
        wmma::mma_sync(dp_acc, vf, gf, dp_acc);
      }
      wmma::store_matrix_sync(&sh.s[warp][0][n * 16], s_acc, kLdF, wmma::mem_row_major);
      wmma::store_matrix_sync(&sh.dp[warp][0][n * 16], dp_acc, kLdF, wmma::mem_row_major);
    }
    __syncwarp();

    // Lane owns queries lane and lane+32 and walks the warp's keys in fours: the dropout elements
    // of (query, key..key+3) are adjacent and (seq_len % 4 == 0) start a Philox block, so one
    // Philox call serves all four.
#pragma unroll 1
    for (int r = 0; r < 16; r += 4) {
      const int key0 = k0 + warp * 16 + r;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int q = lane + 32 * h;
        bool keep4[4] = {true, true, true, true};
        if (a.dropout.p > 0.f && q0 + q < len && key0 < len) {
          const uint64_t qtok = static_cast<uint64_t>(s0 + q0 + q);
          const uint64_t e = (qtok * a.shape.heads + head) * a.shape.seq_len + key0;
          if ((e & 3) == 0) {
            a.dropout.keep4(e, keep4);
          } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) keep4[j] = a.dropout.keep(e + j);
          }
        }
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const float p = key0 + j < len ? __expf(sh.s[warp][r + j][q] * kScale - sh.lse[q]) : 0.f;
          const float keep = keep4[j] ? dscale : 0.f;
          sh.ds[warp * 16 + r + j][q] = __float2bfloat16(p * (sh.dp[warp][r + j][q] * keep - sh.dq[q]));  // dS
          sh.pd[warp][r + j][q] = __float2bfloat16(p * keep);  // dropped probability
        }
      }
    }
    __syncwarp();

    // dV += Pd^T dO, dK += dS^T Q (this warp's 16 keys).
#pragma unroll
    for (int n = 0; n < D / 16; ++n) {
#pragma unroll
      for (int kk = 0; kk < kTile / 16; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> pf, dsf;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> gf, qf;
        wmma::load_matrix_sync(pf, &sh.pd[warp][0][kk * 16], kLdH);
        wmma::load_matrix_sync(dsf, &sh.ds[warp * 16][kk * 16], kLdH);
        wmma::load_matrix_sync(gf, &sh.dout[kk * 16][n * 16], kLdH);
        wmma::load_matrix_sync(qf, &sh.q[kk * 16][n * 16], kLdH);
        wmma::mma_sync(dvf[n], pf, gf, dvf[n]);
        wmma::mma_sync(dk[n], dsf, qf, dk[n]);
      }
    }
    __syncthreads();  // every warp's dS^T rows are in sh.ds

    // dQ rows [warp*16, +16) of this query tile = dS (queries x 64 keys) K.
#pragma unroll
    for (int n = 0; n < D / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.f);
#pragma unroll
      for (int kk = 0; kk < kTile / 16; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::col_major> dsf;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> kf;
        wmma::load_matrix_sync(dsf, &sh.ds[kk * 16][warp * 16], kLdH);
        wmma::load_matrix_sync(kf, &sh.k[kk * 16][n * 16], kLdH);
        wmma::mma_sync(acc, dsf, kf, acc);
      }
      wmma::store_matrix_sync(&sh.s[warp][0][n * 16], acc, kLdF, wmma::mem_row_major);
    }
    __syncwarp();
    for (int r = 0; r < 16; ++r) {
      const int q = q0 + warp * 16 + r;
      if (q >= len) break;
      float* dst = dq_acc + static_cast<size_t>(s0 + q) * hd + head * D + c;
      atomicAdd(dst, sh.s[warp][r][c] * kScale);
      atomicAdd(dst + 1, sh.s[warp][r][c + 1] * kScale);
    }
  }

  // dK (scaled) and dV of this warp's keys into dqkv.
#pragma unroll
  for (int n = 0; n < D / 16; ++n) {
#pragma unroll
    for (int e = 0; e < dk[n].num_elements; ++e) dk[n].x[e] *= kScale;
    wmma::store_matrix_sync(&sh.s[warp][0][n * 16], dk[n], kLdF, wmma::mem_row_major);
    wmma::store_matrix_sync(&sh.dp[warp][0][n * 16], dvf[n], kLdF, wmma::mem_row_major);
  }
  __syncwarp();
  bf16* dbase = a.dqkv + static_cast<size_t>(s0) * ld + head * D;
  for (int r = 0; r < 16; ++r) {
    const int key = k0 + warp * 16 + r;
    if (key >= len) break;
    __nv_bfloat162 kv, vv;
    kv.x = __float2bfloat16(sh.s[warp][r][c]);
    kv.y = __float2bfloat16(sh.s[warp][r][c + 1]);
    vv.x = __float2bfloat16(sh.dp[warp][r][c]);
    vv.y = __float2bfloat16(sh.dp[warp][r][c + 1]);
    *reinterpret_cast<__nv_bfloat162*>(dbase + static_cast<size_t>(key) * ld + hd + c) = kv;
    *reinterpret_cast<__nv_bfloat162*>(dbase + static_cast<size_t>(key) * ld + 2 * hd + c) = vv;
  }
}

// dqkv[tok, Q part] = bf16(dq_acc[tok]).
__global__ void attention_dq_store_kernel(const float* dq_acc, bf16* dqkv, size_t n, int hd) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t tok = i / hd, col = i % hd;
    dqkv[tok * 3 * hd + col] = __float2bfloat16(dq_acc[i]);
  }
}

}  // namespace

size_t attention_backward_scratch_floats(const AttentionShape& s) {
  // dQ accumulator [tokens, heads*64] + Dq [heads, tokens]
  return static_cast<size_t>(s.tokens) * s.heads * D + static_cast<size_t>(s.heads) * s.tokens;
}

void attention_backward(const AttentionBackwardArgs& a, cudaStream_t stream) {
  check_shape(a.shape);
  if (a.shape.tokens == 0) return;
  const size_t hd = static_cast<size_t>(a.shape.heads) * D;
  const size_t n_dq = static_cast<size_t>(a.shape.tokens) * hd;
  float* dq_acc = a.scratch;
  float* dvec = a.scratch + n_dq;
  BERT_CUDA_CHECK(cudaMemsetAsync(a.dqkv, 0, 3 * n_dq * sizeof(bf16), stream));
  BERT_CUDA_CHECK(cudaMemsetAsync(dq_acc, 0, n_dq * sizeof(float), stream));
  if (a.shape.num_sequences == 0 || a.shape.max_seqlen == 0) return;

  const size_t warps = static_cast<size_t>(a.shape.tokens) * a.shape.heads;
  attention_dq_dot_kernel<<<dev::ceil_div(warps * 32, 256), 256, 0, stream>>>(a.out, a.dout, a.shape.tokens,
                                                                             a.shape.heads, dvec);
  BERT_CUDA_CHECK_LAUNCH();

  static bool attribute_set = false;  // per process; the attribute is per function, all devices alike
  if (!attribute_set) {
    BERT_CUDA_CHECK(cudaFuncSetAttribute(attention_backward_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(sizeof(BackwardShared))));
    attribute_set = true;
  }
  const dim3 grid(dev::ceil_div(a.shape.max_seqlen, kTile), a.shape.heads, a.shape.num_sequences);
  attention_backward_kernel<<<grid, kWarps * 32, sizeof(BackwardShared), stream>>>(a, dvec, dq_acc);
  BERT_CUDA_CHECK_LAUNCH();
  attention_dq_store_kernel<<<std::min(dev::ceil_div(n_dq, 256), 8192u), 256, 0, stream>>>(dq_acc, a.dqkv, n_dq,
                                                                                          static_cast<int>(hd));
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
