// Dense layers through cuBLASLt (bf16 operands, fp32 accumulate), written for row-major tensors:
//   forward      Y[T, out]  = epilogue(X[T, in] · W + b)
//   data grad    dX[T, in]  = (dY · W^T) [∘ gelu'(aux)]   (+ beta · dX)
//   weight grad  dW (fp32)  = X^T · dY + beta · dW,  optional db (fp32, overwritten) = sum_T dY
// W is either a TF kernel [in, out] (KernelInOut, every encoder dense layer) or an [out, in]
// matrix (OutIn: the tied word embeddings as MLM decoder, the NSP output weights). cuBLAS is
// column-major, and a row-major [in, out] matrix is the column-major [out, in] one, so no
// transposes are ever materialised. Epilogues fuse bias, bias+GELU (saving the pre-activation as
// aux), GELU backward (from aux) and the bias gradient into the GEMM.
#pragma once
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "trainer/cuda/cublaslt_context.h"

namespace bert::cuda {

enum class WeightLayout { KernelInOut, OutIn };

// Strided batch of independent dense layers sharing the input X: batch i uses W + i*stride_w,
// bias + i*stride_bias and writes columns [i*stride_y, i*stride_y + out) of Y (ld_y >= count*out).
// The fused QKV projection is one such call: Q, K, V kernels sit at a constant stride in the flat
// parameter buffer, and Y is the [tokens, 3*hidden] qkv tensor.
struct GemmBatch {
  int count = 1;
  int64_t stride_w = 0, stride_bias = 0, stride_y = 0;
};

// A whole dense layer's backward (Gemm::dense_backward), in this order:
//   dX  = dY·W^T [∘ gelu'(gelu_aux)] + dx_beta·dX
//   dW += X^T·dY
//   db += sum over tokens of dY        (db null: the layer's bias is added by another op)
// With the forward's GemmBatch, block i uses the dY columns from i*stride_y, W + i*stride_w and
// db + i*stride_bias, and the blocks' data gradients add up in dX (the fused QKV projection).
struct DenseBackwardArgs {
  const __nv_bfloat16* x = nullptr;   // the forward's input [tokens, in]
  const __nv_bfloat16* dy = nullptr;  // [tokens, out], row stride ld_dy (0: out)
  const __nv_bfloat16* w = nullptr;
  WeightLayout layout = WeightLayout::KernelInOut;
  __nv_bfloat16* dx = nullptr;        // [tokens, in]
  float* dw = nullptr;                // fp32, W's layout
  float* db = nullptr;                // fp32 [out] or null
  float* bias_scratch = nullptr;      // fp32 [batch.count * out] when db is set
  int tokens = 0, in = 0, out = 0;
  const __nv_bfloat16* gelu_aux = nullptr;  // as in backward_data
  float dx_beta = 0.f;
  int ld_dy = 0;
  GemmBatch batch = {};
};

class Gemm {
 public:
  explicit Gemm(LtContext& lt);
  ~Gemm();

  // bias (bf16, nullable); gelu: y = gelu_tanh(xW + b) and pre_act (nullable unless gelu) = xW + b.
  void forward(const __nv_bfloat16* x, const __nv_bfloat16* w, WeightLayout layout, const __nv_bfloat16* bias,
               __nv_bfloat16* y, int tokens, int in, int out, bool gelu, __nv_bfloat16* pre_act,
               cudaStream_t stream, int ld_y = 0, const GemmBatch& batch = {});
  // gelu_aux (nullable): pre-activation of the GELU that produced this layer's input: dX ∘= gelu'(aux).
  // beta = 1 adds into dX (a tensor that feeds two consumers, e.g. the residual stream).
  void backward_data(const __nv_bfloat16* dy, const __nv_bfloat16* w, WeightLayout layout, __nv_bfloat16* dx,
                     int tokens, int in, int out, const __nv_bfloat16* gelu_aux, float beta, cudaStream_t stream,
                     int ld_dy = 0);
  // dw fp32 in W's layout; beta = 1 accumulates (gradient accumulation). dbias (nullable) fp32 [out]
  // is overwritten with sum over tokens of dY. With a batch, dY column block i gives dW + i*stride_w
  // and dbias + i*stride_bias (stride_y: column offset of block i in dY).
  void backward_weight(const __nv_bfloat16* x, const __nv_bfloat16* dy, WeightLayout layout, float* dw, float* dbias,
                       int tokens, int in, int out, float beta, cudaStream_t stream, int ld_dy = 0,
                       const GemmBatch& batch = {});
  // backward_data + backward_weight (accumulating) + the bias gradient added into db.
  void dense_backward(const DenseBackwardArgs& a, cudaStream_t stream);

 private:
  struct Call;
  // false when cuBLASLt has no algorithm for the call (only tolerated for BGRAD epilogues).
  bool run(const Call& c, cudaStream_t stream, bool may_fail = false);
  LtContext& lt_;
  LtPlans plans_;  // each call shape's descriptors and algorithm, made on its first call (not copyable)
  float* colsum_scratch_ = nullptr;  // grown on demand for the bias-gradient fallback
  size_t colsum_scratch_floats_ = 0;
};

}  // namespace bert::cuda
