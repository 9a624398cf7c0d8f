#include "trainer/model/step_costs.h"

#include <algorithm>

namespace bert::model {
namespace {

constexpr double kAct = 2;   // bf16 activation / weight copy
constexpr double kF32 = 4;   // fp32 statistics, gradients, master weights, moments

// Y[n, out] = X[n, in] · W (+ bias): bf16 operands and result.
OpCost dense_forward(double n, double in, double out, double extra_out = 0) {
  return {2 * n * in * out, kAct * (n * in + in * out + n * out + out + extra_out)};
}
// dX = dY · W^T (+ dX when the tensor feeds two consumers), dW (fp32) += X^T dY, db (fp32) += Σ dY.
OpCost dense_backward(double n, double in, double out, bool dx_accumulates, double extra_read = 0) {
  const double data = kAct * (n * out + in * out + n * in + (dx_accumulates ? n * in : 0) + extra_read);
  const double weight = kAct * (n * in + n * out) + 2 * kF32 * (in * out + out);
  return {4 * n * in * out, data + weight};
}
OpCost operator+(OpCost a, const OpCost& b) { return {a.flop + b.flop, a.bytes + b.bytes}; }
OpCost operator*(double k, const OpCost& a) { return {k * a.flop, k * a.bytes}; }

}  // namespace

const char* step_op_name(StepOp op) {
  switch (op) {
    case StepOp::Copies: return "copies";
    case StepOp::EmbeddingFwd: return "embedding.fwd";
    case StepOp::LayerNormFwd: return "layernorm.fwd";
    case StepOp::DropoutFwd: return "dropout.fwd";
    case StepOp::QkvFwd: return "gemm.qkv.fwd";
    case StepOp::AttentionFwd: return "attention.fwd";
    case StepOp::AttentionCudnnFwd: return "attention.cudnn.fwd";
    case StepOp::AttnOutFwd: return "gemm.attn_out.fwd";
    case StepOp::FfnInFwd: return "gemm.ffn_in.fwd";
    case StepOp::FfnOutFwd: return "gemm.ffn_out.fwd";
    case StepOp::Fp8CastFwd: return "fp8_cast.fwd";
    case StepOp::GatherFwd: return "gather.fwd";
    case StepOp::MlmHeadFwd: return "gemm.mlm_head.fwd";
    case StepOp::BiasActFwd: return "bias_act.fwd";
    case StepOp::CrossEntropyFwd: return "cross_entropy.fwd";
    case StepOp::NspHeadFwd: return "gemm.nsp_head.fwd";
    case StepOp::CrossEntropyBwd: return "cross_entropy.bwd";
    case StepOp::MlmHeadBwd: return "gemm.mlm_head.bwd";
    case StepOp::LayerNormBwd: return "layernorm.bwd";
    case StepOp::BiasActBwd: return "bias_act.bwd";
    case StepOp::ScatterBwd: return "scatter.bwd";
    case StepOp::NspHeadBwd: return "gemm.nsp_head.bwd";
    case StepOp::FfnOutBwd: return "gemm.ffn_out.bwd";
    case StepOp::FfnInBwd: return "gemm.ffn_in.bwd";
    case StepOp::AttnOutBwd: return "gemm.attn_out.bwd";
    case StepOp::AttentionBwd: return "attention.bwd";
    case StepOp::AttentionCudnnBwd: return "attention.cudnn.bwd";
    case StepOp::QkvBwd: return "gemm.qkv.bwd";
    case StepOp::Fp8CastBwd: return "fp8_cast.bwd";
    case StepOp::DropoutBwd: return "dropout.bwd";
    case StepOp::EmbeddingBwd: return "embedding.bwd";
    case StepOp::Lamb: return "lamb";
    case StepOp::Fp8Weights: return "fp8_weights";
    case StepOp::kCount: break;
  }
  return "?";
}

StepCosts step_costs(const BertConfig& c, const StepShape& s) {
  const double n = static_cast<double>(s.tokens), S = static_cast<double>(s.sequences),
               M = static_cast<double>(s.masked), P = static_cast<double>(s.params);
  const double H = c.hidden, I = c.intermediate, V = c.vocab_size, L = c.layers, heads = c.heads;
  const double ids = 4 + 4 + 1;  // input id, position id (int32), segment id (int8) per token
  StepCosts k{};
  auto at = [&](StepOp op) -> OpCost& { return k[static_cast<size_t>(op)]; };

  at(StepOp::Copies) = {0, kF32 * P + kAct * n * H};  // gradients zeroed, residual gradient zeroed
  at(StepOp::EmbeddingFwd) = {0, ids * n + kAct * 4 * n * H};            // 3 rows read, the sum written
  at(StepOp::EmbeddingBwd) = {0, (ids + 1) * n + kAct * n * H + 2 * 2 * kF32 * n * H};  // word, position rows: fp32 RMW
  // LayerNorm forward reads x (+ residual), writes y and the row statistics; backward reads dy, x
  // (+ residual) and writes dz (+ dx through the dropout mask).
  const double stats = 2 * kF32;
  at(StepOp::LayerNormFwd) = {0, 2 * L * (kAct * 3 * n * H + stats * n) + (kAct * 2 * n * H + stats * n) +
                                     (kAct * 2 * M * H + stats * M)};
  at(StepOp::LayerNormBwd) = {0, 2 * L * (kAct * 5 * n * H + stats * n) + (kAct * 3 * n * H + stats * n) +
                                     (kAct * 3 * M * H + stats * M)};
  at(StepOp::DropoutFwd) = {0, kAct * 2 * n * H};
  at(StepOp::DropoutBwd) = {0, kAct * 2 * n * H};

  at(StepOp::QkvFwd) = L * dense_forward(n, H, 3 * H);
  at(StepOp::QkvBwd) = L * dense_backward(n, H, 3 * H, true);
  at(StepOp::AttnOutFwd) = L * dense_forward(n, H, H);
  at(StepOp::AttnOutBwd) = L * dense_backward(n, H, H, false);
  at(StepOp::FfnInFwd) = L * dense_forward(n, H, I, n * I);              // + the pre-activation (GELU aux)
  at(StepOp::FfnInBwd) = L * dense_backward(n, H, I, true);
  at(StepOp::FfnOutFwd) = L * dense_forward(n, I, H);
  at(StepOp::FfnOutBwd) = L * dense_backward(n, I, H, false, n * I);     // + the aux read by dGELU

  // Attention: QK^T and PV, 2·len²·H each per layer; backward twice that. Reads Q, K, V, writes the
  // context and the row logsumexp; backward reads them and dO, writes dQ, dK, dV.
  const double lse = kF32 * heads * n;
  at(s.cudnn_attention ? StepOp::AttentionCudnnFwd : StepOp::AttentionFwd) = {L * 4 * H * s.sum_len_sq,
                                                                               L * (kAct * 4 * n * H + lse)};
  at(s.cudnn_attention ? StepOp::AttentionCudnnBwd : StepOp::AttentionBwd) = {L * 8 * H * s.sum_len_sq,
                                                                               L * (kAct * 8 * n * H + lse)};

  at(StepOp::GatherFwd) = {0, kAct * 2 * (M + S) * H + 4 * (M + S)};
  at(StepOp::ScatterBwd) = {0, kAct * 3 * (M + S) * H + 4 * (M + S)};
  at(StepOp::MlmHeadFwd) = dense_forward(M, H, H) + dense_forward(M, H, V);
  at(StepOp::MlmHeadBwd) = dense_backward(M, H, H, false) + dense_backward(M, H, V, false);
  at(StepOp::NspHeadFwd) = dense_forward(S, H, H) + dense_forward(S, H, 2);
  at(StepOp::NspHeadBwd) = dense_backward(S, H, H, false) + dense_backward(S, H, 2, false);
  at(StepOp::BiasActFwd) = {0, kAct * 2 * (M + S) * H};
  at(StepOp::BiasActBwd) = {0, kAct * 3 * (M + S) * H};
  // MLM logits read for the loss, then read again and overwritten by their gradient; labels.
  at(StepOp::CrossEntropyFwd) = {0, kAct * M * V + 4 * (M + S)};
  at(StepOp::CrossEntropyBwd) = {0, kAct * 2 * M * V + 4 * (M + S)};

  // LAMB needs the global gradient norm before the moments and every tensor's update norm before
  // the update: g read for the norm (4), g, m, v, w read and m, v, u written (28), w, u read and w
  // and its bf16 copy written (14). Recomputing u instead of storing it moves the same 46 bytes.
  at(StepOp::Lamb) = {0, 46 * P};

  if (s.fp8) {  // fp8_dense.h: each cast reads bf16 and writes the FP8 copy and its transpose (1 byte each)
    // forward: the QKV, attention-output and FFN inputs (H wide), GELU(pre) for the output dense (I wide)
    at(StepOp::Fp8CastFwd) = {0, L * n * (kAct + 2) * (3 * H + I)};
    // backward: the QKV (3H), attention-output, FFN-output (H) gradients, the FFN input's (I, with GELU'
    // of the pre-activation read too)
    at(StepOp::Fp8CastBwd) = {0, L * n * ((kAct + 2) * 5 * H + (2 * kAct + 2) * I)};
    // the encoder's weights read (fp32) and written as W8 and W8^T
    at(StepOp::Fp8Weights) = {0, L * (4 * H * H + 2 * H * I) * (kF32 + 2)};
  }
  return k;
}

double step_flop(const StepCosts& costs) {
  double f = 0;
  for (const OpCost& c : costs) f += c.flop;
  return f;
}

double floor_seconds(const OpCost& cost, double flop_per_s, double bytes_per_s) {
  return std::max(flop_per_s > 0 ? cost.flop / flop_per_s : 0.0, bytes_per_s > 0 ? cost.bytes / bytes_per_s : 0.0);
}

}  // namespace bert::model
