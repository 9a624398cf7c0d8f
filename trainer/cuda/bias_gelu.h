// Bias + GELU (the CUDA side of cpu/gelu.h, with the bias the CPU adds in cpu/linear.cpp): the MLM
// transform and the fallback for GEMMs whose epilogue is not fused. The same kernels serve the
// pooler's bias + tanh and a plain bias (Activation::Tanh / None), hence bias_act_*:
//   forward  y = act(x + bias)
//   backward dpre = dy * act'(x + bias),  dbias += sum over rows of dpre
// Activation Gelu is the tanh approximation used by BERT. x, y, dy, dpre bf16 [rows, cols];
// bias/dbias fp32 [cols]. cols % 8 == 0 (checked).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

namespace bert::cuda {

enum class Activation { None, Gelu, Tanh };

void bias_act_forward(const __nv_bfloat16* x, const float* bias, __nv_bfloat16* y, int rows, int cols,
                      Activation act, cudaStream_t stream);

size_t bias_act_backward_scratch_floats(int rows, int cols);
void bias_act_backward(const __nv_bfloat16* dy, const __nv_bfloat16* x, const float* bias, __nv_bfloat16* dpre,
                       float* dbias, float* scratch, int rows, int cols, Activation act, cudaStream_t stream);

}  // namespace bert::cuda
