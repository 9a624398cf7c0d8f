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

namespace bert::cuda {

enum class WeightLayout { KernelInOut, OutIn };

class Gemm {
 public:
  explicit Gemm(size_t workspace_bytes = 32u << 20);
  ~Gemm();
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  // bias (bf16, nullable); gelu: y = gelu_tanh(xW + b) and pre_act (nullable unless gelu) = xW + b.
  void forward(const __nv_bfloat16* x, const __nv_bfloat16* w, WeightLayout layout, const __nv_bfloat16* bias,
               __nv_bfloat16* y, int tokens, int in, int out, bool gelu, __nv_bfloat16* pre_act,
               cudaStream_t stream);
  // gelu_aux (nullable): pre-activation of the GELU that produced this layer's input: dX ∘= gelu'(aux).
  // beta = 1 adds into dX (a tensor that feeds two consumers, e.g. the residual stream).
  void backward_data(const __nv_bfloat16* dy, const __nv_bfloat16* w, WeightLayout layout, __nv_bfloat16* dx,
                     int tokens, int in, int out, const __nv_bfloat16* gelu_aux, float beta, cudaStream_t stream);
  // dw fp32 in W's layout; beta = 1 accumulates (gradient accumulation). dbias (nullable) fp32 [out]
  // is overwritten with sum over tokens of dY.
  void backward_weight(const __nv_bfloat16* x, const __nv_bfloat16* dy, WeightLayout layout, float* dw, float* dbias,
                       int tokens, int in, int out, float beta, cudaStream_t stream);

 private:
  struct Call;
  void run(const Call& c, cudaStream_t stream);
  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_;
};

}  // namespace bert::cuda
