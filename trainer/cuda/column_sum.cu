#include "trainer/cuda/check.h"
#include "trainer/cuda/column_sum.h"
#include "trainer/cuda/device_utils.cuh"

namespace bert::cuda {
namespace {

// A block of 32 x 8 threads: thread (x, y)'s partial sum s of column x combined over the 8 row-threads
// in shared memory, in warp order; the column's sum in the threads y == 0 (every thread must call it).
__device__ __forceinline__ float combine_row_threads(float s) {
  __shared__ float acc[8][32];
  acc[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  float t = 0.f;
  if (threadIdx.y == 0) {
#pragma unroll
    for (int w = 0; w < 8; ++w) t += acc[w][threadIdx.x];
  }
  return t;
}

// 32 columns per block; 8 warps split the rows, then combine in shared memory in warp order.
__global__ void column_sum_kernel(const float* partials, int rows, int cols, float* out) {
  const int c = blockIdx.x * 32 + threadIdx.x;
  float s = 0.f;
  if (c < cols)
    for (int r = threadIdx.y; r < rows; r += 8) s += partials[static_cast<size_t>(r) * cols + c];
  const float t = combine_row_threads(s);
  if (threadIdx.y == 0 && c < cols) out[c] += t;
}

constexpr int kRowBlocks = 64;

// Partial column sums of a bf16 matrix: block (x: 32 columns, y: row slice), 8 row-threads each.
__global__ void column_partials_bf16_kernel(const __nv_bfloat16* in, int rows, int cols, int ld, float* partials) {
  const int c = blockIdx.x * 32 + threadIdx.x;
  float s = 0.f;
  if (c < cols)
    for (int r = blockIdx.y * 8 + threadIdx.y; r < rows; r += gridDim.y * 8)
      s += __bfloat162float(in[static_cast<size_t>(r) * ld + c]);
  const float t = combine_row_threads(s);
  if (threadIdx.y == 0 && c < cols) partials[static_cast<size_t>(blockIdx.y) * cols + c] = t;
}

}  // namespace

size_t column_sum_bf16_scratch_floats(int /*rows*/, int cols) { return static_cast<size_t>(kRowBlocks) * cols; }

void column_sum_bf16(const __nv_bfloat16* in, int rows, int cols, int ld, float* out, float* scratch,
                     cudaStream_t stream) {
  if (cols <= 0) return;
  BERT_CUDA_CHECK(cudaMemsetAsync(out, 0, static_cast<size_t>(cols) * sizeof(float), stream));
  if (rows <= 0) return;
  column_partials_bf16_kernel<<<dim3(dev::ceil_div(cols, 32), kRowBlocks), dim3(32, 8), 0, stream>>>(in, rows, cols, ld,
                                                                                                    scratch);
  BERT_CUDA_CHECK_LAUNCH();
  column_sum_add(scratch, kRowBlocks, cols, out, stream);
}

void column_sum_add(const float* partials, int rows, int cols, float* out, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  column_sum_kernel<<<dev::ceil_div(cols, 32), dim3(32, 8), 0, stream>>>(partials, rows, cols, out);
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
