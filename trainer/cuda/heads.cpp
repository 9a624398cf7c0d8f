#include "trainer/cuda/heads.h"

#include <algorithm>
#include <vector>

#include "trainer/cuda/check.h"
#include "trainer/cuda/cross_entropy.h"
#include "trainer/cuda/gather.h"
#include "trainer/cuda/layernorm.h"
#include "trainer/cuda/op_timer.h"

namespace bert::cuda {
namespace {

using bf16 = __nv_bfloat16;
constexpr int kNspLd = 8;  // NSP logits row stride: 16-byte rows for cuBLASLt

size_t sz(int a, int b) { return static_cast<size_t>(a) * static_cast<size_t>(b); }

}  // namespace

HeadSpec mlm_head_spec(const model::ParamLayout& L) {
  HeadSpec s;
  s.w = L.mlm_w;
  s.b = L.mlm_b;
  s.act = Activation::Gelu;
  s.layernorm = true;
  s.ln_g = L.mlm_ln_g;
  s.ln_b = L.mlm_ln_b;
  s.out_w = L.word_emb;  // the tied decoder
  s.out_b = L.mlm_out_bias;
  s.classes = L.config.vocab_size;
  s.ld = (L.config.vocab_size + 7) / 8 * 8;
  s.fwd = model::StepOp::MlmHeadFwd;
  s.bwd = model::StepOp::MlmHeadBwd;
  return s;
}

HeadSpec nsp_head_spec(const model::ParamLayout& L) {
  HeadSpec s;
  s.w = L.pool_w;
  s.b = L.pool_b;
  s.act = Activation::Tanh;
  s.out_w = L.nsp_w;
  s.out_b = L.nsp_b;
  s.classes = 2;
  s.ld = kNspLd;
  s.fwd = model::StepOp::NspHeadFwd;
  s.bwd = model::StepOp::NspHeadBwd;
  return s;
}

Head::Head(const HeadSpec& spec, int max_rows, int hidden) : spec_(spec), hidden_(hidden) {
  const int n = std::max(max_rows, 1);
  for (DeviceBuffer<bf16>* b : {&in_, &pre_, &act_, &dt_, &dact_, &dpre_, &din_}) *b = DeviceBuffer<bf16>(sz(n, hidden));
  if (spec.layernorm) {
    t_ = DeviceBuffer<bf16>(sz(n, hidden));
    mean_ = DeviceBuffer<float>(static_cast<size_t>(n));
    rstd_ = DeviceBuffer<float>(static_cast<size_t>(n));
  }
  logits_ = DeviceBuffer<bf16>(sz(n, spec.ld));
  loss_ = DeviceBuffer<float>(static_cast<size_t>(n));
  correct_ = DeviceBuffer<int32_t>(static_cast<size_t>(n));
  scale_ = DeviceBuffer<float>(1);
}

void Head::forward(const HeadPass& p, const bf16* x, const int32_t* idx, const int32_t* labels, int rows) {
  if (rows <= 0) return;
  const int H = hidden_;
  cudaStream_t st = p.stream;
  auto mark = [&](model::StepOp op) { mark_op(p.timer, op, st); };
  mark(model::StepOp::GatherFwd);
  gather_rows(x, idx, in_.get(), rows, H, st);
  mark(spec_.fwd);
  p.gemm->forward(in_.get(), p.P16 + spec_.w, WeightLayout::KernelInOut, nullptr, pre_.get(), rows, H, H, false,
                  nullptr, st);
  mark(model::StepOp::BiasActFwd);
  bias_act_forward(pre_.get(), p.P + spec_.b, act_.get(), rows, H, spec_.act, st);
  const bf16* t = act_.get();
  if (spec_.layernorm) {
    LayerNormForwardArgs a;
    a.x = act_.get();
    a.gamma = p.P + spec_.ln_g;
    a.beta = p.P + spec_.ln_b;
    a.y = t_.get();
    a.mean = mean_.get();
    a.rstd = rstd_.get();
    a.rows = rows;
    a.hidden = H;
    mark(model::StepOp::LayerNormFwd);
    layernorm_forward(a, st);
    t = t_.get();
  }
  mark(spec_.fwd);
  p.gemm->forward(t, p.P16 + spec_.out_w, WeightLayout::OutIn, p.P16 + spec_.out_b, logits_.get(), rows, H,
                  spec_.classes, false, nullptr, st, spec_.ld);
  mark(model::StepOp::CrossEntropyFwd);
  cross_entropy(CrossEntropyArgs{logits_.get(), labels, rows, spec_.classes, spec_.ld, 0.f, nullptr, loss_.get(),
                                 correct_.get()},
                st);
}

void Head::backward(const HeadPass& p, const HeadScratch& scratch, const int32_t* idx, const int32_t* labels, int rows,
                    float grad_scale, bool static_shapes, bf16* dx) {
  if (rows <= 0) return;
  const int H = hidden_;
  cudaStream_t st = p.stream;
  float* G = p.G;
  auto mark = [&](model::StepOp op) { mark_op(p.timer, op, st); };
  mark(model::StepOp::CrossEntropyBwd);
  if (static_shapes) inverse_valid_count(labels, rows, scale_.get(), st);
  // dlogits overwrite the logits
  cross_entropy(CrossEntropyArgs{logits_.get(), labels, rows, spec_.classes, spec_.ld,
                                 static_shapes ? grad_scale : grad_scale / static_cast<float>(rows), logits_.get(),
                                 loss_.get(), correct_.get(), static_shapes ? scale_.get() : nullptr},
                st);
  mark(spec_.bwd);
  const bf16* t = spec_.layernorm ? t_.get() : act_.get();
  bf16* dt = spec_.layernorm ? dt_.get() : dact_.get();
  p.gemm->dense_backward({.x = t, .dy = logits_.get(), .w = p.P16 + spec_.out_w, .layout = WeightLayout::OutIn,
                          .dx = dt, .dw = G + spec_.out_w, .db = G + spec_.out_b, .bias_scratch = scratch.bias,
                          .tokens = rows, .in = H, .out = spec_.classes, .ld_dy = spec_.ld},
                         st);
  if (spec_.layernorm) {
    LayerNormBackwardArgs a;
    a.dy = dt_.get();
    a.x = act_.get();
    a.gamma = p.P + spec_.ln_g;
    a.mean = mean_.get();
    a.rstd = rstd_.get();
    a.dz = dact_.get();
    a.dgamma = G + spec_.ln_g;
    a.dbeta = G + spec_.ln_b;
    a.scratch = scratch.layernorm;
    a.rows = rows;
    a.hidden = H;
    mark(model::StepOp::LayerNormBwd);
    layernorm_backward(a, st);
  }
  mark(model::StepOp::BiasActBwd);
  bias_act_backward(dact_.get(), pre_.get(), p.P + spec_.b, dpre_.get(), G + spec_.b, scratch.bias_act, rows, H,
                    spec_.act, st);
  mark(spec_.bwd);
  p.gemm->dense_backward({.x = in_.get(), .dy = dpre_.get(), .w = p.P16 + spec_.w, .dx = din_.get(), .dw = G + spec_.w,
                          .tokens = rows, .in = H, .out = H},
                         st);
  mark(model::StepOp::ScatterBwd);
  scatter_add_rows(din_.get(), idx, dx, rows, H, st);
}

std::pair<double, int64_t> Head::sums(int rows) const {
  std::vector<float> l(static_cast<size_t>(rows));
  std::vector<int32_t> c(static_cast<size_t>(rows));
  BERT_CUDA_CHECK(cudaMemcpy(l.data(), loss_.get(), l.size() * sizeof(float), cudaMemcpyDeviceToHost));
  BERT_CUDA_CHECK(cudaMemcpy(c.data(), correct_.get(), c.size() * sizeof(int32_t), cudaMemcpyDeviceToHost));
  double sum = 0;
  int64_t ok = 0;
  for (int i = 0; i < rows; ++i) {
    sum += l[static_cast<size_t>(i)];
    ok += c[static_cast<size_t>(i)];
  }
  return {sum, ok};
}

}  // namespace bert::cuda
