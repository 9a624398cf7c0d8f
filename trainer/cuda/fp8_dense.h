// The encoder's dense layers with FP8 GEMMs (run.precision fp8), as NVIDIA's Hopper BERT runs them
// through Transformer Engine: per layer the fused QKV projection, the attention output, and the
// feed-forward block (intermediate dense + GELU + output dense). Attention, LayerNorm, dropout, the
// embeddings and the heads stay as the bf16 model computes them (cuda_model.cpp), and so do the fp32
// master weights, their gradients and LAMB.
//   forward  x (bf16) -> cast -> x8 (E4M3, [T, in]) and x8^T ([in, T], kept for the weight gradient)
//            y = x8 · W8^T (cuBLASLt FP8, bias in the epilogue, bf16 out, fast accumulation)
//            FFN: pre = h1 · Wi + bi (bf16, kept for backward); one pass GELU(pre) -> act8, act8^T
//   backward dy (bf16) -> one pass -> dy8 (E5M2), dy8^T and the bias gradient (column sums)
//            dx  = dy8 · W8              (bf16; the FFN output layer's dx feeds one pass that applies
//                                         GELU' and casts: dpre8, dpre8^T, the intermediate bias gradient)
//            dW += x8^T · dy8^T^T        (fp32, into the flat gradient buffer)
// Every FP8 tensor has its delayed scaling (Fp8Scaling; trainer/model/fp8_scaling.h): 12 per layer,
// the casts raise the current amax, end_step() rolls the histories and sets the next scales, then
// casts the updated weights. The LayerNorm / GELU kernels do not write FP8 themselves yet: the casts
// of their outputs are a separate pass (the GELU's is fused with the activation itself).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "trainer/cuda/device_buffer.h"
#include "trainer/cuda/fp8_cast.h"
#include "trainer/cuda/fp8_gemm.h"
#include "trainer/cuda/fp8_options.h"
#include "trainer/cuda/fp8_scaling.h"
#include "trainer/model/params.h"

namespace bert::cuda {

class OpTimer;

class Fp8DenseLayers {
 public:
  // The FP8 tensors of layer l: index l * kTensorsPerLayer + one of these.
  enum Tensor : int {
    kQkvIn, kQkvW, kAoIn, kAoW, kFc1In, kFc1W, kFc2In, kFc2W,  // E4M3 (forward)
    kQkvGrad, kAoGrad, kFc1Grad, kFc2Grad,                      // E5M2 (gradients of the outputs)
    kTensorsPerLayer
  };

  // rows x seq_len: the batch the model is sized for. model::BatchError when a shape cannot run in FP8
  // (hidden, intermediate and seq_len must be multiples of 16: every batch's tokens are then too).
  // lt: the model's cuBLASLt context (shared with its bf16 GEMMs).
  Fp8DenseLayers(const model::ParamLayout& layout, LtContext& lt, int rows, int seq_len, const Fp8Options& opt);

  // The FP8 copies of every layer's weights from the fp32 master (and the QKV bias, bf16, contiguous).
  void cast_weights(const float* params, const __nv_bfloat16* params16, cudaStream_t stream);
  // Whether the forward casts raise the amaxes (training) or not (evaluation: the recipe sees training only).
  void set_recording(bool on) { recording_ = on; }
  // The profile's timer (null: none): the casts are timed as fp8_cast.fwd / .bwd inside their dense layer.
  void set_timer(OpTimer* t) { timer_ = t; }

  // Forward of layer l over T tokens (rows x seq_len at most).
  void qkv_forward(int l, const __nv_bfloat16* x, __nv_bfloat16* qkv, int T, cudaStream_t stream);
  void attn_out_forward(int l, const __nv_bfloat16* ctx, const __nv_bfloat16* params16, __nv_bfloat16* ao, int T,
                        cudaStream_t stream);
  // pre = h1 · Wi + bi (kept for backward); fo = GELU(pre) · Wo + bo.
  void ffn_in_forward(int l, const __nv_bfloat16* h1, const __nv_bfloat16* params16, __nv_bfloat16* pre, int T,
                      cudaStream_t stream);
  void ffn_out_forward(int l, const __nv_bfloat16* pre, const __nv_bfloat16* params16, __nv_bfloat16* fo, int T,
                       cudaStream_t stream);

  // Backward of layer l, gradients added into grads (the flat fp32 buffer).
  // dact (bf16 [T, intermediate]) = the gradient of GELU's output; then dh1 += the FFN's input gradient
  // (it holds the residual's already).
  void ffn_out_backward(int l, const __nv_bfloat16* dfo, __nv_bfloat16* dact, float* grads, int T, cudaStream_t stream);
  void ffn_in_backward(int l, const __nv_bfloat16* dact, const __nv_bfloat16* pre, __nv_bfloat16* dh1, float* grads,
                       int T, cudaStream_t stream);
  void attn_out_backward(int l, const __nv_bfloat16* dao, __nv_bfloat16* dctx, float* grads, int T,
                         cudaStream_t stream);
  // dx += the QKV projection's input gradient.
  void qkv_backward(int l, const __nv_bfloat16* dqkv, __nv_bfloat16* dx, float* grads, int T, cudaStream_t stream);

  // After an optimizer step (fp32 weights updated): new scales from the amaxes, then the weights' FP8 copies.
  void end_step(const float* params, const __nv_bfloat16* params16, cudaStream_t stream);

  Fp8Scaling& scaling() { return scaling_; }
  int tensor(int layer, Tensor t) const { return layer * kTensorsPerLayer + t; }

 private:
  struct Layer {
    DeviceBuffer<uint8_t> w_qkv, w_qkv_t, w_ao, w_ao_t, w_i, w_i_t, w_o, w_o_t;  // W8 [in, out], W8^T [out, in]
    DeviceBuffer<__nv_bfloat16> qkv_bias;                                          // [3 * hidden]
    DeviceBuffer<uint8_t> x_t, ctx_t, h1_t, act_t;                                  // inputs^T, for dW
  };
  // The cast of a bf16 [T, cols] activation or gradient x through op (aux: dgelu's pre-activation) into
  // out and out_t with tensor's scale, raising its amax when record.
  Fp8CastArgs activation_cast(const __nv_bfloat16* x, Fp8CastOp op, const __nv_bfloat16* aux, model::Fp8Format format,
                              int tensor, bool record, uint8_t* out, uint8_t* out_t, int T, int cols);
  // x (bf16 [T, in]) -> op -> cast: in8_ (E4M3, x_tensor's scale) and x_t ([in, T], kept for dW); then
  // y[T, out] (+bias) = x8 · W8^T, wt = W8^T [out, in]
  void dense_forward(const __nv_bfloat16* x, Fp8CastOp op, int x_tensor, uint8_t* x_t, const uint8_t* wt, int w_tensor,
                     const __nv_bfloat16* bias, __nv_bfloat16* y, int T, int in, int out, cudaStream_t stream);
  // dy (bf16 [T, out], through op with pre: GELU') -> dy8_, dy8t_ (E5M2) and db += its column sums
  // (block/stride: QKV's three biases)
  void cast_grad(const __nv_bfloat16* dy, Fp8CastOp op, const __nv_bfloat16* pre, int grad_tensor, int T, int out,
                 float* db, int block, int64_t block_stride, cudaStream_t stream);
  // dx[T, in] (= or +=) dy8 · W8 (w8 [in, out] row-major)
  void data_grad(int grad_tensor, const uint8_t* w8, int w_tensor, __nv_bfloat16* dx, float beta, int T, int in,
                 int out, cudaStream_t stream);
  // dW[in, out] += x8^T (xt [in, T]) · dy8t[rows from, from + out)^T
  void weight_grad(const uint8_t* xt, int x_tensor, int grad_tensor, int64_t dy_row0, float* dw, int T, int in,
                   int out, cudaStream_t stream);
  // One dense layer's backward (one bias, one weight; its tensors in, w, grad of layer l): cast_grad,
  // dx (beta: = or +=) from data_grad, dw += weight_grad; x_t and w8 as the forward kept them.
  void dense_backward(int l, Tensor in, Tensor w, Tensor grad, const __nv_bfloat16* dy, Fp8CastOp op,
                      const __nv_bfloat16* pre, const uint8_t* x_t, const uint8_t* w8, __nv_bfloat16* dx, float beta,
                      float* db, float* dw, int T, int n_in, int n_out, cudaStream_t stream);

  const model::ParamLayout& layout_;
  int H_, I_, max_tokens_;
  Fp8Scaling scaling_;
  Fp8Gemm gemm_;
  std::vector<Layer> layers_;
  DeviceBuffer<uint8_t> in8_, dy8_, dy8t_;  // scratch: the current GEMM's row-major input, gradient (and ^T)
  DeviceBuffer<float> colsum_;              // bias-gradient partial sums
  bool recording_ = true;
  OpTimer* timer_ = nullptr;
};

}  // namespace bert::cuda
