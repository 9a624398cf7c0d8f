#include "trainer/cuda/check.h"
#include "trainer/cuda/column_sum.h"
#include "trainer/cuda/device_utils.cuh"

namespace bert::cuda {
namespace {

// 32 columns per block; 8 warps split the rows, then combine in shared memory in warp order.
__global__ void column_sum_kernel(const float* partials, int rows, int cols, float* out) {
  __shared__ float acc[8][32];
  const int c = blockIdx.x * 32 + threadIdx.x;
  float s = 0.f;
  if (c < cols)
    for (int r = threadIdx.y; r < rows; r += 8) s += partials[static_cast<size_t>(r) * cols + c];
  acc[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    float t = 0.f;
#pragma unroll
    for (int w = 0; w < 8; ++w) t += acc[w][threadIdx.x];
    out[c] += t;
  }
}

}  // namespace

void column_sum_add(const float* partials, int rows, int cols, float* out, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  column_sum_kernel<<<dev::ceil_div(cols, 32), dim3(32, 8), 0, stream>>>(partials, rows, cols, out);
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
