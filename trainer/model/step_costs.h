// What one BERT pretraining step costs, op class by op class: its matmul FLOPs and the bytes it must
// move through device memory at least (bf16 activations, fp32 statistics, gradients and optimizer
// state). The one place these counts live: the throughput benchmark's model FLOPs (MFU) are their sum,
// and its profile (trainer_throughput --profile) divides each class's counts by the GEMM rate and
// the copy bandwidth measured in the same run to give that class's floor.
//
// FLOPs: matmuls only, the usual MLPerf convention (backward = 2 x forward: attention's
// backward counts 8·H·Σlen², not the 10 a FlashAttention recompute executes). Elementwise work counts
// bytes only. Bytes: each tensor an op reads or writes, once, at its stored width (a dropout mask is
// recomputed, so it moves nothing); GEMM weight gradients are fp32 read-modify-write (accumulation).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "trainer/model/config.h"

namespace bert::model {

// One row per op class of a step, in the order a step runs them. Encoder classes cover all layers.
enum class StepOp : int {
  Copies,          // zeroing the gradients and the residual gradient, the batch's copy
  EmbeddingFwd,    // word + position + type lookup
  LayerNormFwd,    // embedding LN, the encoder's dropout+residual+LN (2 per layer), the MLM transform's LN
  DropoutFwd,      // the embedding output's dropout (the encoder's are inside LayerNorm)
  QkvFwd,          // fused Q, K, V projection
  AttentionFwd,    // softmax(QK^T/8) with dropout, times V: our kernels (trainer/cuda/attention.h)
  AttentionCudnnFwd,  // the same through cuDNN's fused attention (trainer/cuda/cudnn_attention.h)
  AttnOutFwd,      // attention output dense
  FfnInFwd,        // intermediate dense (+ bias + GELU epilogue)
  FfnOutFwd,       // output dense
  Fp8CastFwd,      // run.precision fp8: the dense layers' inputs cast to E4M3 (+ the transposed copies)
  GatherFwd,       // the masked rows and the first tokens for the heads
  MlmHeadFwd,      // MLM transform dense + tied decoder over the masked rows
  BiasActFwd,      // standalone bias+GELU (MLM transform) and bias+tanh (pooler)
  CrossEntropyFwd, // MLM and NSP losses
  NspHeadFwd,      // pooler dense + NSP dense
  CrossEntropyBwd,
  MlmHeadBwd,
  LayerNormBwd,
  BiasActBwd,
  ScatterBwd,      // the heads' row gradients added back into the residual gradient
  NspHeadBwd,
  FfnOutBwd,       // data gradient with the dGELU epilogue, weight and bias gradients
  FfnInBwd,
  AttnOutBwd,
  AttentionBwd,
  AttentionCudnnBwd,
  QkvBwd,
  Fp8CastBwd,      // fp8: the output gradients cast to E5M2 (+ transposed, + the bias gradients' column sums)
  DropoutBwd,
  EmbeddingBwd,
  Lamb,            // global norm, moments, trust ratios, update, bf16 copy
  Fp8Weights,      // fp8: the amax reduction, the next scales and the weights' FP8 copies after LAMB
  kCount
};
inline constexpr size_t kStepOps = static_cast<size_t>(StepOp::kCount);

// Short stable name ("gemm.qkv.fwd", "attention.bwd", ...): the profile's table rows and JSON keys.
const char* step_op_name(StepOp op);

// The work of one step. Tokens: the rows the encoder runs over (real tokens only, for the model's
// useful work; rows x seq_len for what a padded layout executes).
struct StepShape {
  int64_t tokens = 0;
  int64_t sequences = 0;
  int64_t masked = 0;
  double sum_len_sq = 0;  // Σ over sequences of length² (attention)
  int64_t params = 0;     // floats the optimizer walks (the flat buffer)
  bool fp8 = false;       // run.precision fp8: the FP8 casts (the GEMM rows stay as counted for bf16)
  bool cudnn_attention = false;  // attention's counts on the attention.cudnn.* rows instead of attention.*
};

struct OpCost {
  double flop = 0;
  double bytes = 0;
};
using StepCosts = std::array<OpCost, kStepOps>;

StepCosts step_costs(const BertConfig& c, const StepShape& s);

// Sum of the FLOPs: 3 x the forward matmul FLOPs (the MFU numerator).
double step_flop(const StepCosts& costs);

// The least time an op can take: its FLOPs at the GEMM rate or its bytes at the copy bandwidth,
// whichever is longer (a roofline with the two measured peaks).
double floor_seconds(const OpCost& cost, double flop_per_s, double bytes_per_s);

}  // namespace bert::model
