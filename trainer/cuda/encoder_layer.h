// One encoder layer of BERT on one GPU (post-LN): fused QKV projection, attention, attention output
// dense, dropout + residual + LayerNorm, intermediate dense with GELU, output dense, dropout + residual +
// LayerNorm; and its backward. The layer assembles the ops (one per file); the model (cuda_model.cpp)
// runs the layers in turn. With run.precision fp8 the four dense layers run through Fp8DenseLayers.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "trainer/cuda/attention.h"
#include "trainer/cuda/device_buffer.h"
#include "trainer/cuda/dropout_spec.h"
#include "trainer/cuda/gemm.h"
#include "trainer/model/config.h"
#include "trainer/model/forward_types.h"
#include "trainer/model/params.h"

namespace bert::cuda {

class CudnnAttention;
class Fp8DenseLayers;
class OpTimer;

// What a layer keeps from its forward for its backward.
struct LayerActs {
  DeviceBuffer<__nv_bfloat16> qkv, ctx, ao, h1, pre, act, fo, h2;
  DeviceBuffer<float> lse, mean1, rstd1, mean2, rstd2;
  DeviceBuffer<uint32_t> keep_bits;  // attention dropout's keep flags, written by the forward for the backward
  DeviceBuffer<float> stats;         // cuDNN's attention: its softmax statistics (instead of lse and keep_bits)
  DeviceBuffer<int64_t> rng;         // cuDNN's attention dropout: its Philox seed and offset
  DeviceBuffer<uint8_t> ln_keep1, ln_keep2;  // the two LayerNorms' hidden-dropout keep flags (1 bit each)
  // Buffers for `tokens` tokens; attn_max: the largest batch's attention (its keep bits or cuDNN's statistics);
  // fp8: no bf16 GELU output; cudnn: cuDNN's attention runs (its buffers instead of ours).
  void allocate(const model::BertConfig& c, int tokens, const AttentionShape& attn_max, bool fp8, bool cudnn);
};

// The gradient buffers every layer's backward reuses ([tokens, hidden] unless said).
struct LayerGrads {
  DeviceBuffer<__nv_bfloat16> dH, dX, dh1, dfo, dpre /* [tokens, intermediate] */, dctx, dao,
      dqkv /* [tokens, 3 hidden] */;
  DeviceBuffer<float> ln_scratch, attn_scratch, bias_scratch;
};

// What one pass (forward or backward) of every layer shares.
struct LayerPass {
  const model::ParamLayout* L = nullptr;
  const float* P = nullptr;            // fp32 parameters (LayerNorm, biases)
  const __nv_bfloat16* P16 = nullptr;  // bf16 copy (GEMM weights, biases)
  float* G = nullptr;                  // fp32 gradients (backward)
  Gemm* gemm = nullptr;
  Fp8DenseLayers* fp8 = nullptr;       // run.precision fp8, else null
  CudnnAttention* cudnn = nullptr;     // cuDNN's attention (its batch set for this pass), else ours
  AttentionShape attn;
  const int32_t* first = nullptr;      // the batch's sequences (device)
  const int32_t* lens = nullptr;
  model::DropoutContext drop;
  bool training = true;                // a backward may follow (cuDNN's attention keeps its statistics)
  const uint32_t* micro_step_dev = nullptr;  // static shapes: the micro-step on the device
  OpTimer* timer = nullptr;
  cudaStream_t stream = nullptr;

  // Dropout of `layer`'s site (0 attention probabilities, 1 and 2 the two hidden-state dropouts; layer -1:
  // the embeddings) at rate p; none in evaluation.
  DropoutSpec spec(int layer, int site, float p) const;
};

// x: the layer's input [tokens, hidden]; the output is a.h2.
void encoder_layer_forward(const LayerPass& p, int l, const __nv_bfloat16* x, LayerActs& a);
// g.dH holds the gradient of the layer's output; afterwards g.dX holds that of its input x (the buffers are
// swapped by the caller between layers). Adds the layer's parameter gradients into p.G.
void encoder_layer_backward(const LayerPass& p, int l, const __nv_bfloat16* x, LayerActs& a, LayerGrads& g);

}  // namespace bert::cuda
