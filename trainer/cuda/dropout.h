// Standalone dropout on a bf16 tensor (the embedding output; hidden dropouts inside the encoder are
// fused into layernorm). The mask comes from the counter-based RNG (dropout_spec.h), element i = flat
// index, so applying the same call to the upstream gradient is the backward pass.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "trainer/cuda/dropout_spec.h"

namespace bert::cuda {

// out[i] = keep(i) ? in[i] / (1 - p) : 0. n % 4 == 0 (checked). in == out is allowed.
void dropout_apply(const __nv_bfloat16* in, __nv_bfloat16* out, size_t n, const DropoutSpec& d, cudaStream_t stream);

}  // namespace bert::cuda
