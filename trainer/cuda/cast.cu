#include "trainer/cuda/cast.h"
#include "trainer/cuda/check.h"
#include "trainer/cuda/device_utils.cuh"

#include <algorithm>

namespace bert::cuda {
namespace {

using dev::bf16;

enum class CastOp { ToBf16, ToF32, AddToF32, AddF32 };

template <CastOp op, typename In, typename Out>
__global__ void cast_kernel(const In* in, Out* out, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if constexpr (op == CastOp::ToBf16) out[i] = __float2bfloat16(in[i]);
    else if constexpr (op == CastOp::ToF32) out[i] = __bfloat162float(in[i]);
    else if constexpr (op == CastOp::AddToF32) out[i] += __bfloat162float(in[i]);
    else out[i] += in[i];
  }
}

unsigned blocks_for(size_t n) { return static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>((n + 255) / 256, 8192))); }

}  // namespace

void cast_f32_to_bf16(const float* in, bf16* out, size_t n, cudaStream_t stream) {
  if (!n) return;
  cast_kernel<CastOp::ToBf16><<<blocks_for(n), 256, 0, stream>>>(in, out, n);
  BERT_CUDA_CHECK_LAUNCH();
}
void cast_bf16_to_f32(const bf16* in, float* out, size_t n, cudaStream_t stream) {
  if (!n) return;
  cast_kernel<CastOp::ToF32><<<blocks_for(n), 256, 0, stream>>>(in, out, n);
  BERT_CUDA_CHECK_LAUNCH();
}
void accumulate_bf16_into_f32(const bf16* in, float* out, size_t n, cudaStream_t stream) {
  if (!n) return;
  cast_kernel<CastOp::AddToF32><<<blocks_for(n), 256, 0, stream>>>(in, out, n);
  BERT_CUDA_CHECK_LAUNCH();
}

void accumulate_f32(const float* in, float* out, size_t n, cudaStream_t stream) {
  if (!n) return;
  cast_kernel<CastOp::AddF32><<<blocks_for(n), 256, 0, stream>>>(in, out, n);
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
