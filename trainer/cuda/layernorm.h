// LayerNorm over the hidden dimension, fused with the post-LN residual block:
//   z = dropout(x) + residual        (dropout and residual optional)
//   y = gamma * (z - mean) * rstd + beta,   rstd = 1 / sqrt(var + eps)
// bf16 activations, fp32 statistics and fp32 gamma/beta (read from the master buffer).
// Backward recomputes z from x and residual, with the forward's dropout keep flags (keep_out -> keep: one
// bit an element, 1/16 of x's bytes) or, without them, the counter-based mask drawn again.
// Limits: hidden % 8 == 0 and hidden <= 1024 (BERT-Large), checked.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "trainer/cuda/dropout_spec.h"

namespace bert::cuda {

struct LayerNormForwardArgs {
  const __nv_bfloat16* x = nullptr;
  const __nv_bfloat16* residual = nullptr;  // nullable
  DropoutSpec dropout;                      // on x, before the residual add
  const float* gamma = nullptr;
  const float* beta = nullptr;
  __nv_bfloat16* y = nullptr;
  float* mean = nullptr;   // [rows]
  float* rstd = nullptr;   // [rows]
  // nullable; with dropout: the keep flag of x's element e = row * hidden + c as bit e % 8 of byte e / 8
  uint8_t* keep_out = nullptr;
  int rows = 0, hidden = 0;
  float eps = 1e-12f;
};
void layernorm_forward(const LayerNormForwardArgs& a, cudaStream_t stream);

struct LayerNormBackwardArgs {
  const __nv_bfloat16* dy = nullptr;
  const __nv_bfloat16* x = nullptr;
  const __nv_bfloat16* residual = nullptr;  // nullable, as in forward
  DropoutSpec dropout;                      // as in forward
  const uint8_t* keep = nullptr;            // nullable: the forward's keep_out (then no Philox here)
  const float* gamma = nullptr;
  const float* mean = nullptr;
  const float* rstd = nullptr;
  __nv_bfloat16* dz = nullptr;  // nullable: grad of z (= grad of the residual input)
  __nv_bfloat16* dx = nullptr;  // nullable: grad of x (through the dropout mask)
  float* dgamma = nullptr;      // accumulated (+=)
  float* dbeta = nullptr;       // accumulated (+=)
  float* scratch = nullptr;     // layernorm_backward_scratch_floats(rows, hidden)
  int rows = 0, hidden = 0;
};
size_t layernorm_backward_scratch_floats(int rows, int hidden);
void layernorm_backward(const LayerNormBackwardArgs& a, cudaStream_t stream);

// The gradients of one LayerNorm site; its inputs are those its forward read (x, residual, dropout, gamma,
// statistics, keep flags), so a caller describes a site once, as forward arguments, and derives the backward's.
struct LayerNormGrads {
  const __nv_bfloat16* dy = nullptr;
  __nv_bfloat16* dz = nullptr;  // nullable
  __nv_bfloat16* dx = nullptr;  // nullable
  float* dgamma = nullptr;
  float* dbeta = nullptr;
  float* scratch = nullptr;
};
inline LayerNormBackwardArgs layernorm_backward_args(const LayerNormForwardArgs& f, const LayerNormGrads& g) {
  return {.dy = g.dy, .x = f.x, .residual = f.residual, .dropout = f.dropout, .keep = f.keep_out, .gamma = f.gamma,
          .mean = f.mean, .rstd = f.rstd, .dz = g.dz, .dx = g.dx, .dgamma = g.dgamma, .dbeta = g.dbeta,
          .scratch = g.scratch, .rows = f.rows, .hidden = f.hidden};
}

}  // namespace bert::cuda
