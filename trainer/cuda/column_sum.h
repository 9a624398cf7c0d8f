// out[c] += sum over r of partials[r * cols + c]: the second, deterministic stage of every
// parameter-gradient reduction (LayerNorm gamma/beta, biases), summed in a fixed order.
#pragma once
#include <cuda_runtime.h>

namespace bert::cuda {

void column_sum_add(const float* partials, int rows, int cols, float* out, cudaStream_t stream);

}  // namespace bert::cuda
