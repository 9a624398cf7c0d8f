// The pretraining heads on one GPU, MLM and NSP, as one helper: each gathers its rows of the encoder's
// output (the masked tokens; each sequence's first token), runs a transform dense layer with its
// activation (MLM: GELU then a LayerNorm; NSP: the pooler's tanh), an output dense layer ([classes,
// hidden] weights, the tied word embeddings for MLM) and the cross entropy, and backward the same way
// down to the encoder output's gradient (added into it at the gathered rows).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "trainer/cuda/bias_gelu.h"
#include "trainer/cuda/device_buffer.h"
#include "trainer/cuda/gemm.h"
#include "trainer/model/params.h"
#include "trainer/model/step_costs.h"

namespace bert::cuda {

class OpTimer;

// Where a head's weights sit in the flat layout, and its shape.
struct HeadSpec {
  size_t w = 0, b = 0;              // transform kernel [hidden, hidden] and bias
  Activation act = Activation::None;
  bool layernorm = false;           // a LayerNorm after the activation (ln_g, ln_b)
  size_t ln_g = 0, ln_b = 0;
  size_t out_w = 0, out_b = 0;      // output weights [classes, hidden] (OutIn) and bias
  int classes = 0, ld = 0;          // logits columns and their row stride (16-byte rows for cuBLASLt)
  model::StepOp fwd = model::StepOp::MlmHeadFwd, bwd = model::StepOp::MlmHeadBwd;
};
HeadSpec mlm_head_spec(const model::ParamLayout& L);
HeadSpec nsp_head_spec(const model::ParamLayout& L);

// What a head's pass reads and writes besides its own buffers.
struct HeadPass {
  const float* P = nullptr;            // fp32 parameters (biases, LayerNorm)
  const __nv_bfloat16* P16 = nullptr;  // bf16 copy (GEMM weights)
  float* G = nullptr;                  // fp32 gradients (backward)
  Gemm* gemm = nullptr;
  OpTimer* timer = nullptr;
  cudaStream_t stream = nullptr;
};

// Shared scratch of the backward passes (sized by the model for its widest use).
struct HeadScratch {
  float* layernorm = nullptr;  // layernorm_backward_scratch_floats
  float* bias_act = nullptr;   // bias_act_backward_scratch_floats
  float* bias = nullptr;       // a dense layer's bias gradient before it is added
};

class Head {
 public:
  Head(const HeadSpec& spec, int max_rows, int hidden);

  // rows of x (encoder output [tokens, hidden]) at idx (-1: a padding row, ignored), labels (-1: ignored).
  void forward(const HeadPass& p, const __nv_bfloat16* x, const int32_t* idx, const int32_t* labels, int rows);
  // grad_scale multiplies d(mean loss)/d(logits): divided by rows, or with static shapes by the device's
  // count of valid labels. dx: the encoder output's gradient, added into at idx.
  void backward(const HeadPass& p, const HeadScratch& scratch, const int32_t* idx, const int32_t* labels, int rows,
                float grad_scale, bool static_shapes, __nv_bfloat16* dx);
  // Sum of the first `rows` losses and correct flags (synchronous; padded rows hold 0).
  std::pair<double, int64_t> sums(int rows) const;

 private:
  HeadSpec spec_;
  int hidden_;
  DeviceBuffer<__nv_bfloat16> in_, pre_, act_, t_, logits_;
  DeviceBuffer<__nv_bfloat16> dt_, dact_, dpre_, din_;
  DeviceBuffer<float> mean_, rstd_, loss_, scale_;
  DeviceBuffer<int32_t> correct_;
};

}  // namespace bert::cuda
