#include "trainer/cuda/bias_gelu.h"
#include "trainer/cuda/check.h"
#include "trainer/cuda/column_sum.h"
#include "trainer/cuda/device_utils.cuh"

#include <algorithm>
#include <string>

namespace bert::cuda {
namespace {

using dev::bf16;
constexpr int kRowThreads = 8;      // threadIdx.y
constexpr int kMaxRowBlocks = 128;  // cap on gridDim.y = rows of the dbias partials

int row_blocks(int rows) { return std::min(kMaxRowBlocks, std::max(1, (rows + kRowThreads - 1) / kRowThreads)); }

__device__ __forceinline__ float act_f(float v, Activation act) {
  return act == Activation::Gelu ? dev::gelu_tanh(v) : act == Activation::Tanh ? tanhf(v) : v;
}
__device__ __forceinline__ float act_grad(float v, Activation act) {
  if (act == Activation::Gelu) return dev::gelu_tanh_grad(v);
  if (act == Activation::Tanh) {
    const float t = tanhf(v);
    return 1.f - t * t;
  }
  return 1.f;
}

__global__ void bias_act_forward_kernel(const bf16* x, const float* bias, bf16* y, int rows, int cols,
                                        Activation act) {
  const int c = (blockIdx.x * 32 + threadIdx.x) * 8;
  if (c >= cols) return;
  float b[8];
  dev::load8(bias + c, b);
  for (int r = blockIdx.y * kRowThreads + threadIdx.y; r < rows; r += gridDim.y * kRowThreads) {
    const size_t off = static_cast<size_t>(r) * cols + c;
    float v[8];
    dev::load8(x + off, v);
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = act_f(v[j] + b[j], act);
    dev::store8(y + off, v);
  }
}

__global__ void bias_act_backward_kernel(const bf16* dy, const bf16* x, const float* bias, bf16* dpre,
                                         float* partials, int rows, int cols, Activation act) {
  __shared__ float red[kRowThreads][32 * 8];
  const int c = (blockIdx.x * 32 + threadIdx.x) * 8;
  float acc[8] = {};
  if (c < cols) {
    float b[8];
    dev::load8(bias + c, b);
    for (int r = blockIdx.y * kRowThreads + threadIdx.y; r < rows; r += gridDim.y * kRowThreads) {
      const size_t off = static_cast<size_t>(r) * cols + c;
      float v[8], g[8];
      dev::load8(x + off, v);
      dev::load8(dy + off, g);
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        g[j] *= act_grad(v[j] + b[j], act);
        acc[j] += g[j];
      }
      dev::store8(dpre + off, g);
    }
  }
#pragma unroll
  for (int j = 0; j < 8; ++j) red[threadIdx.y][threadIdx.x * 8 + j] = acc[j];
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      float s = 0.f;
      for (int w = 0; w < kRowThreads; ++w) s += red[w][threadIdx.x * 8 + j];
      partials[static_cast<size_t>(blockIdx.y) * cols + c + j] = s;
    }
  }
}

void check_cols(int cols) {
  if (cols <= 0 || cols % 8 != 0) throw CudaError("bias_act: cols must be a positive multiple of 8, got " + std::to_string(cols));
}

}  // namespace

void bias_act_forward(const bf16* x, const float* bias, bf16* y, int rows, int cols, Activation act,
                      cudaStream_t stream) {
  check_cols(cols);
  if (rows <= 0) return;
  const dim3 grid(dev::ceil_div(cols, 256), row_blocks(rows));
  bias_act_forward_kernel<<<grid, dim3(32, kRowThreads), 0, stream>>>(x, bias, y, rows, cols, act);
  BERT_CUDA_CHECK_LAUNCH();
}

size_t bias_act_backward_scratch_floats(int rows, int cols) {
  return static_cast<size_t>(row_blocks(rows)) * static_cast<size_t>(cols);
}

void bias_act_backward(const bf16* dy, const bf16* x, const float* bias, bf16* dpre, float* dbias, float* scratch,
                       int rows, int cols, Activation act, cudaStream_t stream) {
  check_cols(cols);
  if (rows <= 0) return;
  const dim3 grid(dev::ceil_div(cols, 256), row_blocks(rows));
  bias_act_backward_kernel<<<grid, dim3(32, kRowThreads), 0, stream>>>(dy, x, bias, dpre, scratch, rows, cols, act);
  BERT_CUDA_CHECK_LAUNCH();
  column_sum_add(scratch, grid.y, cols, dbias, stream);
}

}  // namespace bert::cuda
