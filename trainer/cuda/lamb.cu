#include "trainer/cuda/check.h"
#include "trainer/cuda/device_utils.cuh"
#include "trainer/cuda/lamb.h"

#include <algorithm>
#include <cmath>

namespace bert::cuda {
namespace {

constexpr int kThreads = 256;

struct ChunkTable {
  const int64_t* begin;
  const int32_t* len;
  const int32_t* tensor;
};

// Deterministic block sum (fixed tree); result valid in every thread.
__device__ float block_sum(float v) {
  __shared__ float warp_part[kThreads / 32];
  __shared__ float result;
  v = dev::warp_sum(v);
  if ((threadIdx.x & 31) == 0) warp_part[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    float t = threadIdx.x < kThreads / 32 ? warp_part[threadIdx.x] : 0.f;
    t = dev::warp_sum(t);
    if (threadIdx.x == 0) result = t;
  }
  __syncthreads();
  const float r = result;
  __syncthreads();  // the shared slots may be reused by the next call
  return r;
}

// Calls f(i, j) for the chunk's elements: j = 0..3 of the float4 group i for the first len/4 groups,
// then the scalar tail (i = -1, j = element). Chunks start 16-byte aligned (tensors at kParamAlign
// floats, chunks at multiples of kChunk), so the float4 accesses are aligned.
template <class F4, class F1>
__device__ __forceinline__ void for_chunk(int len, F4 vec, F1 scalar) {
  const int n4 = len >> 2;
  for (int i = threadIdx.x; i < n4; i += kThreads) vec(i);
  for (int i = 4 * n4 + threadIdx.x; i < len; i += kThreads) scalar(i);
}

__device__ __forceinline__ float4 ld4(const float* p, int i) { return reinterpret_cast<const float4*>(p)[i]; }
__device__ __forceinline__ void st4(float* p, int i, float4 v) { reinterpret_cast<float4*>(p)[i] = v; }

__global__ void grad_sumsq_kernel(ChunkTable ct, const float* g, float* chunk_gsq) {
  const int c = blockIdx.x;
  const float* p = g + ct.begin[c];
  float s = 0.f;
  for_chunk(
      ct.len[c],
      [&](int i) {
        const float4 x = ld4(p, i);
        s += x.x * x.x + x.y * x.y + x.z * x.z + x.w * x.w;
      },
      [&](int i) { s += p[i] * p[i]; });
  s = block_sum(s);
  if (threadIdx.x == 0) chunk_gsq[c] = s;
}

__global__ void global_norm_kernel(const float* chunk_gsq, int chunks, float max_norm, float* state_f) {
  float s = 0.f;
  for (int i = threadIdx.x; i < chunks; i += kThreads) s += chunk_gsq[i];
  s = block_sum(s);
  if (threadIdx.x == 0) {
    const float norm = sqrtf(s);
    state_f[1] = norm;
    state_f[2] = (max_norm > 0.f && norm > max_norm) ? max_norm / norm : 1.f;
  }
}

__global__ void moments_kernel(ChunkTable ct, const uint8_t* excluded, LambHyper h, const int32_t* step,
                               const float* state_f, const float* w, float* g, float* m, float* v, float* chunk_wu) {
  const int c = blockIdx.x;
  const int64_t b = ct.begin[c];
  const float clip = state_f[2];
  const float t = static_cast<float>(*step + 1);
  const float bc1 = 1.f - powf(h.beta1, t), bc2 = 1.f - powf(h.beta2, t);
  const float wd = excluded[ct.tensor[c]] ? 0.f : h.weight_decay;
  float sw = 0.f, su = 0.f;
  // one element: gradient in, moments updated, the update direction out (over the gradient)
  auto one = [&](float gi, float& mi, float& vi, float wi) {
    gi *= clip;
    mi = h.beta1 * mi + (1.f - h.beta1) * gi;
    vi = h.beta2 * vi + (1.f - h.beta2) * gi * gi;
    const float u = (mi / bc1) / (sqrtf(vi / bc2) + h.epsilon) + wd * wi;
    sw += wi * wi;
    su += u * u;
    return u;
  };
  float *gc = g + b, *mc = m + b, *vc = v + b;
  const float* wc = w + b;
  for_chunk(
      ct.len[c],
      [&](int i) {
        const float4 gi = ld4(gc, i), wi = ld4(wc, i);
        float4 mi = ld4(mc, i), vi = ld4(vc, i);
        const float4 u{one(gi.x, mi.x, vi.x, wi.x), one(gi.y, mi.y, vi.y, wi.y), one(gi.z, mi.z, vi.z, wi.z),
                       one(gi.w, mi.w, vi.w, wi.w)};
        st4(mc, i, mi);
        st4(vc, i, vi);
        st4(gc, i, u);
      },
      [&](int i) { gc[i] = one(gc[i], mc[i], vc[i], wc[i]); });
  sw = block_sum(sw);
  su = block_sum(su);
  if (threadIdx.x == 0) {
    chunk_wu[2 * c] = sw;
    chunk_wu[2 * c + 1] = su;
  }
}

__global__ void trust_ratio_kernel(const int32_t* first_chunk, const uint8_t* excluded, const float* chunk_wu,
                                   LambHyper h, int32_t* step, float* state_f, float* ratio) {
  const int t = blockIdx.x;
  float sw = 0.f, su = 0.f;
  for (int c = first_chunk[t] + threadIdx.x; c < first_chunk[t + 1]; c += kThreads) {
    sw += chunk_wu[2 * c];
    su += chunk_wu[2 * c + 1];
  }
  sw = block_sum(sw);
  su = block_sum(su);
  if (threadIdx.x == 0) {
    ratio[t] = (excluded[t] || sw <= 0.f || su <= 0.f) ? 1.f : sqrtf(sw) / sqrtf(su);
    if (t == 0) {  // the moments kernel has consumed the step counter; the update needs only lr
      state_f[0] = lamb_learning_rate(h, *step);
      *step += 1;
    }
  }
}

__global__ void update_kernel(ChunkTable ct, const float* ratio, const float* state_f, const float* u, float* w,
                              __nv_bfloat16* w16) {
  const int c = blockIdx.x;
  const int64_t b = ct.begin[c];
  const float scale = state_f[0] * ratio[ct.tensor[c]];
  float* wc = w + b;
  const float* uc = u + b;
  __nv_bfloat16* w16c = w16 ? w16 + b : nullptr;
  for_chunk(
      ct.len[c],
      [&](int i) {
        const float4 wi = ld4(wc, i), ui = ld4(uc, i);
        const float4 nw{wi.x - scale * ui.x, wi.y - scale * ui.y, wi.z - scale * ui.z, wi.w - scale * ui.w};
        st4(wc, i, nw);
        if (w16c) {  // 4 bf16 = 8 bytes, aligned like the float4
          const __nv_bfloat162 lo = __floats2bfloat162_rn(nw.x, nw.y), hi = __floats2bfloat162_rn(nw.z, nw.w);
          uint2 packed;
          packed.x = *reinterpret_cast<const uint32_t*>(&lo);
          packed.y = *reinterpret_cast<const uint32_t*>(&hi);
          reinterpret_cast<uint2*>(w16c)[i] = packed;
        }
      },
      [&](int i) {
        const float nw = wc[i] - scale * uc[i];
        wc[i] = nw;
        if (w16c) w16c[i] = __float2bfloat16(nw);
      });
}

}  // namespace

FusedLamb::FusedLamb(const std::vector<LambTensor>& tensors, const LambHyper& hyper) : h_(hyper) {
  if (h_.schedule.total_steps <= 0) throw CudaError("FusedLamb: total_steps must be positive");
  std::vector<int64_t> begin;
  std::vector<int32_t> len, tensor, first{0};
  std::vector<uint8_t> excl;
  for (size_t t = 0; t < tensors.size(); ++t) {
    for (int64_t o = 0; o < tensors[t].size; o += kChunk) {
      begin.push_back(tensors[t].offset + o);
      len.push_back(static_cast<int32_t>(std::min<int64_t>(kChunk, tensors[t].size - o)));
      tensor.push_back(static_cast<int32_t>(t));
    }
    first.push_back(static_cast<int32_t>(begin.size()));
    excl.push_back(tensors[t].excluded ? 1 : 0);
  }
  num_tensors_ = static_cast<int>(tensors.size());
  num_chunks_ = static_cast<int>(begin.size());
  chunk_begin_ = DeviceBuffer<int64_t>::from(begin);
  chunk_len_ = DeviceBuffer<int32_t>::from(len);
  chunk_tensor_ = DeviceBuffer<int32_t>::from(tensor);
  tensor_first_chunk_ = DeviceBuffer<int32_t>::from(first);
  tensor_excluded_ = DeviceBuffer<uint8_t>::from(excl);
  chunk_gsq_ = DeviceBuffer<float>(num_chunks_);
  chunk_wu_ = DeviceBuffer<float>(2 * static_cast<size_t>(num_chunks_));
  tensor_ratio_ = DeviceBuffer<float>(num_tensors_);
  state_i_ = DeviceBuffer<int32_t>::from({0});
  state_f_ = DeviceBuffer<float>::from({0.f, 0.f, 1.f});
}

void FusedLamb::set_step(int32_t step, cudaStream_t stream) {
  BERT_CUDA_CHECK(cudaMemcpyAsync(state_i_.get(), &step, sizeof(step), cudaMemcpyHostToDevice, stream));
  BERT_CUDA_CHECK(cudaStreamSynchronize(stream));  // `step` lives on this stack frame
}

void FusedLamb::step(float* params, float* grads, float* m, float* v, __nv_bfloat16* params_bf16,
                     cudaStream_t stream) {
  if (num_chunks_ == 0) return;
  const ChunkTable ct{chunk_begin_.get(), chunk_len_.get(), chunk_tensor_.get()};
  grad_sumsq_kernel<<<num_chunks_, kThreads, 0, stream>>>(ct, grads, chunk_gsq_.get());
  BERT_CUDA_CHECK_LAUNCH();
  global_norm_kernel<<<1, kThreads, 0, stream>>>(chunk_gsq_.get(), num_chunks_, h_.max_grad_norm, state_f_.get());
  BERT_CUDA_CHECK_LAUNCH();
  moments_kernel<<<num_chunks_, kThreads, 0, stream>>>(ct, tensor_excluded_.get(), h_, state_i_.get(),
                                                       state_f_.get(), params, grads, m, v, chunk_wu_.get());
  BERT_CUDA_CHECK_LAUNCH();
  trust_ratio_kernel<<<num_tensors_, kThreads, 0, stream>>>(tensor_first_chunk_.get(), tensor_excluded_.get(),
                                                            chunk_wu_.get(), h_, state_i_.get(), state_f_.get(),
                                                            tensor_ratio_.get());
  BERT_CUDA_CHECK_LAUNCH();
  update_kernel<<<num_chunks_, kThreads, 0, stream>>>(ct, tensor_ratio_.get(), state_f_.get(), grads, params,
                                                      params_bf16);
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
