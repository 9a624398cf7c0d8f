#include "trainer/cuda/check.h"
#include "trainer/cuda/device_utils.cuh"
#include "trainer/cuda/dropout.h"

#include <algorithm>

namespace bert::cuda {
namespace {

using dev::bf16;

__global__ void dropout_kernel(const bf16* in, bf16* out, size_t n4, DropoutSpec d) {
  d = d.resolved();
  const float scale = d.scale();
  for (size_t q = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; q < n4;
       q += static_cast<size_t>(gridDim.x) * blockDim.x) {
    bool keep[4];
    d.keep4(q * 4, keep);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float v = __bfloat162float(in[q * 4 + j]);
      out[q * 4 + j] = __float2bfloat16(keep[j] ? v * scale : 0.f);
    }
  }
}

}  // namespace

void dropout_apply(const bf16* in, bf16* out, size_t n, const DropoutSpec& d, cudaStream_t stream) {
  if (n % 4 != 0) throw CudaError("dropout_apply: element count must be a multiple of 4");
  if (n == 0) return;
  if (d.p <= 0.f) {
    if (in != out) BERT_CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(bf16), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  const size_t n4 = n / 4;
  const unsigned blocks = static_cast<unsigned>(std::min<size_t>((n4 + 255) / 256, 4096));
  dropout_kernel<<<blocks, 256, 0, stream>>>(in, out, n4, d);
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
