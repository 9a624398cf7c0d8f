// Warp-level tensor-core pieces (nvcc only, sm_80+): ldmatrix loads of 8x8 bf16 tiles from shared
// memory and mma.sync m16n8k16 (bf16 in, fp32 accumulate), in the register layouts of the PTX ISA
// (9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating point type"): with g = lane / 4 and
// t = lane % 4, each register holding two bf16 (lower column / row index in the low half),
//   A (16x16, row-major): a0 = (g, 2t..2t+1), a1 = (g+8, 2t..), a2 = (g, 2t+8..), a3 = (g+8, 2t+8..)
//   B (16x8, k x n):      b0 = (k 2t..2t+1, n g), b1 = (k 2t+8.., n g)
//   C (16x8, fp32):       c0, c1 = (g, 2t..2t+1), c2, c3 = (g+8, 2t..2t+1)
// DeviceWarp bundles them (with the shuffles, asynchronous 16-byte copies and the block barrier) as the warp
// operations the tile templates (attention_forward_tile.h) take; tests/unit/cuda/ptx_warp_model.h
// models the same operations on the host from the same documented layouts.
#pragma once
#include <cuda_bf16.h>

#include <cstdint>

#include "trainer/cuda/device_utils.cuh"

namespace bert::cuda::mma {

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Four 8x8 b16 matrices; lanes 8i..8i+7 give the row addresses of matrix i; r[i] is matrix i's
// fragment (row lane/4, columns 2(lane%4)..+1). .trans transposes each matrix on the way.
__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], const void* row_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(row_addr)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4], const void* row_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(row_addr)));
}

// c += a · b (m16n8k16, bf16 x bf16 -> fp32).
__device__ __forceinline__ void mma_16816(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Two floats as a bf16x2 register (lo in the low half: the lower column index).
__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}

struct DeviceWarp {
  using T = __nv_bfloat16;
  __device__ __forceinline__ void sync() { __syncthreads(); }
  __device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], const T* row_addr) { mma::ldmatrix_x4(r, row_addr); }
  __device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4], const T* row_addr) {
    mma::ldmatrix_x4_trans(r, row_addr);
  }
  __device__ __forceinline__ void mma(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
    mma_16816(c, a, b0, b1);
  }
  __device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) { return mma::pack_bf16(lo, hi); }
  __device__ __forceinline__ float shfl_xor(float v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
  __device__ __forceinline__ unsigned shfl_xor(unsigned v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
  // cp.async of 16 bytes into shared memory (zeros, and no read, when !valid): a tile's copies go out
  // back to back instead of one global round trip each (a plain load-then-store loop waits for every
  // load before its store); they land by copy_wait.
  __device__ __forceinline__ void copy16(T* dst, const T* src, bool valid) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(valid ? 16 : 0));
  }
  // The same for 4 bytes (cp.async.ca: 4-byte copies go through L1).
  __device__ __forceinline__ void copy4(uint32_t* dst, const uint32_t* src, bool valid) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(valid ? 4 : 0));
  }
  __device__ __forceinline__ void copy_wait() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
  __device__ __forceinline__ void atomic_add(float* dst, float v) { atomicAdd(dst, v); }
  // Four consecutive floats (dst 16-byte aligned): one vector reduction on sm_90 (atomicAdd on float4),
  // four scalar ones before it.
  __device__ __forceinline__ void atomic_add4(float* dst, float a, float b, float c, float d) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    atomicAdd(reinterpret_cast<float4*>(dst), make_float4(a, b, c, d));
#else
    atomicAdd(dst, a);
    atomicAdd(dst + 1, b);
    atomicAdd(dst + 2, c);
    atomicAdd(dst + 3, d);
#endif
  }
  __device__ __forceinline__ void store_bf16x2(T* dst, float lo, float hi) {
    *reinterpret_cast<__nv_bfloat162*>(dst) = __floats2bfloat162_rn(lo, hi);
  }
};

}  // namespace bert::cuda::mma
