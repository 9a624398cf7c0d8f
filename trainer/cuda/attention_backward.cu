// Attention backward (FlashAttention-2 order, register tiles): the block's work is
// attention_backward_tile (attention_backward_tile.h, also run on the host by tests/unit/cuda against
// models of the PTX instructions), here with the device's warp operations (mma_bf16.cuh). Around it:
// Dq = rowsum(dO * O) per (token, head) first, and dQ, accumulated in fp32 with atomics, cast into
// dqkv by a last small kernel.
#include "trainer/cuda/attention_backward_tile.h"
#include "trainer/cuda/attention_common.cuh"
#include "trainer/cuda/mma_bf16.cuh"

namespace bert::cuda {
namespace {

using namespace attn;

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

__global__ void __launch_bounds__(kWarps * 32, 3) attention_backward_kernel(AttentionBackwardArgs a, const float* dvec,
                                                                         float* dq_acc) {
  __shared__ __align__(128) BackwardShared<bf16> sh;
  BackwardTile<bf16> tile;
  set_sequence_tile(tile, a);
  if (tile.row0 >= tile.len) return;
  tile.dout = a.dout + static_cast<size_t>(tile.s0) * tile.hd + tile.head * D;
  tile.lse = a.lse + static_cast<size_t>(tile.head) * a.shape.tokens + tile.s0;
  tile.dvec = dvec + static_cast<size_t>(tile.head) * a.shape.tokens + tile.s0;
  tile.dq_acc = dq_acc;
  tile.dqkv = a.dqkv;
  tile.keep_bits = head_keep_bits(a, a.keep_bits, tile.head);
  mma::DeviceWarp w;
  attention_backward_tile(w, tile, sh, static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
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
  check_keep_bits(a.shape, a.keep_bits);
  if (a.shape.tokens == 0) return;
  const size_t hd = static_cast<size_t>(a.shape.heads) * D;
  const size_t n_dq = static_cast<size_t>(a.shape.tokens) * hd;
  float* dq_acc = a.scratch;
  float* dvec = a.scratch + n_dq;
  if (a.shape.num_sequences == 0 || a.shape.max_seqlen == 0) {
    BERT_CUDA_CHECK(cudaMemsetAsync(a.dqkv, 0, 3 * n_dq * sizeof(bf16), stream));
    return;
  }
  // dK, dV of tokens outside every sequence must read as zeros (the kernel writes every other row; the dQ
  // columns are all written by the last kernel)
  BERT_CUDA_CHECK(cudaMemset2DAsync(a.dqkv + hd, 3 * hd * sizeof(bf16), 0, 2 * hd * sizeof(bf16),
                                    static_cast<size_t>(a.shape.tokens), stream));
  BERT_CUDA_CHECK(cudaMemsetAsync(dq_acc, 0, n_dq * sizeof(float), stream));

  const size_t warps = static_cast<size_t>(a.shape.tokens) * a.shape.heads;
  attention_dq_dot_kernel<<<dev::ceil_div(warps * 32, 256), 256, 0, stream>>>(a.out, a.dout, a.shape.tokens,
                                                                             a.shape.heads, dvec);
  BERT_CUDA_CHECK_LAUNCH();

  static bool carveout = false;
  prefer_shared_memory(attention_backward_kernel, carveout);
  const dim3 grid(dev::ceil_div(a.shape.max_seqlen, kTile), a.shape.heads, a.shape.num_sequences);
  attention_backward_kernel<<<grid, kWarps * 32, 0, stream>>>(a, dvec, dq_acc);
  BERT_CUDA_CHECK_LAUNCH();
  attention_dq_store_kernel<<<std::min(dev::ceil_div(n_dq, 256), 8192u), 256, 0, stream>>>(dq_acc, a.dqkv, n_dq,
                                                                                          static_cast<int>(hd));
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
