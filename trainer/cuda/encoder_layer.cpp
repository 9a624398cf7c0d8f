#include "trainer/cuda/encoder_layer.h"

#include "trainer/cuda/cudnn_attention.h"
#include "trainer/cuda/fp8_dense.h"
#include "trainer/cuda/layernorm.h"
#include "trainer/cuda/op_timer.h"
#include "trainer/model/dropout_rng.h"

namespace bert::cuda {
namespace {

using bf16 = __nv_bfloat16;
using Op = model::StepOp;
size_t sz(int a, int b) { return static_cast<size_t>(a) * static_cast<size_t>(b); }

// Q, K and V kernels (and biases) sit at one stride in the flat buffer: the fused QKV batch, writing the
// column blocks of the [tokens, 3*hidden] qkv tensor.
GemmBatch qkv_batch(const model::LayerOffsets& o, int hidden) {
  const auto stride = static_cast<int64_t>(o.k_w - o.q_w);
  return GemmBatch{3, stride, stride, hidden};
}

// The layer's keep bits when this pass drops attention probabilities (the backward reads what the
// forward of the same pass wrote), else null.
uint32_t* keep_bits(const LayerPass& p, LayerActs& a) {
  return p.drop.enabled && p.L->config.attention_dropout > 0.f ? a.keep_bits.get() : nullptr;
}
uint8_t* ln_keep(const LayerPass& p, DeviceBuffer<uint8_t>& b) {
  return p.drop.enabled && p.L->config.hidden_dropout > 0.f ? b.get() : nullptr;
}

}  // namespace

void LayerActs::allocate(const model::BertConfig& c, int T, const AttentionShape& attn_max, bool fp8, bool cudnn) {
  const int H = c.hidden, I = c.intermediate;
  qkv = DeviceBuffer<bf16>(sz(T, 3 * H));
  for (DeviceBuffer<bf16>* b : {&ctx, &ao, &h1, &fo, &h2}) *b = DeviceBuffer<bf16>(sz(T, H));
  pre = DeviceBuffer<bf16>(sz(T, I));
  if (!fp8) act = DeviceBuffer<bf16>(sz(T, I));  // fp8: the GELU output exists in FP8 only
  if (cudnn) {
    stats = DeviceBuffer<float>(cudnn_attention_stats_floats(attn_max));
    rng = DeviceBuffer<int64_t>(2);
  } else {
    lse = DeviceBuffer<float>(sz(c.heads, T));
    if (c.attention_dropout > 0.f)  // seq_len % 32 != 0: none, the backward draws the masks again
      if (const size_t words = attention_keep_words(attn_max)) keep_bits = DeviceBuffer<uint32_t>(words);
  }
  if (c.hidden_dropout > 0.f)  // hidden % 8 == 0 (layernorm's own limit): whole bytes a row
    for (DeviceBuffer<uint8_t>* b : {&ln_keep1, &ln_keep2}) *b = DeviceBuffer<uint8_t>(sz(T, H) / 8);
  for (DeviceBuffer<float>* b : {&mean1, &rstd1, &mean2, &rstd2}) *b = DeviceBuffer<float>(static_cast<size_t>(T));
}

DropoutSpec LayerPass::spec(int layer, int site, float p) const {
  if (!drop.enabled) return DropoutSpec{};
  return DropoutSpec{p, {drop.seed, drop.rank, drop.micro_step, model::dropout_stream_id(layer, site)}, micro_step_dev};
}

void encoder_layer_forward(const LayerPass& p, int l, const bf16* x, LayerActs& a) {
  const model::BertConfig& c = p.L->config;
  const model::LayerOffsets& o = p.L->layer[static_cast<size_t>(l)];
  const int T = p.attn.tokens, H = c.hidden, I = c.intermediate;
  const float ph = c.hidden_dropout, pa = c.attention_dropout;
  cudaStream_t st = p.stream;
  auto mark = [&](Op op) { mark_op(p.timer, op, st); };
  const float* P = p.P;
  const bf16* P16 = p.P16;

  mark(Op::QkvFwd);
  if (p.fp8)
    p.fp8->qkv_forward(l, x, a.qkv.get(), T, st);
  else
    p.gemm->forward(x, P16 + o.q_w, WeightLayout::KernelInOut, P16 + o.q_b, a.qkv.get(), T, H, H, false, nullptr, st,
                    3 * H, qkv_batch(o, H));
  if (p.cudnn) {
    mark(Op::AttentionCudnnFwd);
    p.cudnn->forward(CudnnForwardArgs{p.attn, a.qkv.get(), p.spec(l, 0, pa), p.training, a.ctx.get(),
                                      a.stats.get(), a.rng.get()},
                     st);
  } else {
    mark(Op::AttentionFwd);
    attention_forward(AttentionForwardArgs{p.attn, a.qkv.get(), p.first, p.lens, p.spec(l, 0, pa), a.ctx.get(),
                                           a.lse.get(), keep_bits(p, a)},
                      st);
  }
  mark(Op::AttnOutFwd);
  if (p.fp8)
    p.fp8->attn_out_forward(l, a.ctx.get(), P16, a.ao.get(), T, st);
  else
    p.gemm->forward(a.ctx.get(), P16 + o.ao_w, WeightLayout::KernelInOut, P16 + o.ao_b, a.ao.get(), T, H, H, false,
                    nullptr, st);
  LayerNormForwardArgs l1;
  l1.x = a.ao.get();
  l1.residual = x;
  l1.dropout = p.spec(l, 1, ph);
  l1.gamma = P + o.ao_ln_g;
  l1.beta = P + o.ao_ln_b;
  l1.y = a.h1.get();
  l1.mean = a.mean1.get();
  l1.rstd = a.rstd1.get();
  l1.keep_out = ln_keep(p, a.ln_keep1);
  l1.rows = T;
  l1.hidden = H;
  mark(Op::LayerNormFwd);
  layernorm_forward(l1, st);
  mark(Op::FfnInFwd);
  if (p.fp8)
    p.fp8->ffn_in_forward(l, a.h1.get(), P16, a.pre.get(), T, st);
  else
    p.gemm->forward(a.h1.get(), P16 + o.i_w, WeightLayout::KernelInOut, P16 + o.i_b, a.act.get(), T, H, I, true,
                    a.pre.get(), st);
  mark(Op::FfnOutFwd);
  if (p.fp8)
    p.fp8->ffn_out_forward(l, a.pre.get(), P16, a.fo.get(), T, st);
  else
    p.gemm->forward(a.act.get(), P16 + o.o_w, WeightLayout::KernelInOut, P16 + o.o_b, a.fo.get(), T, I, H, false,
                    nullptr, st);
  LayerNormForwardArgs l2 = l1;
  l2.x = a.fo.get();
  l2.residual = a.h1.get();
  l2.dropout = p.spec(l, 2, ph);
  l2.gamma = P + o.o_ln_g;
  l2.beta = P + o.o_ln_b;
  l2.y = a.h2.get();
  l2.mean = a.mean2.get();
  l2.rstd = a.rstd2.get();
  l2.keep_out = ln_keep(p, a.ln_keep2);
  mark(Op::LayerNormFwd);
  layernorm_forward(l2, st);
}

void encoder_layer_backward(const LayerPass& p, int l, const bf16* x, LayerActs& a, LayerGrads& g) {
  const model::BertConfig& c = p.L->config;
  const model::LayerOffsets& o = p.L->layer[static_cast<size_t>(l)];
  const int T = p.attn.tokens, H = c.hidden, I = c.intermediate;
  const float ph = c.hidden_dropout, pa = c.attention_dropout;
  cudaStream_t st = p.stream;
  auto mark = [&](Op op) { mark_op(p.timer, op, st); };
  const float* P = p.P;
  const bf16* P16 = p.P16;
  float* G = p.G;
  float* bsc = g.bias_scratch.get();

  // LN2 <- residual h1 + dropout(FFN out)
  LayerNormBackwardArgs l2;
  l2.dy = g.dH.get();
  l2.x = a.fo.get();
  l2.residual = a.h1.get();
  l2.dropout = p.spec(l, 2, ph);
  l2.keep = ln_keep(p, a.ln_keep2);
  l2.gamma = P + o.o_ln_g;
  l2.mean = a.mean2.get();
  l2.rstd = a.rstd2.get();
  l2.dz = g.dh1.get();
  l2.dx = g.dfo.get();
  l2.dgamma = G + o.o_ln_g;
  l2.dbeta = G + o.o_ln_b;
  l2.scratch = g.ln_scratch.get();
  l2.rows = T;
  l2.hidden = H;
  mark(Op::LayerNormBwd);
  layernorm_backward(l2, st);
  // FFN: output dense (GELU backward fused into its data gradient), intermediate dense
  mark(Op::FfnOutBwd);
  if (p.fp8)  // dpre serves as the bf16 gradient of the GELU output
    p.fp8->ffn_out_backward(l, g.dfo.get(), g.dpre.get(), G, T, st);
  else
    p.gemm->dense_backward({.x = a.act.get(), .dy = g.dfo.get(), .w = P16 + o.o_w, .dx = g.dpre.get(), .dw = G + o.o_w,
                            .db = G + o.o_b, .bias_scratch = bsc, .tokens = T, .in = I, .out = H,
                            .gelu_aux = a.pre.get()},
                           st);
  mark(Op::FfnInBwd);
  if (p.fp8)
    p.fp8->ffn_in_backward(l, g.dpre.get(), a.pre.get(), g.dh1.get(), G, T, st);
  else
    p.gemm->dense_backward({.x = a.h1.get(), .dy = g.dpre.get(), .w = P16 + o.i_w, .dx = g.dh1.get(), .dw = G + o.i_w,
                            .db = G + o.i_b, .bias_scratch = bsc, .tokens = T, .in = H, .out = I, .dx_beta = 1.f},
                           st);
  // LN1 <- residual x + dropout(attention output dense)
  LayerNormBackwardArgs l1 = l2;
  l1.dy = g.dh1.get();
  l1.x = a.ao.get();
  l1.residual = x;
  l1.dropout = p.spec(l, 1, ph);
  l1.keep = ln_keep(p, a.ln_keep1);
  l1.gamma = P + o.ao_ln_g;
  l1.mean = a.mean1.get();
  l1.rstd = a.rstd1.get();
  l1.dz = g.dX.get();
  l1.dx = g.dao.get();
  l1.dgamma = G + o.ao_ln_g;
  l1.dbeta = G + o.ao_ln_b;
  mark(Op::LayerNormBwd);
  layernorm_backward(l1, st);
  mark(Op::AttnOutBwd);
  if (p.fp8)
    p.fp8->attn_out_backward(l, g.dao.get(), g.dctx.get(), G, T, st);
  else
    p.gemm->dense_backward({.x = a.ctx.get(), .dy = g.dao.get(), .w = P16 + o.ao_w, .dx = g.dctx.get(),
                            .dw = G + o.ao_w, .db = G + o.ao_b, .bias_scratch = bsc, .tokens = T, .in = H, .out = H},
                           st);
  if (p.cudnn) {
    mark(Op::AttentionCudnnBwd);
    p.cudnn->backward(CudnnBackwardArgs{p.attn, a.qkv.get(), a.ctx.get(), g.dctx.get(), a.stats.get(),
                                        p.spec(l, 0, pa), a.rng.get(), g.dqkv.get()},
                      st);
  } else {
    mark(Op::AttentionBwd);
    attention_backward(AttentionBackwardArgs{p.attn, a.qkv.get(), a.ctx.get(), g.dctx.get(), a.lse.get(), p.first,
                                             p.lens, p.spec(l, 0, pa), g.dqkv.get(), g.attn_scratch.get(),
                                             keep_bits(p, a)},
                       st);
  }
  // Q, K, V (the forward's batch): data gradients summed into the residual gradient
  mark(Op::QkvBwd);
  if (p.fp8)
    p.fp8->qkv_backward(l, g.dqkv.get(), g.dX.get(), G, T, st);
  else
    p.gemm->dense_backward({.x = x, .dy = g.dqkv.get(), .w = P16 + o.q_w, .dx = g.dX.get(), .dw = G + o.q_w,
                            .db = G + o.q_b, .bias_scratch = bsc, .tokens = T, .in = H, .out = H, .dx_beta = 1.f,
                            .ld_dy = 3 * H, .batch = qkv_batch(o, H)},
                           st);
}

}  // namespace bert::cuda
