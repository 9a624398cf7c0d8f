// out[c] += sum over r of partials[r * cols + c]: the second, deterministic stage of every
// parameter-gradient reduction (LayerNorm gamma/beta, biases), summed in a fixed order.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace bert::cuda {

void column_sum_add(const float* partials, int rows, int cols, float* out, cudaStream_t stream);

// out[c] = sum over r < rows of in[r * ld + c] for a bf16 matrix (a bias gradient when cuBLASLt's
// BGRAD epilogue is not available for a GEMM). scratch: column_sum_bf16_scratch_floats(rows, cols).
size_t column_sum_bf16_scratch_floats(int rows, int cols);
void column_sum_bf16(const __nv_bfloat16* in, int rows, int cols, int ld, float* out, float* scratch,
                     cudaStream_t stream);

}  // namespace bert::cuda
