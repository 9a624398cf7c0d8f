// Casts to FP8 for the FP8 GEMMs (cuBLASLt's FP8 path takes both operands with the inner dimension
// contiguous, so a tensor that is the inner-dimension-strided operand of some GEMM is also needed
// transposed). One pass over a row-major [rows, cols] tensor x writes, for v = f(x):
//   out   [rows, cols]  = fp8(scale * v)       (null: not written)
//   out_t [cols, rows]  = the same, transposed (null: not written)
//   *amax = max(*amax, max |v|)  as float bits with an integer atomic max, so that an inf or a NaN
//           reaches the recipe (fp8_scaling.h decides what it does with them)
//   colsum_partial[tile][c] = sum of v over the tile's 64 rows (null: not summed): the bias gradient
//           when x is a dense layer's output gradient; fp8_colsum_finish adds the tiles up
// with f = identity, gelu_tanh(x) (x: a pre-activation; the FFN's input to its output dense layer) or
// x * gelu_tanh'(aux) (x: the gradient of the GELU's output, aux: its pre-activation).
// The conversion is CUDA's __nv_cvt_float2_to_fp8x2 (round to nearest even, satfinite), which
// trainer/model/fp8_format.h reproduces on the host. rows and cols: multiples of 16 (the FP8 GEMMs'
// own requirement); the columns may come in blocks at a stride (the Q, K and V kernels in the flat
// parameter buffer, cast as one [hidden, 3*hidden] matrix).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "trainer/model/fp8_format.h"

namespace bert::cuda {

enum class Fp8CastOp { identity, gelu, dgelu };

struct Fp8CastArgs {
  const __nv_bfloat16* x_bf16 = nullptr;  // one of the two
  const float* x_f32 = nullptr;
  int rows = 0, cols = 0;
  int64_t ld = 0;                          // x's row stride (0: cols); within a block when blocked
  int block_cols = 0;                      // columns per block (0: one block of cols)
  int64_t block_stride = 0;                // elements between the blocks' first elements
  Fp8CastOp op = Fp8CastOp::identity;
  const __nv_bfloat16* aux = nullptr;      // dgelu: the pre-activation, [rows, cols] contiguous
  model::Fp8Format format = model::Fp8Format::e4m3;
  const float* scale = nullptr;            // device scalar
  float* amax = nullptr;                   // device scalar (the recipe's current slot); null: not recorded
  uint8_t* out = nullptr;
  uint8_t* out_t = nullptr;
  float* colsum_partial = nullptr;         // [fp8_colsum_tiles(rows), cols]
};

void fp8_cast(const Fp8CastArgs& a, cudaStream_t stream);

int fp8_colsum_tiles(int rows);
// db[c] += sum over the tiles of partial[tile][c], column c written at db + (c / block) * block_stride + c % block
// (block 0: one block). Deterministic (a fixed order).
void fp8_colsum_finish(const float* partial, int rows, int cols, float* db, int block, int64_t block_stride,
                       cudaStream_t stream);

}  // namespace bert::cuda
