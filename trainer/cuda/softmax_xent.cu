#include "trainer/cuda/check.h"
#include "trainer/cuda/device_utils.cuh"
#include "trainer/cuda/softmax_xent.h"

#include <cfloat>

namespace bert::cuda {
namespace {

using dev::bf16;

struct RowStat {
  float m, s;    // running max and sum of exp(x - m)
  float best;    // argmax value
  int arg;       // argmax index
};

__device__ __forceinline__ RowStat combine(RowStat a, RowStat b) {
  RowStat r;
  r.m = fmaxf(a.m, b.m);
  r.s = (a.s == 0.f ? 0.f : a.s * __expf(a.m - r.m)) + (b.s == 0.f ? 0.f : b.s * __expf(b.m - r.m));
  const bool take_b = b.best > a.best || (b.best == a.best && b.arg < a.arg);
  r.best = take_b ? b.best : a.best;
  r.arg = take_b ? b.arg : a.arg;
  return r;
}

__device__ __forceinline__ RowStat shfl(RowStat v, int o) {
  RowStat r;
  r.m = __shfl_xor_sync(0xffffffffu, v.m, o);
  r.s = __shfl_xor_sync(0xffffffffu, v.s, o);
  r.best = __shfl_xor_sync(0xffffffffu, v.best, o);
  r.arg = __shfl_xor_sync(0xffffffffu, v.arg, o);
  return r;
}

__global__ void softmax_xent_kernel(SoftmaxXentArgs a) {
  __shared__ RowStat warp_stats[32];
  __shared__ RowStat total;
  const int row = blockIdx.x;
  const bf16* x = a.logits + static_cast<size_t>(row) * a.ld;
  const int label = a.labels[row];

  RowStat st{-FLT_MAX, 0.f, -FLT_MAX, 0x7fffffff};
  for (int c = threadIdx.x; c < a.vocab; c += blockDim.x) {
    const float v = __bfloat162float(x[c]);
    if (v > st.m) {
      st.s = st.s * __expf(st.m - v) + 1.f;
      st.m = v;
    } else {
      st.s += __expf(v - st.m);
    }
    if (v > st.best) {  // c increases, so the first maximum stays
      st.best = v;
      st.arg = c;
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) st = combine(st, shfl(st, o));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_stats[warp] = st;
  __syncthreads();
  if (threadIdx.x == 0) {
    RowStat t = warp_stats[0];
    for (int w = 1; w < static_cast<int>(blockDim.x >> 5); ++w) t = combine(t, warp_stats[w]);
    total = t;
    const bool valid = label >= 0 && label < a.vocab;
    a.loss[row] = valid ? (t.m + __logf(t.s)) - __bfloat162float(x[label]) : 0.f;
    if (a.correct) a.correct[row] = valid && t.arg == label ? 1 : 0;
  }
  __syncthreads();
  if (!a.dlogits) return;
  const bool valid = label >= 0 && label < a.vocab;
  const float m = total.m, inv = 1.f / total.s;
  bf16* d = a.dlogits + static_cast<size_t>(row) * a.ld;
  for (int c = threadIdx.x; c < a.ld; c += blockDim.x) {
    float g = 0.f;
    if (valid && c < a.vocab) g = a.grad_scale * (__expf(__bfloat162float(x[c]) - m) * inv - (c == label ? 1.f : 0.f));
    d[c] = __float2bfloat16(g);
  }
}

}  // namespace

void softmax_xent(const SoftmaxXentArgs& a, cudaStream_t stream) {
  if (a.vocab <= 0 || a.ld < a.vocab) throw CudaError("softmax_xent: need 0 < vocab <= ld");
  if (a.rows <= 0) return;
  const int threads = a.vocab >= 256 ? 256 : 32;
  softmax_xent_kernel<<<a.rows, threads, 0, stream>>>(a);
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
