// Row gather/scatter for the sparse heads: the MLM head runs on the masked tokens only and the
// pooler on each sequence's first token.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace bert::cuda {

// dst[i, :] = src[idx[i], :] for i < m, zeros where idx[i] < 0 (padding of a static-shape batch).
// cols % 8 == 0.
void gather_rows(const __nv_bfloat16* src, const int32_t* idx, __nv_bfloat16* dst, int m, int cols,
                 cudaStream_t stream);
// dst[idx[i], :] += src[i, :], skipping idx[i] < 0. The non-negative indices must be distinct
// (masked positions and first tokens are), so no two threads touch one row.
void scatter_add_rows(const __nv_bfloat16* src, const int32_t* idx, __nv_bfloat16* dst, int m, int cols,
                      cudaStream_t stream);

}  // namespace bert::cuda
