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

// The layer's two residual LayerNorms as the forward runs them (site 1: x + dropout(attention output) -> h1;
// site 2: h1 + dropout(FFN output) -> h2); the backward reads its inputs from the same description.
struct LnParams {
  size_t gamma, beta;  // offsets in the flat buffers
};
LnParams ln_params(const model::LayerOffsets& o, int site) {
  return site == 1 ? LnParams{o.ao_ln_g, o.ao_ln_b} : LnParams{o.o_ln_g, o.o_ln_b};
}
LayerNormForwardArgs layer_ln(const LayerPass& p, int l, int site, const bf16* x, LayerActs& a) {
  const LnParams w = ln_params(p.L->layer[static_cast<size_t>(l)], site);
  const bool first = site == 1;
  LayerNormForwardArgs n;
  n.x = first ? a.ao.get() : a.fo.get();
  n.residual = first ? x : a.h1.get();
  n.dropout = p.spec(l, site, p.L->config.hidden_dropout);
  n.gamma = p.P + w.gamma;
  n.beta = p.P + w.beta;
  n.y = first ? a.h1.get() : a.h2.get();
  n.mean = first ? a.mean1.get() : a.mean2.get();
  n.rstd = first ? a.rstd1.get() : a.rstd2.get();
  n.keep_out = ln_keep(p, first ? a.ln_keep1 : a.ln_keep2);
  n.rows = p.attn.tokens;
  n.hidden = p.L->config.hidden;
  return n;
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
  const float pa = c.attention_dropout;
  cudaStream_t st = p.stream;
  auto mark = [&](Op op) { mark_op(p.timer, op, st); };
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
  // The dense layers after attention: FP8 (fp8_dense.h's method for the layer, from fp8_x into fp8_y: the GELU
  // output exists in FP8 only, so pre stands between the FFN's two) or bf16 (gemm.h: y = x W + b; GELU when
  // pre, the pre-activation, is given).
  struct Bf16Dense {
    const bf16* x;
    size_t w, b;
    bf16* y;
    int in, out;
    bf16* pre;
  };
  using Fp8Forward = void (Fp8DenseLayers::*)(int, const bf16*, const bf16*, bf16*, int, cudaStream_t);
  const auto dense = [&](Op op, Fp8Forward fp8, const bf16* fp8_x, bf16* fp8_y, const Bf16Dense& d) {
    mark(op);
    if (p.fp8)
      (p.fp8->*fp8)(l, fp8_x, P16, fp8_y, T, st);
    else
      p.gemm->forward(d.x, P16 + d.w, WeightLayout::KernelInOut, P16 + d.b, d.y, T, d.in, d.out, d.pre != nullptr,
                      d.pre, st);
  };
  dense(Op::AttnOutFwd, &Fp8DenseLayers::attn_out_forward, a.ctx.get(), a.ao.get(),
        {a.ctx.get(), o.ao_w, o.ao_b, a.ao.get(), H, H, nullptr});
  mark(Op::LayerNormFwd);
  layernorm_forward(layer_ln(p, l, 1, x, a), st);
  dense(Op::FfnInFwd, &Fp8DenseLayers::ffn_in_forward, a.h1.get(), a.pre.get(),
        {a.h1.get(), o.i_w, o.i_b, a.act.get(), H, I, a.pre.get()});
  dense(Op::FfnOutFwd, &Fp8DenseLayers::ffn_out_forward, a.pre.get(), a.fo.get(),
        {a.act.get(), o.o_w, o.o_b, a.fo.get(), I, H, nullptr});
  mark(Op::LayerNormFwd);
  layernorm_forward(layer_ln(p, l, 2, x, a), st);
}

void encoder_layer_backward(const LayerPass& p, int l, const bf16* x, LayerActs& a, LayerGrads& g) {
  const model::BertConfig& c = p.L->config;
  const model::LayerOffsets& o = p.L->layer[static_cast<size_t>(l)];
  const int T = p.attn.tokens, H = c.hidden, I = c.intermediate;
  const float pa = c.attention_dropout;
  cudaStream_t st = p.stream;
  auto mark = [&](Op op) { mark_op(p.timer, op, st); };
  const bf16* P16 = p.P16;
  float* G = p.G;
  float* bsc = g.bias_scratch.get();

  // A residual LayerNorm's backward (site as in layer_ln): from dy, the gradients of the residual (dz) and of
  // the sublayer's output (dx); gamma's and beta's added into G.
  const auto ln_backward = [&](int site, const bf16* dy, bf16* dz, bf16* dx) {
    const LnParams w = ln_params(o, site);
    mark(Op::LayerNormBwd);
    layernorm_backward(layernorm_backward_args(layer_ln(p, l, site, x, a),
                                               {.dy = dy, .dz = dz, .dx = dx, .dgamma = G + w.gamma,
                                                .dbeta = G + w.beta, .scratch = g.ln_scratch.get()}),
                       st);
  };

  // LN2 <- residual h1 + dropout(FFN out)
  ln_backward(2, g.dH.get(), g.dh1.get(), g.dfo.get());
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
  ln_backward(1, g.dh1.get(), g.dX.get(), g.dao.get());
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
