#include <cuda_fp8.h>

#include <cstdint>
#include <string>

#include "trainer/cuda/check.h"
#include "trainer/cuda/device_utils.cuh"
#include "trainer/cuda/fp8_cast.h"

namespace bert::cuda {
namespace {

using dev::bf16;
using model::Fp8Format;

// A 64 x 64 tile per block of 256 threads: 8 threads of 8 consecutive columns per row, 32 rows at a
// time (two passes). The row-major FP8 output goes straight out (8 bytes per thread); the tile waits in
// shared memory for the transposed output, read back one column per 8 threads (8 rows each).
constexpr int kTile = 64;
constexpr int kThreads = 256;
constexpr int kRowLanes = kThreads / 8;

template <Fp8Format F>
__device__ __forceinline__ void to_fp8x8(const float v[8], float scale, uint8_t q[8]) {
  constexpr __nv_fp8_interpretation_t kind = F == Fp8Format::e4m3 ? __NV_E4M3 : __NV_E5M2;
#pragma unroll
  for (int i = 0; i < 8; i += 2) {
    const __nv_fp8x2_storage_t two = __nv_cvt_float2_to_fp8x2(make_float2(v[i] * scale, v[i + 1] * scale), __NV_SATFINITE, kind);
    q[i] = static_cast<uint8_t>(two & 0xFF);
    q[i + 1] = static_cast<uint8_t>(two >> 8);
  }
}

__device__ __forceinline__ uint2 pack8(const uint8_t q[8]) {
  uint2 w;
  w.x = q[0] | (q[1] << 8) | (q[2] << 16) | (static_cast<uint32_t>(q[3]) << 24);
  w.y = q[4] | (q[5] << 8) | (q[6] << 16) | (static_cast<uint32_t>(q[7]) << 24);
  return w;
}

template <typename In, Fp8CastOp Op, Fp8Format F>
__global__ void __launch_bounds__(kThreads) fp8_cast_kernel(Fp8CastArgs a, const In* __restrict__ x) {
  __shared__ uint8_t tile[kTile][kTile + 8];  // +8 bytes per row: the transposed reads walk a column
  __shared__ float sums[kRowLanes][kTile];
  const int tx = static_cast<int>(threadIdx.x) % 8, ty = static_cast<int>(threadIdx.x) / 8;
  const int r0 = static_cast<int>(blockIdx.y) * kTile, c0 = static_cast<int>(blockIdx.x) * kTile;
  const int c = c0 + tx * 8;
  const int64_t ld = a.ld ? a.ld : a.cols;
  const int bc = a.block_cols ? a.block_cols : a.cols;
  const float scale = *a.scale;
  uint32_t amax = 0;  // float bits of |v|: finite < inf < NaN as unsigned integers
  float cs[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma unroll
  for (int pass = 0; pass < 2; ++pass) {
    const int lr = ty + kRowLanes * pass, r = r0 + lr;
    if (r >= a.rows || c >= a.cols) continue;
    float v[8];
    dev::load8(x + static_cast<int64_t>(c / bc) * a.block_stride + r * ld + c % bc, v);
    if constexpr (Op == Fp8CastOp::gelu) {
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = dev::gelu_tanh(v[i]);
    } else if constexpr (Op == Fp8CastOp::dgelu) {
      float pre[8];
      dev::load8(a.aux + static_cast<int64_t>(r) * a.cols + c, pre);
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] *= dev::gelu_tanh_grad(pre[i]);
    }
    uint8_t q[8];
    to_fp8x8<F>(v, scale, q);
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      amax = max(amax, __float_as_uint(fabsf(v[i])));
      cs[i] += v[i];
      tile[lr][tx * 8 + i] = q[i];
    }
    if (a.out) *reinterpret_cast<uint2*>(a.out + static_cast<int64_t>(r) * a.cols + c) = pack8(q);
  }
  if (a.amax) {
    amax = __reduce_max_sync(0xFFFFFFFFu, amax);
    if ((threadIdx.x & 31) == 0) atomicMax(reinterpret_cast<unsigned int*>(a.amax), amax);
  }
  if (a.colsum_partial) {
#pragma unroll
    for (int i = 0; i < 8; ++i) sums[ty][tx * 8 + i] = cs[i];
  }
  __syncthreads();
  if (a.out_t) {
#pragma unroll
    for (int pass = 0; pass < 2; ++pass) {
      const int lc = ty + kRowLanes * pass, gc = c0 + lc, gr = r0 + tx * 8;
      if (gc >= a.cols || gr >= a.rows) continue;
      uint8_t q[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) q[k] = tile[tx * 8 + k][lc];
      *reinterpret_cast<uint2*>(a.out_t + static_cast<int64_t>(gc) * a.rows + gr) = pack8(q);
    }
  }
  if (a.colsum_partial && threadIdx.x < kTile && c0 + static_cast<int>(threadIdx.x) < a.cols) {
    float s = 0;
    for (int y = 0; y < kRowLanes; ++y) s += sums[y][threadIdx.x];  // fixed order: deterministic
    a.colsum_partial[static_cast<int64_t>(blockIdx.y) * a.cols + c0 + threadIdx.x] = s;
  }
}

__global__ void colsum_finish_kernel(const float* __restrict__ partial, int tiles, int cols, float* __restrict__ db,
                                     int block, int64_t block_stride) {
  const int c = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (c >= cols) return;
  float s = 0;
  for (int t = 0; t < tiles; ++t) s += partial[static_cast<int64_t>(t) * cols + c];
  db[static_cast<int64_t>(c / block) * block_stride + c % block] += s;
}

template <typename In, Fp8CastOp Op>
void launch_op(const Fp8CastArgs& a, const In* x, dim3 grid, cudaStream_t s) {
  if (a.format == Fp8Format::e4m3)
    fp8_cast_kernel<In, Op, Fp8Format::e4m3><<<grid, kThreads, 0, s>>>(a, x);
  else
    fp8_cast_kernel<In, Op, Fp8Format::e5m2><<<grid, kThreads, 0, s>>>(a, x);
}

template <typename In>
void launch(const Fp8CastArgs& a, const In* x, dim3 grid, cudaStream_t s) {
  switch (a.op) {
    case Fp8CastOp::identity: return launch_op<In, Fp8CastOp::identity>(a, x, grid, s);
    case Fp8CastOp::gelu: return launch_op<In, Fp8CastOp::gelu>(a, x, grid, s);
    case Fp8CastOp::dgelu: return launch_op<In, Fp8CastOp::dgelu>(a, x, grid, s);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

int fp8_colsum_tiles(int rows) { return (rows + kTile - 1) / kTile; }

void fp8_cast(const Fp8CastArgs& a, cudaStream_t stream) {
  if (a.rows == 0 || a.cols == 0) return;
  const int64_t ld = a.ld ? a.ld : a.cols;
  const int bc = a.block_cols ? a.block_cols : a.cols;
  const void* x = a.x_bf16 ? static_cast<const void*>(a.x_bf16) : a.x_f32;
  if ((a.x_bf16 == nullptr) == (a.x_f32 == nullptr)) throw CudaError("fp8_cast: give exactly one of x_bf16, x_f32");
  if (a.rows % 16 || a.cols % 16 || ld % 8 || bc % 8 || a.cols % bc || a.block_stride % 8 || !aligned16(x) ||
      (a.aux && !aligned16(a.aux)) || (a.out && !aligned16(a.out)) || (a.out_t && !aligned16(a.out_t)) || !a.scale)
    throw CudaError("fp8_cast: shape " + std::to_string(a.rows) + "x" + std::to_string(a.cols) +
                    " needs rows and columns in multiples of 16, 16-byte aligned tensors and a scale");
  if (a.op == Fp8CastOp::dgelu && !a.aux) throw CudaError("fp8_cast: dgelu needs the pre-activation (aux)");
  const dim3 grid(static_cast<unsigned>((a.cols + kTile - 1) / kTile), static_cast<unsigned>(fp8_colsum_tiles(a.rows)));
  if (a.x_bf16)
    launch(a, a.x_bf16, grid, stream);
  else
    launch(a, a.x_f32, grid, stream);
  BERT_CUDA_CHECK_LAUNCH();
}

void fp8_colsum_finish(const float* partial, int rows, int cols, float* db, int block, int64_t block_stride,
                       cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  colsum_finish_kernel<<<dev::ceil_div(static_cast<size_t>(cols), 256), 256, 0, stream>>>(
      partial, fp8_colsum_tiles(rows), cols, db, block ? block : cols, block_stride);
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
