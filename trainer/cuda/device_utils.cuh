// Device-side helpers shared by the kernels (nvcc only).
#pragma once
#include <cuda_bf16.h>
#include <cstdint>

namespace bert::cuda::dev {

using bf16 = __nv_bfloat16;

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// 8 bf16 values moved as one 16-byte access (pointer must be 16-byte aligned).
struct alignas(16) Bf16x8 { bf16 v[8]; };

__device__ __forceinline__ void load8(const bf16* p, float out[8]) {
  const Bf16x8 x = *reinterpret_cast<const Bf16x8*>(p);
#pragma unroll
  for (int i = 0; i < 8; ++i) out[i] = __bfloat162float(x.v[i]);
}
__device__ __forceinline__ void store8(bf16* p, const float in[8]) {
  Bf16x8 x;
#pragma unroll
  for (int i = 0; i < 8; ++i) x.v[i] = __float2bfloat16(in[i]);
  *reinterpret_cast<Bf16x8*>(p) = x;
}
__device__ __forceinline__ void load8(const float* p, float out[8]) {
  const float4 a = reinterpret_cast<const float4*>(p)[0];
  const float4 b = reinterpret_cast<const float4*>(p)[1];
  out[0] = a.x; out[1] = a.y; out[2] = a.z; out[3] = a.w;
  out[4] = b.x; out[5] = b.y; out[6] = b.z; out[7] = b.w;
}
// 8 floats as two 16-byte accesses (pointer 16-byte aligned; global or shared memory).
__device__ __forceinline__ void store8(float* p, const float in[8]) {
  reinterpret_cast<float4*>(p)[0] = make_float4(in[0], in[1], in[2], in[3]);
  reinterpret_cast<float4*>(p)[1] = make_float4(in[4], in[5], in[6], in[7]);
}

__device__ __forceinline__ float gelu_tanh(float x) {
  const float k = 0.7978845608028654f;  // sqrt(2/pi)
  return 0.5f * x * (1.f + tanhf(k * (x + 0.044715f * x * x * x)));
}
__device__ __forceinline__ float gelu_tanh_grad(float x) {
  const float k = 0.7978845608028654f;
  const float x2 = x * x;
  const float t = tanhf(k * (x + 0.044715f * x2 * x));
  return 0.5f * (1.f + t) + 0.5f * x * (1.f - t * t) * k * (1.f + 3.f * 0.044715f * x2);
}

inline unsigned ceil_div(size_t a, size_t b) { return static_cast<unsigned>((a + b - 1) / b); }

}  // namespace bert::cuda::dev
