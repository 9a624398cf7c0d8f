#include "trainer/cuda/cuda_model.h"

#include <algorithm>
#include <string>
#include <utility>

#include "trainer/cuda/attention.h"
#include "trainer/cuda/bias_gelu.h"
#include "trainer/cuda/cast.h"
#include "trainer/cuda/check.h"
#include "trainer/cuda/cublaslt_context.h"
#include "trainer/cuda/cudnn_attention.h"
#include "trainer/cuda/device_batch.h"
#include "trainer/cuda/device_buffer.h"
#include "trainer/cuda/dropout.h"
#include "trainer/cuda/embedding.h"
#include "trainer/cuda/encoder_layer.h"
#include "trainer/cuda/fp8_dense.h"
#include "trainer/cuda/gemm.h"
#include "trainer/cuda/heads.h"
#include "trainer/cuda/layernorm.h"
#include "trainer/cuda/op_timer.h"

namespace bert::cuda {

using bf16 = __nv_bfloat16;
using Op = model::StepOp;
template <class T>
using Buf = DeviceBuffer<T>;

namespace {

size_t sz(int a, int b) { return static_cast<size_t>(a) * static_cast<size_t>(b); }

void check_model(const model::ParamLayout& layout, const CudaModelLimits& lim) {
  const model::BertConfig& c = layout.config;
  if (c.head_dim() != kAttentionHeadDim)
    throw model::BatchError("CUDA backend: head dim must be 64, the model has " + std::to_string(c.head_dim()));
  if (c.hidden % 8 != 0 || c.hidden > 1024 || c.intermediate % 8 != 0)
    throw model::BatchError("CUDA backend: hidden must be a multiple of 8 up to 1024 and intermediate a multiple of 8");
  if (lim.seq_len <= 0 || lim.seq_len > kAttentionMaxSeq || lim.seq_len > c.max_position || lim.rows <= 0)
    throw model::BatchError("CUDA backend: seq_len must be in 1..min(512, max_position)");
  for (const auto& o : layout.layer)
    if (static_cast<int64_t>(o.v_w - o.k_w) != static_cast<int64_t>(o.k_w - o.q_w) ||
        o.k_b - o.q_b != o.k_w - o.q_w || o.v_b - o.k_b != o.k_w - o.q_w)
      throw model::BatchError("CUDA backend: Q/K/V tensors are not at a constant stride in the parameter layout");
}

}  // namespace

struct CudaModel::State {
  const model::ParamLayout& L;
  model::BertConfig c;
  CudaModelLimits lim;
  cudaStream_t stream = nullptr;
  LtContext lt;  // one cuBLASLt handle and workspace for both GEMM classes
  Gemm gemm{lt};
  std::unique_ptr<Fp8DenseLayers> fp8;  // run.precision fp8 only
  std::unique_ptr<CudnnAttention> cudnn;  // cuDNN's attention, else ours

  Buf<float> w, g;
  Buf<bf16> w16;
  std::unique_ptr<DeviceBatch> batch;

  // activations
  Buf<bf16> emb_sum, emb_ln, x0;
  Buf<float> emb_mean, emb_rstd;
  std::vector<LayerActs> layers;
  std::unique_ptr<Head> mlm, nsp;

  // backward
  LayerGrads grads;
  Buf<float> ba_scratch;

  model::DropoutContext drop;
  bool have_forward = false;

  State(const model::ParamLayout& layout, const CudaModelLimits& limits) : L(layout), c(layout.config), lim(limits) {}

  LayerPass pass(OpTimer* timer) {
    const DeviceBatch& b = *batch;
    LayerPass p;
    p.L = &L;
    p.P = w.get();
    p.P16 = w16.get();
    p.G = g.get();
    p.gemm = &gemm;
    p.fp8 = fp8.get();
    p.cudnn = cudnn.get();
    p.attn = AttentionShape{b.T, b.seq_len, c.heads, b.S, b.max_len};
    p.first = b.first.get();
    p.lens = b.lens.get();
    p.drop = drop;
    p.micro_step_dev = lim.static_shapes ? b.micro_step_dev.get() : nullptr;
    p.timer = timer;
    p.stream = stream;
    return p;
  }
  HeadPass head_pass(OpTimer* timer) {
    return HeadPass{w.get(), w16.get(), g.get(), &gemm, timer, stream};
  }
  // The embeddings' LayerNorm (no residual; its dropout follows it), for the forward and the backward.
  LayerNormForwardArgs emb_layernorm() {
    LayerNormForwardArgs ln;
    ln.x = emb_sum.get();
    ln.gamma = w.get() + L.emb_ln_g;
    ln.beta = w.get() + L.emb_ln_b;
    ln.y = emb_ln.get();
    ln.mean = emb_mean.get();
    ln.rstd = emb_rstd.get();
    ln.rows = batch->T;
    ln.hidden = c.hidden;
    return ln;
  }
};

CudaModel::CudaModel(const model::ParamLayout& layout, const CudaModelLimits& lim) {
  check_model(layout, lim);
  st_ = std::make_unique<State>(layout, lim);
  State& s = *st_;
  const auto& c = s.c;
  if (lim.fp8.enabled) s.fp8 = std::make_unique<Fp8DenseLayers>(layout, s.lt, lim.rows, lim.seq_len, lim.fp8);
  if (use_cudnn_attention(lim.attention)) s.cudnn = CudnnAttention::create();
  BERT_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));

  const int T = lim.rows * lim.seq_len, H = c.hidden, I = c.intermediate, Sx = lim.max_sequences,
            Mx = lim.max_masked;
  s.w = Buf<float>(layout.total);
  s.g = Buf<float>(layout.total);
  s.w16 = Buf<bf16>(layout.total);
  BERT_CUDA_CHECK(cudaMemset(s.w.get(), 0, layout.total * sizeof(float)));
  BERT_CUDA_CHECK(cudaMemset(s.g.get(), 0, layout.total * sizeof(float)));
  BERT_CUDA_CHECK(cudaMemset(s.w16.get(), 0, layout.total * sizeof(bf16)));
  s.batch = std::make_unique<DeviceBatch>(lim);

  s.emb_sum = Buf<bf16>(sz(T, H));
  s.emb_ln = Buf<bf16>(sz(T, H));
  s.x0 = Buf<bf16>(sz(T, H));
  s.emb_mean = Buf<float>(T);
  s.emb_rstd = Buf<float>(T);
  const AttentionShape attn_max{T, lim.seq_len, c.heads, Sx, lim.seq_len};  // the largest batch's attention
  s.layers.resize(static_cast<size_t>(c.layers));
  for (LayerActs& a : s.layers) a.allocate(c, T, attn_max, s.fp8 != nullptr, s.cudnn != nullptr);
  s.mlm = std::make_unique<Head>(mlm_head_spec(layout), Mx, H);
  s.nsp = std::make_unique<Head>(nsp_head_spec(layout), Sx, H);

  LayerGrads& g = s.grads;
  for (Buf<bf16>* b : {&g.dH, &g.dX, &g.dh1, &g.dfo, &g.dctx, &g.dao}) *b = Buf<bf16>(sz(T, H));
  g.dpre = Buf<bf16>(sz(T, I));
  g.dqkv = Buf<bf16>(sz(T, 3 * H));
  g.ln_scratch = Buf<float>(layernorm_backward_scratch_floats(std::max(T, Mx), H));
  if (!s.cudnn) g.attn_scratch = Buf<float>(attention_backward_scratch_floats(attn_max));
  g.bias_scratch = Buf<float>(static_cast<size_t>(std::max({3 * H, I, mlm_head_spec(layout).ld, 8})));
  s.ba_scratch = Buf<float>(bias_act_backward_scratch_floats(std::max(Mx, Sx), H));
}

CudaModel::~CudaModel() {
  if (st_ && st_->stream) cudaStreamDestroy(st_->stream);
}

bool CudaModel::cudnn_attention() const { return st_->cudnn != nullptr; }
float* CudaModel::params_f32() { return st_->w.get(); }
bf16* CudaModel::params_bf16() { return st_->w16.get(); }
float* CudaModel::grads_f32() { return st_->g.get(); }
Fp8DenseLayers* CudaModel::fp8() { return st_->fp8.get(); }
cudaStream_t CudaModel::stream() const { return st_->stream; }

void CudaModel::set_params(const std::vector<float>& p) {
  State& s = *st_;
  if (p.size() != s.L.total) throw model::BatchError("CudaModel::set_params: size does not match the layout");
  BERT_CUDA_CHECK(cudaMemcpyAsync(s.w.get(), p.data(), p.size() * sizeof(float), cudaMemcpyHostToDevice, s.stream));
  cast_f32_to_bf16(s.w.get(), s.w16.get(), p.size(), s.stream);
  if (s.fp8) s.fp8->cast_weights(s.w.get(), s.w16.get(), s.stream);
  BERT_CUDA_CHECK(cudaStreamSynchronize(s.stream));
}

std::vector<float> CudaModel::params() const {
  BERT_CUDA_CHECK(cudaStreamSynchronize(st_->stream));
  return st_->w.download();
}
std::vector<float> CudaModel::grads() const {
  BERT_CUDA_CHECK(cudaStreamSynchronize(st_->stream));
  return st_->g.download();
}
void CudaModel::zero_grads() {
  BERT_CUDA_CHECK(cudaMemsetAsync(st_->g.get(), 0, st_->L.total * sizeof(float), st_->stream));
}

void CudaModel::load_batch(const data::Batch& b) {
  State& s = *st_;
  // Queued behind the previous step on the model's stream (which still reads these buffers), from
  // pinned staging: the host goes on without waiting.
  s.batch->load(b, s.c, s.lim, s.stream);
  s.have_forward = false;
}

void CudaModel::set_micro_step(uint32_t micro_step) { st_->batch->set_micro_step(micro_step, st_->stream); }

void CudaModel::forward(const model::DropoutContext& d, OpTimer* timer, bool training) {
  State& s = *st_;
  const auto& c = s.c;
  const auto& L = s.L;
  const DeviceBatch& b = *s.batch;
  const bf16* P16 = s.w16.get();
  const int T = b.T, H = c.hidden;
  cudaStream_t st = s.stream;
  s.drop = d;
  auto mark = [&](Op op) { mark_op(timer, op, st); };
  if (s.fp8) {
    s.fp8->set_recording(training);
    s.fp8->set_timer(timer);
  }
  LayerPass pass = s.pass(timer);
  pass.training = training;

  mark(Op::EmbeddingFwd);
  embedding_forward(EmbeddingInputs{b.ids.get(), b.pos.get(), b.seg.get(), b.mask.get(), T},
                    {P16 + L.word_emb, P16 + L.pos_emb, P16 + L.type_emb}, s.emb_sum.get(), H, st);
  mark(Op::LayerNormFwd);
  layernorm_forward(s.emb_layernorm(), st);
  mark(Op::DropoutFwd);
  dropout_apply(s.emb_ln.get(), s.x0.get(), sz(T, H), pass.spec(-1, 0, c.hidden_dropout), st);
  if (s.cudnn) {  // the batch's sequences as cuDNN's ragged entries, for every layer of this pass and its backward
    mark(Op::AttentionCudnnFwd);
    s.cudnn->set_batch(pass.attn, b.first.get(), b.lens.get(), st);
  }

  const bf16* x = s.x0.get();
  for (int l = 0; l < c.layers; ++l) {
    LayerActs& a = s.layers[static_cast<size_t>(l)];
    encoder_layer_forward(pass, l, x, a);
    x = a.h2.get();
  }

  const HeadPass hp = s.head_pass(timer);
  s.mlm->forward(hp, x, b.mlm_idx.get(), b.mlm_label.get(), b.M);
  s.nsp->forward(hp, x, b.first.get(), b.nsp_label.get(), b.S);
  s.have_forward = true;
}

void CudaModel::backward(float grad_scale, const GradsReady& on_ready, OpTimer* timer) {
  State& s = *st_;
  if (!s.have_forward) throw CudaError("CudaModel::backward without a forward of the loaded batch");
  const auto& c = s.c;
  const auto& L = s.L;
  const DeviceBatch& b = *s.batch;
  float* G = s.g.get();
  const int T = b.T, H = c.hidden;
  cudaStream_t st = s.stream;
  LayerGrads& g = s.grads;
  auto mark = [&](Op op) { mark_op(timer, op, st); };
  if (s.fp8) s.fp8->set_timer(timer);
  const LayerPass pass = s.pass(timer);

  mark(Op::Copies);
  BERT_CUDA_CHECK(cudaMemsetAsync(g.dH.get(), 0, sz(T, H) * sizeof(bf16), st));
  const HeadPass hp = s.head_pass(timer);
  const HeadScratch scratch{g.ln_scratch.get(), s.ba_scratch.get(), g.bias_scratch.get()};
  const bool stat = s.lim.static_shapes;
  s.mlm->backward(hp, scratch, b.mlm_idx.get(), b.mlm_label.get(), b.M, grad_scale, stat, g.dH.get());
  s.nsp->backward(hp, scratch, b.first.get(), b.nsp_label.get(), b.S, grad_scale, stat, g.dH.get());
  auto ready = [&](size_t begin, size_t end) {
    if (on_ready && end > begin) on_ready(begin, end - begin);
  };
  ready(L.pool_w, L.total);  // pooler and heads (the tied decoder's gradient lands in word_emb, later)

  for (int l = c.layers - 1; l >= 0; --l) {
    const auto& o = L.layer[static_cast<size_t>(l)];
    const bf16* x = l == 0 ? s.x0.get() : s.layers[static_cast<size_t>(l - 1)].h2.get();
    encoder_layer_backward(pass, l, x, s.layers[static_cast<size_t>(l)], g);
    std::swap(g.dH, g.dX);
    ready(o.q_w, static_cast<size_t>(l) + 1 < L.layer.size() ? L.layer[static_cast<size_t>(l) + 1].q_w : L.pool_w);
  }

  // embeddings: dropout, LayerNorm, table scatter-add (dfo/dao serve as scratch)
  mark(Op::DropoutBwd);
  dropout_apply(g.dH.get(), g.dfo.get(), sz(T, H), pass.spec(-1, 0, c.hidden_dropout), st);
  mark(Op::LayerNormBwd);
  layernorm_backward(layernorm_backward_args(s.emb_layernorm(), {.dy = g.dfo.get(), .dz = g.dao.get(),
                                                                 .dgamma = G + L.emb_ln_g, .dbeta = G + L.emb_ln_b,
                                                                 .scratch = g.ln_scratch.get()}),
                     st);
  mark(Op::EmbeddingBwd);
  embedding_backward(EmbeddingInputs{b.ids.get(), b.pos.get(), b.seg.get(), b.mask.get(), T}, g.dao.get(),
                     {G + L.word_emb, G + L.pos_emb, G + L.type_emb}, H, st);
  ready(0, L.layer.empty() ? L.pool_w : L.layer.front().q_w);
}

model::StepStats CudaModel::stats() {
  State& s = *st_;
  const DeviceBatch& b = *s.batch;
  BERT_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  model::StepStats r;
  r.masked = b.M_real;
  r.sequences = b.S_real;
  if (b.M > 0) {
    const auto [sum, ok] = s.mlm->sums(b.M);  // padded rows hold 0
    r.mlm_loss = b.M_real > 0 ? sum / b.M_real : 0.0;
    r.mlm_correct = ok;
  }
  if (b.S > 0) {
    const auto [sum, ok] = s.nsp->sums(b.S);
    r.nsp_loss = b.S_real > 0 ? sum / b.S_real : 0.0;
    r.nsp_correct = ok;
  }
  r.loss = r.mlm_loss + r.nsp_loss;
  return r;
}

}  // namespace bert::cuda
