#include "trainer/cuda/check.h"
#include "trainer/cuda/device_utils.cuh"
#include "trainer/cuda/gather.h"

#include <string>

namespace bert::cuda {
namespace {

using dev::bf16;

template <bool kScatterAdd>
__global__ void rows_kernel(const bf16* src, const int32_t* idx, bf16* dst, int m, int cols) {
  const int i = blockIdx.x;
  if (i >= m) return;
  const int32_t src_row = idx[i];
  if (kScatterAdd && src_row < 0) return;
  const size_t r = static_cast<size_t>(src_row < 0 ? 0 : src_row);
  for (int c = threadIdx.x * 8; c < cols; c += blockDim.x * 8) {
    float v[8];
    if constexpr (kScatterAdd) {
      float d[8];
      dev::load8(src + static_cast<size_t>(i) * cols + c, v);
      dev::load8(dst + r * cols + c, d);
#pragma unroll
      for (int j = 0; j < 8; ++j) v[j] += d[j];
      dev::store8(dst + r * cols + c, v);
    } else {
      if (src_row < 0) {
#pragma unroll
        for (int j = 0; j < 8; ++j) v[j] = 0.f;
      } else {
        dev::load8(src + r * cols + c, v);
      }
      dev::store8(dst + static_cast<size_t>(i) * cols + c, v);
    }
  }
}

void check(int cols) {
  if (cols <= 0 || cols % 8 != 0) throw CudaError("gather/scatter: cols must be a positive multiple of 8, got " + std::to_string(cols));
}

}  // namespace

void gather_rows(const bf16* src, const int32_t* idx, bf16* dst, int m, int cols, cudaStream_t stream) {
  check(cols);
  if (m <= 0) return;
  rows_kernel<false><<<m, 128, 0, stream>>>(src, idx, dst, m, cols);
  BERT_CUDA_CHECK_LAUNCH();
}

void scatter_add_rows(const bf16* src, const int32_t* idx, bf16* dst, int m, int cols, cudaStream_t stream) {
  check(cols);
  if (m <= 0) return;
  rows_kernel<true><<<m, 128, 0, stream>>>(src, idx, dst, m, cols);
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
