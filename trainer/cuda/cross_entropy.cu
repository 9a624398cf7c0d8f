#include "trainer/cuda/check.h"
#include "trainer/cuda/cross_entropy.h"
#include "trainer/cuda/device_utils.cuh"

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

__global__ void cross_entropy_kernel(CrossEntropyArgs a) {
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
  const float scale = a.grad_scale * (a.grad_scale_dev ? *a.grad_scale_dev : 1.f);
  bf16* d = a.dlogits + static_cast<size_t>(row) * a.ld;
  for (int c = threadIdx.x; c < a.ld; c += blockDim.x) {
    float g = 0.f;
    if (valid && c < a.vocab) g = scale * (__expf(__bfloat162float(x[c]) - m) * inv - (c == label ? 1.f : 0.f));
    d[c] = __float2bfloat16(g);
  }
}

__global__ void inverse_valid_count_kernel(const int32_t* labels, int n, float* out) {
  __shared__ int warp_counts[32];
  int c = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) c += labels[i] >= 0 ? 1 : 0;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) c += __shfl_xor_sync(0xffffffffu, c, o);
  if ((threadIdx.x & 31) == 0) warp_counts[threadIdx.x >> 5] = c;
  __syncthreads();
  if (threadIdx.x == 0) {
    int t = 0;
    for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) t += warp_counts[w];
    *out = 1.f / static_cast<float>(t > 0 ? t : 1);
  }
}

}  // namespace

void inverse_valid_count(const int32_t* labels, int n, float* out, cudaStream_t stream) {
  inverse_valid_count_kernel<<<1, 256, 0, stream>>>(labels, n, out);
  BERT_CUDA_CHECK_LAUNCH();
}

void cross_entropy(const CrossEntropyArgs& a, cudaStream_t stream) {
  if (a.vocab <= 0 || a.ld < a.vocab) throw CudaError("cross_entropy: need 0 < vocab <= ld");
  if (a.rows <= 0) return;
  const int threads = a.vocab >= 256 ? 256 : 32;
  cross_entropy_kernel<<<a.rows, threads, 0, stream>>>(a);
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
