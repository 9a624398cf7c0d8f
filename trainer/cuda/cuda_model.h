// BERT pretraining model on one GPU: the CUDA mirror of bert::cpu::BertCpu (same flat parameter
// layout, same dropout RNG streams and element numbering, same losses: mean MLM cross entropy over
// the masked tokens + mean NSP cross entropy over the sequences).
//
// Precision: fp32 master parameters and gradients in the flat layout (trainer/model/params.h), a bf16
// copy of the parameters for the GEMMs, bf16 activations, fp32 LayerNorm statistics and parameters.
// Layout: tokens stay in the Batch's flat rows*seq_len order (padding rows included, excluded from
// attention exactly); the MLM head runs on the masked rows only and NSP on each sequence's first token.
// All work is queued on the model's stream; only stats() synchronises. The model assembles the ops:
// the batch (device_batch.h), the embeddings, the encoder layers (encoder_layer.h), the heads (heads.h).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "trainer/cuda/model_limits.h"
#include "trainer/data/batch.h"
#include "trainer/model/forward_types.h"
#include "trainer/model/params.h"

namespace bert::cuda {

class OpTimer;

class Fp8DenseLayers;

class CudaModel {
 public:
  CudaModel(const model::ParamLayout& layout, const CudaModelLimits& limits);
  ~CudaModel();
  CudaModel(const CudaModel&) = delete;
  CudaModel& operator=(const CudaModel&) = delete;

  void set_params(const std::vector<float>& params);  // fp32 master + bf16 copy
  std::vector<float> params() const;
  std::vector<float> grads() const;
  void zero_grads();

  float* params_f32();
  __nv_bfloat16* params_bf16();
  float* grads_f32();
  cudaStream_t stream() const;

  // Validates (model::BatchError naming the field) and queues the batch's copy to the device on the
  // model's stream (after the work already queued there, which may still read the old batch).
  // Does not wait for the device: pinned, double-buffered staging (host_staging.h).
  void load_batch(const data::Batch& b);
  // Static shapes: the micro-step the next forward/backward draws dropout masks for (dropout.micro_step
  // is ignored then, so a captured graph needs no change). Queued on the stream like load_batch.
  void set_micro_step(uint32_t micro_step);
  // Forward of the loaded batch; keeps what backward needs. A timer (op_timer.h) marks each op.
  // training false (evaluation): FP8 casts leave the scaling recipe's amaxes alone.
  void forward(const model::DropoutContext& dropout, OpTimer* timer = nullptr, bool training = true);
  // Called during backward() each time a range [offset, offset+count) of the flat gradient buffer
  // has all its producing kernels queued (heads, then each layer top-down, then embeddings and the
  // tied word embeddings): the hook for bucketed, overlapped gradient allreduce.
  using GradsReady = std::function<void(size_t offset, size_t count)>;
  // Adds grad_scale * d(loss)/d(params) of the last forward into the fp32 gradients.
  void backward(float grad_scale, const GradsReady& on_ready = {}, OpTimer* timer = nullptr);
  // Losses and accuracy counts of the last forward (synchronises the stream).
  model::StepStats stats();
  // run.precision fp8: the FP8 dense layers (their scaling state; end_step after each update), else null.
  Fp8DenseLayers* fp8();
  // Whether attention runs through cuDNN (limits.attention and the build), else our kernels.
  bool cudnn_attention() const;

 private:
  struct State;
  std::unique_ptr<State> st_;
};

}  // namespace bert::cuda
