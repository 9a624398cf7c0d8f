// Precision conversions between the fp32 master buffers and bf16 compute copies.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace bert::cuda {

void cast_f32_to_bf16(const float* in, __nv_bfloat16* out, size_t n, cudaStream_t stream);
void cast_bf16_to_f32(const __nv_bfloat16* in, float* out, size_t n, cudaStream_t stream);
// out[i] += in[i]: folds a bf16 gradient into an fp32 gradient buffer.
void accumulate_bf16_into_f32(const __nv_bfloat16* in, float* out, size_t n, cudaStream_t stream);
// out[i] += in[i] in fp32 (bias gradients that cuBLASLt writes rather than accumulates).
void accumulate_f32(const float* in, float* out, size_t n, cudaStream_t stream);

}  // namespace bert::cuda
