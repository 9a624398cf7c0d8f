#include "trainer/cuda/cuda_model.h"

#include <algorithm>
#include <string>
#include <utility>

#include "trainer/cuda/attention.h"
#include "trainer/cuda/bias_gelu.h"
#include "trainer/cuda/cast.h"
#include "trainer/cuda/check.h"
#include "trainer/cuda/cross_entropy.h"
#include "trainer/cuda/device_buffer.h"
#include "trainer/cuda/dropout.h"
#include "trainer/cuda/embedding.h"
#include "trainer/cuda/fp8_dense.h"
#include "trainer/cuda/gather.h"
#include "trainer/cuda/gemm.h"
#include "trainer/cuda/host_staging.h"
#include "trainer/cuda/layernorm.h"
#include "trainer/cuda/op_timer.h"
#include "trainer/model/dropout_rng.h"

namespace bert::cuda {

using bf16 = __nv_bfloat16;
using Op = model::StepOp;
template <class T>
using Buf = DeviceBuffer<T>;

namespace {

constexpr int kNspLd = 8;  // NSP logits row stride: 16-byte rows for cuBLASLt

size_t sz(int a, int b) { return static_cast<size_t>(a) * static_cast<size_t>(b); }

struct LayerActs {
  Buf<bf16> qkv, ctx, ao, h1, pre, act, fo, h2;
  Buf<float> lse, mean1, rstd1, mean2, rstd2;
  Buf<uint32_t> keep_bits;  // attention dropout's keep flags, written by the forward for the backward
  Buf<uint8_t> ln_keep1, ln_keep2;  // the two LayerNorms' hidden-dropout keep flags, the same way (1 bit each)
};

// LayerNorm without residual or dropout (embeddings, MLM transform).
void plain_layernorm_forward(const bf16* x, const float* gamma, const float* beta, bf16* y, float* mean, float* rstd,
                             int rows, int hidden, cudaStream_t st) {
  LayerNormForwardArgs a;
  a.x = x;
  a.gamma = gamma;
  a.beta = beta;
  a.y = y;
  a.mean = mean;
  a.rstd = rstd;
  a.rows = rows;
  a.hidden = hidden;
  layernorm_forward(a, st);
}
void plain_layernorm_backward(const bf16* dy, const bf16* x, const float* gamma, const float* mean, const float* rstd,
                              bf16* dx, float* dgamma, float* dbeta, float* scratch, int rows, int hidden,
                              cudaStream_t st) {
  LayerNormBackwardArgs a;
  a.dy = dy;
  a.x = x;
  a.gamma = gamma;
  a.mean = mean;
  a.rstd = rstd;
  a.dz = dx;
  a.dgamma = dgamma;
  a.dbeta = dbeta;
  a.scratch = scratch;
  a.rows = rows;
  a.hidden = hidden;
  layernorm_backward(a, st);
}

}  // namespace

struct CudaModel::State {
  const model::ParamLayout& L;
  model::BertConfig c;
  CudaModelLimits lim;
  int vpad = 0;
  cudaStream_t stream = nullptr;
  Gemm gemm;
  std::unique_ptr<Fp8DenseLayers> fp8;  // run.precision fp8 only

  Buf<float> w, g;
  Buf<bf16> w16;

  // the loaded batch (S, M: padded counts with static shapes; S_real, M_real: the batch's own)
  int T = 0, S = 0, M = 0, seq_len = 0, max_len = 0, S_real = 0, M_real = 0;
  std::vector<int32_t> h_nsp, h_first, h_lens, h_mlm_idx, h_mlm_label;  // padded (static shapes)
  std::unique_ptr<HostStaging> batch_staging, step_staging;  // load_batch / set_micro_step never wait
  Buf<uint32_t> micro_step_dev;
  Buf<float> mlm_scale, nsp_scale;  // 1 / valid rows (static shapes)
  Buf<int32_t> ids, pos, first, lens, mlm_idx, mlm_label, nsp_label;
  Buf<int8_t> seg, mask;

  // activations
  Buf<bf16> emb_sum, emb_ln, x0;
  Buf<float> emb_mean, emb_rstd;
  std::vector<LayerActs> layers;
  Buf<bf16> mlm_in, mlm_x, mlm_act, mlm_t, logits;
  Buf<float> mlm_mean, mlm_rstd, mlm_loss;
  Buf<int32_t> mlm_correct;
  Buf<bf16> cls_in, pool_x, pooled, nsp_logits;
  Buf<float> nsp_loss;
  Buf<int32_t> nsp_correct;

  // backward
  Buf<bf16> dH, dX, dh1, dfo, dpre, dctx, dao, dqkv;
  Buf<bf16> dm_t, dm_act, dm_pre, dm_in, dpooled, dpool_pre, dcls;
  Buf<float> ln_scratch, ba_scratch, attn_scratch, bias_scratch;

  model::DropoutContext drop;
  bool have_forward = false;

  explicit State(const model::ParamLayout& layout) : L(layout), c(layout.config) {}

  DropoutSpec spec(int layer, int site, float p) const {
    if (!drop.enabled) return DropoutSpec{};
    return DropoutSpec{p, {drop.seed, drop.rank, drop.micro_step, model::dropout_stream_id(layer, site)},
                       lim.static_shapes ? micro_step_dev.get() : nullptr};
  }
  AttentionShape attn_shape() const { return AttentionShape{T, seq_len, c.heads, S, max_len}; }
  // The layer's keep-bit buffer when this pass drops attention probabilities (the backward reads what
  // the forward of the same pass wrote), else null.
  uint32_t* keep_bits(LayerActs& a) const {
    return drop.enabled && c.attention_dropout > 0.f ? a.keep_bits.get() : nullptr;
  }
  uint8_t* ln_keep(Buf<uint8_t>& b) const { return drop.enabled && c.hidden_dropout > 0.f ? b.get() : nullptr; }
  EmbeddingInputs emb_inputs() const { return EmbeddingInputs{ids.get(), pos.get(), seg.get(), mask.get(), T}; }
  // Q, K and V kernels (and biases) sit at one stride in the flat buffer: the fused QKV batch, writing
  // the column blocks of the [tokens, 3*hidden] qkv tensor.
  GemmBatch qkv_batch(const model::LayerOffsets& o) const {
    const auto stride = static_cast<int64_t>(o.k_w - o.q_w);
    return GemmBatch{3, stride, stride, c.hidden};
  }
};

CudaModel::CudaModel(const model::ParamLayout& layout, const CudaModelLimits& lim)
    : st_(std::make_unique<State>(layout)) {
  State& s = *st_;
  const auto& c = s.c;
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
  s.lim = lim;
  s.vpad = (c.vocab_size + 7) / 8 * 8;
  if (lim.fp8.enabled) s.fp8 = std::make_unique<Fp8DenseLayers>(layout, lim.rows, lim.seq_len, lim.fp8);
  BERT_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));

  const int T = lim.rows * lim.seq_len, H = c.hidden, I = c.intermediate, Sx = lim.max_sequences,
            Mx = lim.max_masked;
  s.w = Buf<float>(layout.total);
  s.g = Buf<float>(layout.total);
  s.w16 = Buf<bf16>(layout.total);
  BERT_CUDA_CHECK(cudaMemset(s.w.get(), 0, layout.total * sizeof(float)));
  BERT_CUDA_CHECK(cudaMemset(s.g.get(), 0, layout.total * sizeof(float)));
  BERT_CUDA_CHECK(cudaMemset(s.w16.get(), 0, layout.total * sizeof(bf16)));

  s.ids = Buf<int32_t>(T);
  s.pos = Buf<int32_t>(T);
  s.seg = Buf<int8_t>(T);
  s.mask = Buf<int8_t>(T);
  s.first = Buf<int32_t>(Sx);
  s.lens = Buf<int32_t>(Sx);
  s.nsp_label = Buf<int32_t>(Sx);
  s.mlm_idx = Buf<int32_t>(Mx);
  s.mlm_label = Buf<int32_t>(Mx);
  s.micro_step_dev = Buf<uint32_t>::from({0u});
  {  // ids, pos (int32), seg, mask (int8) per token; first, lens, nsp (int32) per sequence; index, label per mask
    const size_t t = sz(T, 1), sx = sz(Sx, 1), mx = sz(Mx, 1);
    s.batch_staging = std::make_unique<HostStaging>(
        HostStaging::bytes_for({4 * t, 4 * t, t, t, 4 * sx, 4 * sx, 4 * sx, 4 * mx, 4 * mx}));
  }
  s.step_staging = std::make_unique<HostStaging>(sizeof(uint32_t));
  s.mlm_scale = Buf<float>(1);
  s.nsp_scale = Buf<float>(1);

  s.emb_sum = Buf<bf16>(sz(T, H));
  s.emb_ln = Buf<bf16>(sz(T, H));
  s.x0 = Buf<bf16>(sz(T, H));
  s.emb_mean = Buf<float>(T);
  s.emb_rstd = Buf<float>(T);
  const AttentionShape attn_max{T, lim.seq_len, c.heads, Sx, lim.seq_len};  // the largest batch's attention
  s.layers.resize(static_cast<size_t>(c.layers));
  for (auto& a : s.layers) {
    a.qkv = Buf<bf16>(sz(T, 3 * H));
    for (Buf<bf16>* b : {&a.ctx, &a.ao, &a.h1, &a.fo, &a.h2}) *b = Buf<bf16>(sz(T, H));
    a.pre = Buf<bf16>(sz(T, I));
    if (!s.fp8) a.act = Buf<bf16>(sz(T, I));  // fp8: the GELU output exists in FP8 only
    a.lse = Buf<float>(sz(c.heads, T));
    if (c.attention_dropout > 0.f)  // seq_len % 32 != 0: none, the backward draws the masks again
      if (const size_t words = attention_keep_words(attn_max))
        a.keep_bits = Buf<uint32_t>(words);
    if (c.hidden_dropout > 0.f)  // hidden % 8 == 0 (layernorm's own limit): whole bytes a row
      for (Buf<uint8_t>* b : {&a.ln_keep1, &a.ln_keep2}) *b = Buf<uint8_t>(sz(T, H) / 8);
    for (Buf<float>* b : {&a.mean1, &a.rstd1, &a.mean2, &a.rstd2}) *b = Buf<float>(T);
  }
  for (Buf<bf16>* b : {&s.mlm_in, &s.mlm_x, &s.mlm_act, &s.mlm_t, &s.dm_t, &s.dm_act, &s.dm_pre, &s.dm_in})
    *b = Buf<bf16>(sz(std::max(Mx, 1), H));
  s.logits = Buf<bf16>(sz(std::max(Mx, 1), s.vpad));
  s.mlm_mean = Buf<float>(std::max(Mx, 1));
  s.mlm_rstd = Buf<float>(std::max(Mx, 1));
  s.mlm_loss = Buf<float>(std::max(Mx, 1));
  s.mlm_correct = Buf<int32_t>(std::max(Mx, 1));
  for (Buf<bf16>* b : {&s.cls_in, &s.pool_x, &s.pooled, &s.dpooled, &s.dpool_pre, &s.dcls}) *b = Buf<bf16>(sz(Sx, H));
  s.nsp_logits = Buf<bf16>(sz(Sx, kNspLd));
  s.nsp_loss = Buf<float>(Sx);
  s.nsp_correct = Buf<int32_t>(Sx);

  for (Buf<bf16>* b : {&s.dH, &s.dX, &s.dh1, &s.dfo, &s.dctx, &s.dao}) *b = Buf<bf16>(sz(T, H));
  s.dpre = Buf<bf16>(sz(T, I));
  s.dqkv = Buf<bf16>(sz(T, 3 * H));
  s.ln_scratch = Buf<float>(layernorm_backward_scratch_floats(std::max(T, Mx), H));
  s.ba_scratch = Buf<float>(bias_act_backward_scratch_floats(std::max(Mx, Sx), H));
  s.attn_scratch = Buf<float>(attention_backward_scratch_floats(attn_max));
  s.bias_scratch = Buf<float>(static_cast<size_t>(std::max({3 * H, I, s.vpad, kNspLd})));
}

CudaModel::~CudaModel() {
  if (st_ && st_->stream) cudaStreamDestroy(st_->stream);
}

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
  const auto& c = s.c;
  auto bad = [](const std::string& m) { throw model::BatchError("batch: " + m); };
  const int n = b.rows * b.seq_len;
  if (b.rows > s.lim.rows || b.seq_len != s.lim.seq_len)
    bad("shape " + std::to_string(b.rows) + "x" + std::to_string(b.seq_len) + " does not fit the model's buffers (" +
        std::to_string(s.lim.rows) + "x" + std::to_string(s.lim.seq_len) + ")");
  if (static_cast<int>(b.input_ids.size()) != n || static_cast<int>(b.segment_ids.size()) != n ||
      static_cast<int>(b.input_mask.size()) != n || static_cast<int>(b.position_ids.size()) != n)
    bad("token arrays do not match rows*seq_len");
  if (static_cast<int>(b.seq_first_token.size()) != b.num_sequences ||
      static_cast<int>(b.seq_lengths.size()) != b.num_sequences ||
      static_cast<int>(b.nsp_labels.size()) != b.num_sequences)
    bad("sequence arrays do not match num_sequences");
  if (b.num_sequences > s.lim.max_sequences) bad("more sequences than the model was sized for");
  if (b.num_masked() > s.lim.max_masked) bad("more masked tokens than the model was sized for");
  if (b.mlm_label_ids.size() != b.mlm_token_index.size()) bad("masked label and index arrays differ in size");
  for (int i = 0; i < n; ++i) {
    if (b.input_ids[i] < 0 || b.input_ids[i] >= c.vocab_size)
      bad("token id " + std::to_string(b.input_ids[i]) + " outside the vocabulary (" + std::to_string(c.vocab_size) + ")");
    if (b.position_ids[i] < 0 || b.position_ids[i] >= c.max_position) bad("position id out of range");
    if (b.segment_ids[i] < 0 || b.segment_ids[i] >= c.type_vocab) bad("segment id out of range");
  }
  std::vector<uint8_t> real(static_cast<size_t>(n), 0);
  int max_len = 0;
  for (int q = 0; q < b.num_sequences; ++q) {
    const int f = b.seq_first_token[q], len = b.seq_lengths[q];
    if (len <= 0 || len > b.seq_len || f < 0 || f + len > n || f / b.seq_len != (f + len - 1) / b.seq_len)
      bad("sequence " + std::to_string(q) + " out of range");
    if (b.nsp_labels[q] != 0 && b.nsp_labels[q] != 1) bad("next_sentence_label must be 0 or 1");
    std::fill(real.begin() + f, real.begin() + f + len, 1);
    max_len = std::max(max_len, len);
  }
  for (int m = 0; m < b.num_masked(); ++m) {
    const int fl = b.mlm_token_index[m];
    if (fl < 0 || fl >= n || !real[static_cast<size_t>(fl)]) bad("masked position outside the real tokens");
    if (b.mlm_label_ids[m] < 0 || b.mlm_label_ids[m] >= c.vocab_size) bad("masked label outside the vocabulary");
  }
  s.T = n;
  s.S_real = s.S = b.num_sequences;
  s.M_real = s.M = b.num_masked();
  s.seq_len = b.seq_len;
  s.max_len = max_len;
  s.h_first.assign(b.seq_first_token.begin(), b.seq_first_token.end());
  s.h_lens.assign(b.seq_lengths.begin(), b.seq_lengths.end());
  s.h_nsp.assign(b.nsp_labels.begin(), b.nsp_labels.end());
  s.h_mlm_idx.assign(b.mlm_token_index.begin(), b.mlm_token_index.end());
  s.h_mlm_label.assign(b.mlm_label_ids.begin(), b.mlm_label_ids.end());
  if (s.lim.static_shapes) {  // pad to the captured shapes: ignored rows
    s.S = s.lim.max_sequences;
    s.M = s.lim.max_masked;
    s.max_len = s.lim.seq_len;
    s.h_first.resize(static_cast<size_t>(s.S), -1);
    s.h_lens.resize(static_cast<size_t>(s.S), 0);
    s.h_nsp.resize(static_cast<size_t>(s.S), -1);
    s.h_mlm_idx.resize(static_cast<size_t>(s.M), -1);
    s.h_mlm_label.resize(static_cast<size_t>(s.M), -1);
  }
  // Queued behind the previous step on the model's stream (which still reads these buffers), from
  // pinned staging: the host goes on without waiting.
  HostStaging& hs = *s.batch_staging;
  hs.begin();
  hs.copy(s.ids.get(), b.input_ids.data(), b.input_ids.size(), s.stream);
  hs.copy(s.pos.get(), b.position_ids.data(), b.position_ids.size(), s.stream);
  hs.copy(s.seg.get(), b.segment_ids.data(), b.segment_ids.size(), s.stream);
  hs.copy(s.mask.get(), b.input_mask.data(), b.input_mask.size(), s.stream);
  hs.copy(s.first.get(), s.h_first.data(), s.h_first.size(), s.stream);
  hs.copy(s.lens.get(), s.h_lens.data(), s.h_lens.size(), s.stream);
  hs.copy(s.nsp_label.get(), s.h_nsp.data(), s.h_nsp.size(), s.stream);
  hs.copy(s.mlm_idx.get(), s.h_mlm_idx.data(), s.h_mlm_idx.size(), s.stream);
  hs.copy(s.mlm_label.get(), s.h_mlm_label.data(), s.h_mlm_label.size(), s.stream);
  hs.end(s.stream);
  s.have_forward = false;
}

void CudaModel::set_micro_step(uint32_t micro_step) {
  HostStaging& hs = *st_->step_staging;
  hs.begin();
  hs.copy(st_->micro_step_dev.get(), &micro_step, 1, st_->stream);
  hs.end(st_->stream);
}

void CudaModel::forward(const model::DropoutContext& d, OpTimer* timer, bool training) {
  State& s = *st_;
  const auto& c = s.c;
  const auto& L = s.L;
  const float* P = s.w.get();
  const bf16* P16 = s.w16.get();
  const int T = s.T, H = c.hidden, I = c.intermediate, S = s.S, M = s.M;
  cudaStream_t st = s.stream;
  s.drop = d;
  const float ph = c.hidden_dropout, pa = c.attention_dropout;
  auto mark = [&](Op op) { mark_op(timer, op, st); };
  if (s.fp8) {
    s.fp8->set_recording(training);
    s.fp8->set_timer(timer);
  }

  mark(Op::EmbeddingFwd);
  embedding_forward(s.emb_inputs(), {P16 + L.word_emb, P16 + L.pos_emb, P16 + L.type_emb}, s.emb_sum.get(), H, st);
  mark(Op::LayerNormFwd);
  plain_layernorm_forward(s.emb_sum.get(), P + L.emb_ln_g, P + L.emb_ln_b, s.emb_ln.get(), s.emb_mean.get(),
                          s.emb_rstd.get(), T, H, st);
  mark(Op::DropoutFwd);
  dropout_apply(s.emb_ln.get(), s.x0.get(), sz(T, H), s.spec(-1, 0, ph), st);

  const bf16* x = s.x0.get();
  for (int l = 0; l < c.layers; ++l) {
    const auto& o = L.layer[static_cast<size_t>(l)];
    LayerActs& a = s.layers[static_cast<size_t>(l)];
    mark(Op::QkvFwd);
    if (s.fp8)
      s.fp8->qkv_forward(l, x, a.qkv.get(), T, st);
    else
      s.gemm.forward(x, P16 + o.q_w, WeightLayout::KernelInOut, P16 + o.q_b, a.qkv.get(), T, H, H, false, nullptr, st,
                     3 * H, s.qkv_batch(o));
    mark(Op::AttentionFwd);
    attention_forward(AttentionForwardArgs{s.attn_shape(), a.qkv.get(), s.first.get(), s.lens.get(), s.spec(l, 0, pa),
                                           a.ctx.get(), a.lse.get(), s.keep_bits(a)},
                      st);
    mark(Op::AttnOutFwd);
    if (s.fp8)
      s.fp8->attn_out_forward(l, a.ctx.get(), P16, a.ao.get(), T, st);
    else
      s.gemm.forward(a.ctx.get(), P16 + o.ao_w, WeightLayout::KernelInOut, P16 + o.ao_b, a.ao.get(), T, H, H, false,
                     nullptr, st);
    LayerNormForwardArgs l1;
    l1.x = a.ao.get();
    l1.residual = x;
    l1.dropout = s.spec(l, 1, ph);
    l1.gamma = P + o.ao_ln_g;
    l1.beta = P + o.ao_ln_b;
    l1.y = a.h1.get();
    l1.mean = a.mean1.get();
    l1.rstd = a.rstd1.get();
    l1.keep_out = s.ln_keep(a.ln_keep1);
    l1.rows = T;
    l1.hidden = H;
    mark(Op::LayerNormFwd);
    layernorm_forward(l1, st);
    mark(Op::FfnInFwd);
    if (s.fp8)
      s.fp8->ffn_in_forward(l, a.h1.get(), P16, a.pre.get(), T, st);
    else
      s.gemm.forward(a.h1.get(), P16 + o.i_w, WeightLayout::KernelInOut, P16 + o.i_b, a.act.get(), T, H, I, true,
                     a.pre.get(), st);
    mark(Op::FfnOutFwd);
    if (s.fp8)
      s.fp8->ffn_out_forward(l, a.pre.get(), P16, a.fo.get(), T, st);
    else
      s.gemm.forward(a.act.get(), P16 + o.o_w, WeightLayout::KernelInOut, P16 + o.o_b, a.fo.get(), T, I, H, false,
                     nullptr, st);
    LayerNormForwardArgs l2 = l1;
    l2.x = a.fo.get();
    l2.residual = a.h1.get();
    l2.dropout = s.spec(l, 2, ph);
    l2.gamma = P + o.o_ln_g;
    l2.beta = P + o.o_ln_b;
    l2.y = a.h2.get();
    l2.mean = a.mean2.get();
    l2.rstd = a.rstd2.get();
    l2.keep_out = s.ln_keep(a.ln_keep2);
    mark(Op::LayerNormFwd);
    layernorm_forward(l2, st);
    x = a.h2.get();
  }

  if (M > 0) {
    mark(Op::GatherFwd);
    gather_rows(x, s.mlm_idx.get(), s.mlm_in.get(), M, H, st);
    mark(Op::MlmHeadFwd);
    s.gemm.forward(s.mlm_in.get(), P16 + L.mlm_w, WeightLayout::KernelInOut, nullptr, s.mlm_x.get(), M, H, H, false,
                   nullptr, st);
    mark(Op::BiasActFwd);
    bias_act_forward(s.mlm_x.get(), P + L.mlm_b, s.mlm_act.get(), M, H, Activation::Gelu, st);
    mark(Op::LayerNormFwd);
    plain_layernorm_forward(s.mlm_act.get(), P + L.mlm_ln_g, P + L.mlm_ln_b, s.mlm_t.get(), s.mlm_mean.get(),
                            s.mlm_rstd.get(), M, H, st);
    mark(Op::MlmHeadFwd);
    s.gemm.forward(s.mlm_t.get(), P16 + L.word_emb, WeightLayout::OutIn, P16 + L.mlm_out_bias, s.logits.get(), M, H,
                   c.vocab_size, false, nullptr, st, s.vpad);
    mark(Op::CrossEntropyFwd);
    cross_entropy(CrossEntropyArgs{s.logits.get(), s.mlm_label.get(), M, c.vocab_size, s.vpad, 0.f, nullptr,
                                   s.mlm_loss.get(), s.mlm_correct.get()},
                  st);
  }
  if (S > 0) {
    mark(Op::GatherFwd);
    gather_rows(x, s.first.get(), s.cls_in.get(), S, H, st);
    mark(Op::NspHeadFwd);
    s.gemm.forward(s.cls_in.get(), P16 + L.pool_w, WeightLayout::KernelInOut, nullptr, s.pool_x.get(), S, H, H, false,
                   nullptr, st);
    mark(Op::BiasActFwd);
    bias_act_forward(s.pool_x.get(), P + L.pool_b, s.pooled.get(), S, H, Activation::Tanh, st);
    mark(Op::NspHeadFwd);
    s.gemm.forward(s.pooled.get(), P16 + L.nsp_w, WeightLayout::OutIn, P16 + L.nsp_b, s.nsp_logits.get(), S, H, 2,
                   false, nullptr, st, kNspLd);
    mark(Op::CrossEntropyFwd);
    cross_entropy(CrossEntropyArgs{s.nsp_logits.get(), s.nsp_label.get(), S, 2, kNspLd, 0.f, nullptr,
                                   s.nsp_loss.get(), s.nsp_correct.get()},
                  st);
  }
  s.have_forward = true;
}

void CudaModel::backward(float grad_scale, const GradsReady& on_ready, OpTimer* timer) {
  State& s = *st_;
  if (!s.have_forward) throw CudaError("CudaModel::backward without a forward of the loaded batch");
  const auto& c = s.c;
  const auto& L = s.L;
  const float* P = s.w.get();
  const bf16* P16 = s.w16.get();
  float* G = s.g.get();
  float* bsc = s.bias_scratch.get();
  const int T = s.T, H = c.hidden, I = c.intermediate, S = s.S, M = s.M, V = c.vocab_size;
  cudaStream_t st = s.stream;
  const float ph = c.hidden_dropout, pa = c.attention_dropout;
  auto mark = [&](Op op) { mark_op(timer, op, st); };
  if (s.fp8) s.fp8->set_timer(timer);

  mark(Op::Copies);
  BERT_CUDA_CHECK(cudaMemsetAsync(s.dH.get(), 0, sz(T, H) * sizeof(bf16), st));
  const bool stat = s.lim.static_shapes;
  if (stat) {
    mark(Op::CrossEntropyBwd);
    inverse_valid_count(s.mlm_label.get(), M, s.mlm_scale.get(), st);
    inverse_valid_count(s.nsp_label.get(), S, s.nsp_scale.get(), st);
  }
  if (M > 0) {  // MLM head; dlogits overwrite the logits
    mark(Op::CrossEntropyBwd);
    cross_entropy(CrossEntropyArgs{s.logits.get(), s.mlm_label.get(), M, V, s.vpad,
                                   stat ? grad_scale : grad_scale / static_cast<float>(M), s.logits.get(),
                                   s.mlm_loss.get(), s.mlm_correct.get(), stat ? s.mlm_scale.get() : nullptr},
                  st);
    mark(Op::MlmHeadBwd);
    s.gemm.dense_backward({.x = s.mlm_t.get(), .dy = s.logits.get(), .w = P16 + L.word_emb,
                           .layout = WeightLayout::OutIn, .dx = s.dm_t.get(), .dw = G + L.word_emb,
                           .db = G + L.mlm_out_bias, .bias_scratch = bsc, .tokens = M, .in = H, .out = V,
                           .ld_dy = s.vpad},
                          st);
    mark(Op::LayerNormBwd);
    plain_layernorm_backward(s.dm_t.get(), s.mlm_act.get(), P + L.mlm_ln_g, s.mlm_mean.get(), s.mlm_rstd.get(),
                             s.dm_act.get(), G + L.mlm_ln_g, G + L.mlm_ln_b, s.ln_scratch.get(), M, H, st);
    mark(Op::BiasActBwd);
    bias_act_backward(s.dm_act.get(), s.mlm_x.get(), P + L.mlm_b, s.dm_pre.get(), G + L.mlm_b, s.ba_scratch.get(), M,
                      H, Activation::Gelu, st);
    mark(Op::MlmHeadBwd);
    s.gemm.dense_backward({.x = s.mlm_in.get(), .dy = s.dm_pre.get(), .w = P16 + L.mlm_w, .dx = s.dm_in.get(),
                           .dw = G + L.mlm_w, .tokens = M, .in = H, .out = H},
                          st);
    mark(Op::ScatterBwd);
    scatter_add_rows(s.dm_in.get(), s.mlm_idx.get(), s.dH.get(), M, H, st);
  }
  if (S > 0) {  // NSP head + pooler
    mark(Op::CrossEntropyBwd);
    cross_entropy(CrossEntropyArgs{s.nsp_logits.get(), s.nsp_label.get(), S, 2, kNspLd,
                                   stat ? grad_scale : grad_scale / static_cast<float>(S), s.nsp_logits.get(),
                                   s.nsp_loss.get(), s.nsp_correct.get(), stat ? s.nsp_scale.get() : nullptr},
                  st);
    mark(Op::NspHeadBwd);
    s.gemm.dense_backward({.x = s.pooled.get(), .dy = s.nsp_logits.get(), .w = P16 + L.nsp_w,
                           .layout = WeightLayout::OutIn, .dx = s.dpooled.get(), .dw = G + L.nsp_w, .db = G + L.nsp_b,
                           .bias_scratch = bsc, .tokens = S, .in = H, .out = 2, .ld_dy = kNspLd},
                          st);
    mark(Op::BiasActBwd);
    bias_act_backward(s.dpooled.get(), s.pool_x.get(), P + L.pool_b, s.dpool_pre.get(), G + L.pool_b,
                      s.ba_scratch.get(), S, H, Activation::Tanh, st);
    mark(Op::NspHeadBwd);
    s.gemm.dense_backward({.x = s.cls_in.get(), .dy = s.dpool_pre.get(), .w = P16 + L.pool_w, .dx = s.dcls.get(),
                           .dw = G + L.pool_w, .tokens = S, .in = H, .out = H},
                          st);
    mark(Op::ScatterBwd);
    scatter_add_rows(s.dcls.get(), s.first.get(), s.dH.get(), S, H, st);
  }
  auto ready = [&](size_t begin, size_t end) {
    if (on_ready && end > begin) on_ready(begin, end - begin);
  };
  ready(L.pool_w, L.total);  // pooler and heads (the tied decoder's gradient lands in word_emb, later)

  for (int l = c.layers - 1; l >= 0; --l) {
    const auto& o = L.layer[static_cast<size_t>(l)];
    LayerActs& a = s.layers[static_cast<size_t>(l)];
    const bf16* x = l == 0 ? s.x0.get() : s.layers[static_cast<size_t>(l - 1)].h2.get();
    // LN2 <- residual h1 + dropout(FFN out)
    LayerNormBackwardArgs l2;
    l2.dy = s.dH.get();
    l2.x = a.fo.get();
    l2.residual = a.h1.get();
    l2.dropout = s.spec(l, 2, ph);
    l2.keep = s.ln_keep(a.ln_keep2);
    l2.gamma = P + o.o_ln_g;
    l2.mean = a.mean2.get();
    l2.rstd = a.rstd2.get();
    l2.dz = s.dh1.get();
    l2.dx = s.dfo.get();
    l2.dgamma = G + o.o_ln_g;
    l2.dbeta = G + o.o_ln_b;
    l2.scratch = s.ln_scratch.get();
    l2.rows = T;
    l2.hidden = H;
    mark(Op::LayerNormBwd);
    layernorm_backward(l2, st);
    // FFN: output dense (GELU backward fused into its data gradient), intermediate dense
    mark(Op::FfnOutBwd);
    if (s.fp8)  // dpre serves as the bf16 gradient of the GELU output
      s.fp8->ffn_out_backward(l, s.dfo.get(), s.dpre.get(), G, T, st);
    else
      s.gemm.dense_backward({.x = a.act.get(), .dy = s.dfo.get(), .w = P16 + o.o_w, .dx = s.dpre.get(),
                             .dw = G + o.o_w, .db = G + o.o_b, .bias_scratch = bsc, .tokens = T, .in = I, .out = H,
                             .gelu_aux = a.pre.get()},
                            st);
    mark(Op::FfnInBwd);
    if (s.fp8)
      s.fp8->ffn_in_backward(l, s.dpre.get(), a.pre.get(), s.dh1.get(), G, T, st);
    else
      s.gemm.dense_backward({.x = a.h1.get(), .dy = s.dpre.get(), .w = P16 + o.i_w, .dx = s.dh1.get(),
                             .dw = G + o.i_w, .db = G + o.i_b, .bias_scratch = bsc, .tokens = T, .in = H, .out = I,
                             .dx_beta = 1.f},
                            st);
    // LN1 <- residual x + dropout(attention output dense)
    LayerNormBackwardArgs l1 = l2;
    l1.dy = s.dh1.get();
    l1.x = a.ao.get();
    l1.residual = x;
    l1.dropout = s.spec(l, 1, ph);
    l1.keep = s.ln_keep(a.ln_keep1);
    l1.gamma = P + o.ao_ln_g;
    l1.mean = a.mean1.get();
    l1.rstd = a.rstd1.get();
    l1.dz = s.dX.get();
    l1.dx = s.dao.get();
    l1.dgamma = G + o.ao_ln_g;
    l1.dbeta = G + o.ao_ln_b;
    mark(Op::LayerNormBwd);
    layernorm_backward(l1, st);
    mark(Op::AttnOutBwd);
    if (s.fp8)
      s.fp8->attn_out_backward(l, s.dao.get(), s.dctx.get(), G, T, st);
    else
      s.gemm.dense_backward({.x = a.ctx.get(), .dy = s.dao.get(), .w = P16 + o.ao_w, .dx = s.dctx.get(),
                             .dw = G + o.ao_w, .db = G + o.ao_b, .bias_scratch = bsc, .tokens = T, .in = H, .out = H},
                            st);
    mark(Op::AttentionBwd);
    attention_backward(AttentionBackwardArgs{s.attn_shape(), a.qkv.get(), a.ctx.get(), s.dctx.get(), a.lse.get(),
                                             s.first.get(), s.lens.get(), s.spec(l, 0, pa), s.dqkv.get(),
                                             s.attn_scratch.get(), s.keep_bits(a)},
                       st);
    // Q, K, V (the forward's batch): data gradients summed into the residual gradient
    mark(Op::QkvBwd);
    if (s.fp8)
      s.fp8->qkv_backward(l, s.dqkv.get(), s.dX.get(), G, T, st);
    else
      s.gemm.dense_backward({.x = x, .dy = s.dqkv.get(), .w = P16 + o.q_w, .dx = s.dX.get(), .dw = G + o.q_w,
                             .db = G + o.q_b, .bias_scratch = bsc, .tokens = T, .in = H, .out = H, .dx_beta = 1.f,
                             .ld_dy = 3 * H, .batch = s.qkv_batch(o)},
                            st);
    std::swap(s.dH, s.dX);
    ready(o.q_w, static_cast<size_t>(l) + 1 < L.layer.size() ? L.layer[static_cast<size_t>(l) + 1].q_w : L.pool_w);
  }

  // embeddings: dropout, LayerNorm, table scatter-add (dfo/dao serve as scratch)
  mark(Op::DropoutBwd);
  dropout_apply(s.dH.get(), s.dfo.get(), sz(T, H), s.spec(-1, 0, ph), st);
  mark(Op::LayerNormBwd);
  plain_layernorm_backward(s.dfo.get(), s.emb_sum.get(), P + L.emb_ln_g, s.emb_mean.get(), s.emb_rstd.get(),
                           s.dao.get(), G + L.emb_ln_g, G + L.emb_ln_b, s.ln_scratch.get(), T, H, st);
  mark(Op::EmbeddingBwd);
  embedding_backward(s.emb_inputs(), s.dao.get(), {G + L.word_emb, G + L.pos_emb, G + L.type_emb}, H, st);
  ready(0, L.layer.empty() ? L.pool_w : L.layer.front().q_w);
}

namespace {

// Sum of the per-row losses and correct flags of `n` rows (device arrays).
std::pair<double, int64_t> sum_rows(const Buf<float>& loss, const Buf<int32_t>& correct, int n) {
  std::vector<float> l(static_cast<size_t>(n));
  std::vector<int32_t> c(static_cast<size_t>(n));
  BERT_CUDA_CHECK(cudaMemcpy(l.data(), loss.get(), l.size() * sizeof(float), cudaMemcpyDeviceToHost));
  BERT_CUDA_CHECK(cudaMemcpy(c.data(), correct.get(), c.size() * sizeof(int32_t), cudaMemcpyDeviceToHost));
  double sum = 0;
  int64_t ok = 0;
  for (int i = 0; i < n; ++i) {
    sum += l[static_cast<size_t>(i)];
    ok += c[static_cast<size_t>(i)];
  }
  return {sum, ok};
}

}  // namespace

model::StepStats CudaModel::stats() {
  State& s = *st_;
  BERT_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  model::StepStats r;
  r.masked = s.M_real;
  r.sequences = s.S_real;
  if (s.M > 0) {
    const auto [sum, ok] = sum_rows(s.mlm_loss, s.mlm_correct, s.M);  // padded rows hold 0
    r.mlm_loss = s.M_real > 0 ? sum / s.M_real : 0.0;
    r.mlm_correct = ok;
  }
  if (s.S > 0) {
    const auto [sum, ok] = sum_rows(s.nsp_loss, s.nsp_correct, s.S);
    r.nsp_loss = s.S_real > 0 ? sum / s.S_real : 0.0;
    r.nsp_correct = ok;
  }
  r.loss = r.mlm_loss + r.nsp_loss;
  return r;
}

}  // namespace bert::cuda
