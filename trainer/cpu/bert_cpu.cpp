#include "trainer/cpu/bert_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "trainer/cpu/attention.h"
#include "trainer/cpu/bf16_copy.h"
#include "trainer/cpu/cross_entropy.h"
#include "trainer/cpu/dropout.h"
#include "trainer/cpu/embedding.h"
#include "trainer/cpu/gelu.h"
#include "trainer/cpu/gemm.h"
#include "trainer/cpu/layernorm.h"
#include "trainer/cpu/linear.h"

namespace bert::cpu {

using Vec = std::vector<float>;
using Keep = std::vector<uint8_t>;

namespace {

template <class V>
void fit(V& v, size_t n) {
  if (v.size() < n) v.resize(n);
}

// An activation only GEMMs and GELU read: fp32, or in bf16 runs bf16 only, written so by its producer
// (a dense layer, attention, GELU) and read as it is (the other buffer stays empty).
struct Act {
  Vec f32;
  std::vector<uint16_t> b16;
  void fit(bool bf16, size_t n) { bf16 ? bert::cpu::fit(b16, n) : bert::cpu::fit(f32, n); }
  Operand in(bool bf16) const { return bf16 ? Operand(b16.data()) : Operand(f32.data()); }
  Output out(bool bf16) { return bf16 ? Output(b16.data()) : Output(f32.data()); }
};

struct LayerActs {
  Act q, k, v, ctx, inter, act;
  Vec probs, dropped, res1, mean1, rstd1, h1, res2, mean2, rstd2, h2;
  Keep pkeep, akeep, okeep;
  std::vector<uint16_t> dropped16;  // bf16 runs: the dropped probabilities as the GEMMs read them
  AttentionDropped kept_dropped(bool bf16) { return {bf16 ? nullptr : dropped.data(), bf16 ? dropped16.data() : nullptr}; }
};

// dst[rows[i]] += src[i] for each of n rows of width h (the heads' gradients back into the tokens).
void scatter_add_rows(const float* src, const int32_t* rows, int n, int h, float* dst) {
  for (int i = 0; i < n; ++i) {
    float* d = dst + static_cast<size_t>(rows[i]) * h;
    const float* g = src + static_cast<size_t>(i) * h;
    for (int j = 0; j < h; ++j) d[j] += g[j];
  }
}

}  // namespace

struct BertCpu::State {
  // compact token layout
  int T = 0, S = 0, M = 0, seq_len = 0;
  std::vector<int32_t> ids, pos, tok_flat, start, first_flat, mlm_row, mlm_label, nsp_label;
  std::vector<int8_t> seg;
  std::vector<int64_t> prob_off;
  // The last layer's query rows: only the rows the heads read (each sequence's first token and its
  // masked tokens), sorted; per sequence [head_start[s], head_start[s+1]). Its output row of mlm_row[m]
  // is mlm_src[m], of sequence s's first token cls_src[s]. With head_rows_only off: every row.
  bool head_rows_only = true;
  int NQ = 0;
  std::vector<int32_t> head_row, head_start, head_pos, head_tok_flat, mlm_src, cls_src;
  std::vector<int64_t> head_prob_off;
  bool dropout = false;
  model::DropoutContext dctx;
  // activations
  Vec emb, emb_mean, emb_rstd, emb_ln, x0;
  Keep emb_keep;
  std::vector<LayerActs> layers;
  Vec mlm_in, mlm_pre, mlm_act, mlm_mean, mlm_rstd, mlm_t, logits;
  Vec cls_in, pooled, nsp_logits;
  // backward scratch
  Vec dx, dtmp, dtmp2, dq, dk, dv, dctx_buf, dact, dxq, x_heads;
  Act dinter;  // bf16 runs: GELU's backward writes the intermediate dense's dy in bf16
  Vec mlm_dt, mlm_dact, mlm_dpre, mlm_din;
  Bf16Copy x16;  // bf16 runs: an operand several GEMMs read in a row, rounded once (ScopedBf16)
  // bf16 runs: the fp32 activations GEMMs read, rounded once in forward and kept, registered, for the
  // forward's products and backward's dW products (the layer input, its query rows in the last layer,
  // h1). Released when the layer's backward is done, or at the next forward.
  enum Kept { kX, kXq, kH1, kKept };
  std::unique_ptr<Bf16Copy[]> kept;
  Bf16Copy& kept16(int layer, Kept which) { return kept[static_cast<size_t>(layer) * kKept + which]; }
  void release_kept(int layer) {
    for (int k = 0; k < kKept; ++k) kept16(layer, static_cast<Kept>(k)).release();
  }
};

BertCpu::BertCpu(const model::ParamLayout& layout, MatmulPrecision precision)
    : layout_(layout), precision_(precision), st_(new State) {
  st_->layers.resize(static_cast<size_t>(layout.config.layers));
  st_->kept.reset(new Bf16Copy[static_cast<size_t>(layout.config.layers) * State::kKept]);
}
BertCpu::~BertCpu() { delete st_; }

void BertCpu::set_last_layer_head_rows_only(bool on) { st_->head_rows_only = on; }

const std::vector<float>& BertCpu::mlm_logits() const { return st_->logits; }
const std::vector<float>& BertCpu::nsp_logits() const { return st_->nsp_logits; }

namespace {

void prepare_tokens(const data::Batch& b, const model::BertConfig& c, auto& st) {
  const int n_flat = b.rows * b.seq_len;
  auto bad = [](const std::string& m) { throw model::BatchError("batch: " + m); };
  if (static_cast<int>(b.seq_first_token.size()) != b.num_sequences ||
      static_cast<int>(b.seq_lengths.size()) != b.num_sequences ||
      static_cast<int>(b.nsp_labels.size()) != b.num_sequences)
    bad("sequence arrays do not match num_sequences");
  if (static_cast<int>(b.input_ids.size()) != n_flat || static_cast<int>(b.segment_ids.size()) != n_flat)
    bad("token arrays do not match rows*seq_len");
  if (b.seq_len > c.max_position)
    bad("seq_len " + std::to_string(b.seq_len) + " exceeds max_position_embeddings " + std::to_string(c.max_position));
  st.seq_len = b.seq_len;
  st.S = b.num_sequences;
  st.ids.clear(), st.pos.clear(), st.seg.clear(), st.tok_flat.clear(), st.start.clear(), st.first_flat.clear();
  std::vector<int32_t> flat_to_compact(static_cast<size_t>(n_flat), -1);
  for (int s = 0; s < st.S; ++s) {
    const int f = b.seq_first_token[s], len = b.seq_lengths[s];
    if (len <= 0 || f < 0 || f + len > n_flat) bad("sequence " + std::to_string(s) + " out of range");
    st.start.push_back(static_cast<int32_t>(st.ids.size()));
    st.first_flat.push_back(f);
    for (int i = 0; i < len; ++i) {
      const int fl = f + i;
      const int id = b.input_ids[fl];
      const int p = b.position_ids.empty() ? i : b.position_ids[fl];
      const int sg = b.segment_ids[fl];
      if (id < 0 || id >= c.vocab_size)
        bad("token id " + std::to_string(id) + " outside the vocabulary (" + std::to_string(c.vocab_size) + ")");
      if (p < 0 || p >= c.max_position) bad("position " + std::to_string(p) + " out of range");
      if (sg < 0 || sg >= c.type_vocab) bad("segment id " + std::to_string(sg) + " out of range");
      flat_to_compact[fl] = static_cast<int32_t>(st.ids.size());
      st.ids.push_back(id);
      st.pos.push_back(p);
      st.seg.push_back(static_cast<int8_t>(sg));
      st.tok_flat.push_back(fl);
    }
  }
  st.T = static_cast<int>(st.ids.size());
  st.start.push_back(st.T);
  st.nsp_label.assign(b.nsp_labels.begin(), b.nsp_labels.end());
  for (int l : st.nsp_label)
    if (l != 0 && l != 1) bad("next_sentence_label must be 0 or 1");
  st.M = b.num_masked();
  st.mlm_row.resize(static_cast<size_t>(st.M));
  st.mlm_label.resize(static_cast<size_t>(st.M));
  for (int m = 0; m < st.M; ++m) {
    const int fl = b.mlm_token_index[m];
    if (fl < 0 || fl >= n_flat || flat_to_compact[fl] < 0) bad("masked position outside the real tokens");
    st.mlm_row[m] = flat_to_compact[fl];
    const int lab = b.mlm_label_ids[m];
    if (lab < 0 || lab >= c.vocab_size) bad("masked label " + std::to_string(lab) + " outside the vocabulary");
    st.mlm_label[m] = lab;
  }
  st.prob_off = attention_prob_offsets(st.start.data(), st.S, c.heads);
}

// The last layer's query rows (State::head_row): the heads read the last layer's output only there.
void prepare_head_rows(auto& st, int heads) {
  std::vector<int32_t> at(static_cast<size_t>(st.T), -1);
  for (int s = 0; s < st.S; ++s) at[st.start[s]] = 0;
  for (int r : st.mlm_row) at[r] = 0;
  st.head_row.clear(), st.head_start.clear(), st.head_pos.clear(), st.head_tok_flat.clear();
  for (int s = 0; s < st.S; ++s) {
    st.head_start.push_back(static_cast<int32_t>(st.head_row.size()));
    for (int r = st.start[s]; r < st.start[s + 1]; ++r)
      if (!st.head_rows_only || at[r] == 0) {
        at[r] = static_cast<int32_t>(st.head_row.size());
        st.head_row.push_back(r);
        st.head_pos.push_back(r - st.start[s]);
        st.head_tok_flat.push_back(st.tok_flat[r]);
      }
  }
  st.NQ = static_cast<int>(st.head_row.size());
  st.head_start.push_back(st.NQ);
  st.mlm_src.resize(st.mlm_row.size()), st.cls_src.resize(static_cast<size_t>(st.S));
  for (size_t m = 0; m < st.mlm_row.size(); ++m) st.mlm_src[m] = at[st.mlm_row[m]];
  for (int s = 0; s < st.S; ++s) st.cls_src[s] = at[st.start[s]];
  st.head_prob_off = attention_prob_offsets(st.start.data(), st.S, heads, st.head_start.data());
}

// A layer's attention: every row a query, or in the last layer the heads' rows only.
AttentionShape attention_shape(const auto& st, const model::BertConfig& c, bool last) {
  return AttentionShape{c.heads,
                        c.head_dim(),
                        st.seq_len,
                        st.start.data(),
                        st.first_flat.data(),
                        st.S,
                        last ? st.head_prob_off.data() : st.prob_off.data(),
                        last ? st.head_start.data() : nullptr,
                        last ? st.head_pos.data() : nullptr};
}

}  // namespace

model::StepStats BertCpu::forward(const data::Batch& b, const float* P, const model::DropoutContext& d) {
  const model::BertConfig& c = layout_.config;
  State& st = *st_;
  prepare_tokens(b, c, st);
  prepare_head_rows(st, c.heads);
  for (int l = 0; l < c.layers; ++l) st.release_kept(l);  // before any buffer they cover moves (fit)
  const bool bf16 = precision_ == MatmulPrecision::bf16;
  const int T = st.T, H = c.hidden, I = c.intermediate, S = st.S, M = st.M;
  const size_t TH = static_cast<size_t>(T) * H;
  st.dropout = d.enabled;
  st.dctx = d;
  const float ph = d.enabled ? c.hidden_dropout : 0.0f, pa = d.enabled ? c.attention_dropout : 0.0f;
  auto stream = [&](int layer, int site) {
    return model::DropoutStream{d.seed, d.rank, d.micro_step, model::dropout_stream_id(layer, site)};
  };

  fit(st.emb, TH), fit(st.emb_ln, TH), fit(st.x0, TH), fit(st.emb_keep, TH);
  fit(st.emb_mean, T), fit(st.emb_rstd, T);
  embedding_forward(st.ids.data(), st.pos.data(), st.seg.data(), P + layout_.word_emb, P + layout_.pos_emb,
                    P + layout_.type_emb, st.emb.data(), T, H);
  layernorm_forward(st.emb.data(), P + layout_.emb_ln_g, P + layout_.emb_ln_b, st.emb_ln.data(), st.emb_mean.data(),
                    st.emb_rstd.data(), T, H);
  dropout_forward(st.emb_ln.data(), st.x0.data(), st.emb_keep.data(), st.tok_flat.data(), T, H, stream(-1, 0), ph);

  const float* x = st.x0.data();
  for (int l = 0; l < c.layers; ++l) {
    const model::LayerOffsets& o = layout_.layer[l];
    LayerActs& a = st.layers[l];
    // Every row is a query, but in the last layer only the rows the heads read (xq: those rows of x).
    const bool last = l == c.layers - 1;
    const int n = last ? st.NQ : T;
    const size_t nH = static_cast<size_t>(n) * H, nI = static_cast<size_t>(n) * I;
    const int32_t* tok_flat = last ? st.head_tok_flat.data() : st.tok_flat.data();
    const AttentionShape ash = attention_shape(st, c, last);
    const int64_t* prob_off = ash.prob_offset;
    a.k.fit(bf16, TH), a.v.fit(bf16, TH), a.q.fit(bf16, nH), a.ctx.fit(bf16, nH);
    for (Vec* v : {&a.res1, &a.h1, &a.res2, &a.h2}) fit(*v, nH);
    for (Vec* v : {&a.mean1, &a.rstd1, &a.mean2, &a.rstd2}) fit(*v, n);
    a.inter.fit(bf16, nI), a.act.fit(bf16, nI);
    fit(a.akeep, nH), fit(a.okeep, nH);
    fit(a.probs, prob_off[S]), fit(a.pkeep, prob_off[S]);
    bf16 ? fit(a.dropped16, prob_off[S]) : fit(a.dropped, prob_off[S]);
    fit(st.dtmp, TH);
    const float* xq = x;
    if (last) {
      fit(st.x_heads, nH);
      for (int i = 0; i < n; ++i)
        std::memcpy(st.x_heads.data() + static_cast<size_t>(i) * H, x + static_cast<size_t>(st.head_row[i]) * H,
                    sizeof(float) * H);
      xq = st.x_heads.data();
    }

    if (bf16) st.kept16(l, State::kX).refresh(x, TH);
    if (bf16 && last) st.kept16(l, State::kXq).refresh(xq, nH);
    linear_forward(xq, P + o.q_w, P + o.q_b, a.q.out(bf16), n, H, H, precision_);
    linear_forward(x, P + o.k_w, P + o.k_b, a.k.out(bf16), T, H, H, precision_);
    linear_forward(x, P + o.v_w, P + o.v_b, a.v.out(bf16), T, H, H, precision_);
    attention_forward(ash, a.q.in(bf16), a.k.in(bf16), a.v.in(bf16), a.probs.data(), a.pkeep.data(), a.ctx.out(bf16),
                      stream(l, 0), pa, precision_, a.kept_dropped(bf16));
    linear_forward(a.ctx.in(bf16), P + o.ao_w, P + o.ao_b, st.dtmp.data(), n, H, H, precision_);
    dropout_forward(st.dtmp.data(), a.res1.data(), a.akeep.data(), tok_flat, n, H, stream(l, 1), ph);
    for (size_t i = 0; i < nH; ++i) a.res1[i] += xq[i];
    layernorm_forward(a.res1.data(), P + o.ao_ln_g, P + o.ao_ln_b, a.h1.data(), a.mean1.data(), a.rstd1.data(), n, H);
    if (bf16) st.kept16(l, State::kH1).refresh(a.h1.data(), nH);
    linear_forward(a.h1.data(), P + o.i_w, P + o.i_b, a.inter.out(bf16), n, H, I, precision_);
    bf16 ? gelu_forward(a.inter.b16.data(), a.act.b16.data(), nI)
         : gelu_forward(a.inter.f32.data(), a.act.f32.data(), nI);
    linear_forward(a.act.in(bf16), P + o.o_w, P + o.o_b, st.dtmp.data(), n, I, H, precision_);
    dropout_forward(st.dtmp.data(), a.res2.data(), a.okeep.data(), tok_flat, n, H, stream(l, 2), ph);
    for (size_t i = 0; i < nH; ++i) a.res2[i] += a.h1[i];
    layernorm_forward(a.res2.data(), P + o.o_ln_g, P + o.o_ln_b, a.h2.data(), a.mean2.data(), a.rstd2.data(), n, H);
    x = a.h2.data();  // the last layer's: st.NQ rows
  }

  model::StepStats stats;
  stats.sequences = S;
  stats.masked = M;
  // MLM head on the masked rows.
  const int V = c.vocab_size;
  const size_t MH = static_cast<size_t>(M) * H;
  for (Vec* v : {&st.mlm_in, &st.mlm_pre, &st.mlm_act, &st.mlm_t}) fit(*v, MH);
  fit(st.mlm_mean, M), fit(st.mlm_rstd, M);
  st.logits.resize(static_cast<size_t>(M) * V);
  for (int m = 0; m < M; ++m)
    std::memcpy(st.mlm_in.data() + static_cast<size_t>(m) * H, x + static_cast<size_t>(st.mlm_src[m]) * H,
                sizeof(float) * H);
  linear_forward(st.mlm_in.data(), P + layout_.mlm_w, P + layout_.mlm_b, st.mlm_pre.data(), M, H, H, precision_);
  gelu_forward(st.mlm_pre.data(), st.mlm_act.data(), MH);
  layernorm_forward(st.mlm_act.data(), P + layout_.mlm_ln_g, P + layout_.mlm_ln_b, st.mlm_t.data(),
                    st.mlm_mean.data(), st.mlm_rstd.data(), M, H);
  for (int m = 0; m < M; ++m)
    std::memcpy(st.logits.data() + static_cast<size_t>(m) * V, P + layout_.mlm_out_bias, sizeof(float) * V);
  gemm(false, true, M, V, H, 1.0f, st.mlm_t.data(), H, P + layout_.word_emb, H, 1.0f, st.logits.data(), V, precision_);
  const CrossEntropyResult mlm = cross_entropy(st.logits.data(), st.mlm_label.data(), M, V, 0.0f, nullptr);
  stats.mlm_loss = M > 0 ? mlm.loss_sum / M : 0.0;
  stats.mlm_correct = mlm.correct;

  // Pooler + NSP on each sequence's first token.
  fit(st.cls_in, static_cast<size_t>(S) * H), fit(st.pooled, static_cast<size_t>(S) * H);
  st.nsp_logits.resize(static_cast<size_t>(S) * 2);
  for (int s = 0; s < S; ++s)
    std::memcpy(st.cls_in.data() + static_cast<size_t>(s) * H, x + static_cast<size_t>(st.cls_src[s]) * H,
                sizeof(float) * H);
  linear_forward(st.cls_in.data(), P + layout_.pool_w, P + layout_.pool_b, st.pooled.data(), S, H, H, precision_);
  for (size_t i = 0; i < static_cast<size_t>(S) * H; ++i) st.pooled[i] = std::tanh(st.pooled[i]);
  for (int s = 0; s < S; ++s) {
    st.nsp_logits[2 * s] = P[layout_.nsp_b];
    st.nsp_logits[2 * s + 1] = P[layout_.nsp_b + 1];
  }
  gemm(false, true, S, 2, H, 1.0f, st.pooled.data(), H, P + layout_.nsp_w, H, 1.0f, st.nsp_logits.data(), 2,
       precision_);
  const CrossEntropyResult nsp = cross_entropy(st.nsp_logits.data(), st.nsp_label.data(), S, 2, 0.0f, nullptr);
  stats.nsp_loss = S > 0 ? nsp.loss_sum / S : 0.0;
  stats.nsp_correct = nsp.correct;
  stats.loss = stats.mlm_loss + stats.nsp_loss;
  return stats;
}

void BertCpu::backward(const float* P, float* G, float grad_scale, Grads mode) {
  const model::BertConfig& c = layout_.config;
  State& st = *st_;
  const int T = st.T, H = c.hidden, I = c.intermediate, S = st.S, M = st.M, V = c.vocab_size;
  const size_t TH = static_cast<size_t>(T) * H, TI = static_cast<size_t>(T) * I;
  const float ph = st.dropout ? c.hidden_dropout : 0.0f, pa = st.dropout ? c.attention_dropout : 0.0f;
  for (Vec* v : {&st.dx, &st.dtmp, &st.dtmp2, &st.dq, &st.dk, &st.dv, &st.dctx_buf, &st.dxq}) fit(*v, TH);
  const bool bf16 = precision_ == MatmulPrecision::bf16;
  st.dinter.fit(bf16, TI), fit(st.dact, TI);
  // The heads' gradient lands on the last layer's output: st.NQ rows.
  std::fill(st.dx.begin(), st.dx.begin() + static_cast<std::ptrdiff_t>(st.NQ) * H, 0.0f);
  const size_t MH = static_cast<size_t>(M) * H;
  // acc: add into G, else the first write of each tensor sets it (beta 0).
  bool acc = mode == Grads::add;
  if (!acc && (M == 0 || S == 0)) {  // a head with no rows writes nothing: zero everything (rare)
    std::fill(G, G + layout_.total, 0.0f);
    acc = true;
  }
  if (!acc) {  // only scattered into, never set
    std::fill(G + layout_.pos_emb, G + layout_.pos_emb + static_cast<size_t>(c.max_position) * H, 0.0f);
    std::fill(G + layout_.type_emb, G + layout_.type_emb + static_cast<size_t>(c.type_vocab) * H, 0.0f);
  }
  const float beta = acc ? 1.0f : 0.0f;

  // MLM head.  (word_emb: the decoder's product sets it, the embeddings' scatter adds to it last)
  if (M > 0) {
    float* dlogits = st.logits.data();
    cross_entropy(st.logits.data(), st.mlm_label.data(), M, V, grad_scale / static_cast<float>(M), dlogits);
    for (Vec* v : {&st.mlm_dt, &st.mlm_dact, &st.mlm_dpre, &st.mlm_din}) fit(*v, MH);
    float *dt = st.mlm_dt.data(), *dact = st.mlm_dact.data(), *dpre = st.mlm_dpre.data(), *din = st.mlm_din.data();
    {
      // bf16: read by both products
      const ScopedBf16 round_once(st.x16, dlogits, static_cast<size_t>(M) * V, precision_);
      gemm(false, false, M, H, V, 1.0f, dlogits, V, P + layout_.word_emb, H, 0.0f, dt, H, precision_);
      gemm(true, false, V, H, M, 1.0f, dlogits, V, st.mlm_t.data(), H, beta, G + layout_.word_emb, H, precision_);
    }
    add_column_sums(dlogits, G + layout_.mlm_out_bias, M, V, acc);
    layernorm_backward(st.mlm_act.data(), P + layout_.mlm_ln_g, st.mlm_mean.data(), st.mlm_rstd.data(), dt, dact,
                       G + layout_.mlm_ln_g, G + layout_.mlm_ln_b, M, H, acc);
    gelu_backward(st.mlm_pre.data(), dact, dpre, MH);
    linear_backward(st.mlm_in.data(), P + layout_.mlm_w, dpre, din, G + layout_.mlm_w, G + layout_.mlm_b, M, H, H,
                    precision_, acc);
    scatter_add_rows(din, st.mlm_src.data(), M, H, st.dx.data());
  }
  // NSP head + pooler.
  if (S > 0) {
    Vec dlog(st.nsp_logits.begin(), st.nsp_logits.begin() + 2 * S);
    cross_entropy(dlog.data(), st.nsp_label.data(), S, 2, grad_scale / static_cast<float>(S), dlog.data());
    const size_t SH = static_cast<size_t>(S) * H;
    Vec dpool(SH), din(SH);
    gemm(true, false, 2, H, S, 1.0f, dlog.data(), 2, st.pooled.data(), H, beta, G + layout_.nsp_w, H, precision_);
    add_column_sums(dlog.data(), G + layout_.nsp_b, S, 2, acc);
    gemm(false, false, S, H, 2, 1.0f, dlog.data(), 2, P + layout_.nsp_w, H, 0.0f, dpool.data(), H, precision_);
    for (size_t i = 0; i < SH; ++i) dpool[i] *= 1.0f - st.pooled[i] * st.pooled[i];
    linear_backward(st.cls_in.data(), P + layout_.pool_w, dpool.data(), din.data(), G + layout_.pool_w,
                    G + layout_.pool_b, S, H, H, precision_, acc);
    scatter_add_rows(din.data(), st.cls_src.data(), S, H, st.dx.data());
  }

  float* dx = st.dx.data();  // gradient wrt the current layer's output
  for (int l = c.layers - 1; l >= 0; --l) {
    const model::LayerOffsets& o = layout_.layer[l];
    LayerActs& a = st.layers[l];
    const bool last = l == c.layers - 1;  // its query side is st.NQ rows (see forward)
    const int n = last ? st.NQ : T;
    const size_t nH = static_cast<size_t>(n) * H, nI = static_cast<size_t>(n) * I;
    const AttentionShape ash = attention_shape(st, c, last);
    const float* x = l == 0 ? st.x0.data() : st.layers[l - 1].h2.data();
    const float* xq = last ? st.x_heads.data() : x;
    float* dres = st.dtmp.data();
    float* dh1 = st.dtmp2.data();
    // LN2 → residual (h1) + dropout → output dense → GELU → intermediate dense
    layernorm_backward(a.res2.data(), P + o.o_ln_g, a.mean2.data(), a.rstd2.data(), dx, dres, G + o.o_ln_g,
                       G + o.o_ln_b, n, H, acc);
    std::memcpy(dh1, dres, sizeof(float) * nH);
    dropout_backward(dres, dres, a.okeep.data(), nH, ph);
    linear_backward(a.act.in(bf16), P + o.o_w, dres, st.dact.data(), G + o.o_w, G + o.o_b, n, I, H, precision_, acc);
    if (bf16)  // GELU's backward writes the bf16 dy and sums the intermediate dense's bias gradient
      gelu_backward(a.inter.b16.data(), st.dact.data(), st.dinter.b16.data(), G + o.i_b, n, I, acc);
    else
      gelu_backward(a.inter.f32.data(), st.dact.data(), st.dinter.f32.data(), nI);
    linear_backward(a.h1.data(), P + o.i_w, st.dinter.in(bf16), dx, G + o.i_w, bf16 ? nullptr : G + o.i_b, n, H, I,
                    precision_, acc);
    for (size_t i = 0; i < nH; ++i) dh1[i] += dx[i];
    // LN1 → residual (x) + dropout → attention output dense → attention → Q/K/V
    layernorm_backward(a.res1.data(), P + o.ao_ln_g, a.mean1.data(), a.rstd1.data(), dh1, dres, G + o.ao_ln_g,
                       G + o.ao_ln_b, n, H, acc);
    float* dxq = last ? st.dxq.data() : dx;  // the gradient wrt the query rows of the layer input
    std::memcpy(dxq, dres, sizeof(float) * nH);  // residual path into the layer input
    dropout_backward(dres, dres, a.akeep.data(), nH, ph);
    linear_backward(a.ctx.in(bf16), P + o.ao_w, dres, st.dctx_buf.data(), G + o.ao_w, G + o.ao_b, n, H, H, precision_,
                    acc);
    {
      // bf16: the attention output's gradient is read by two products per head (dV, and dP)
      const ScopedBf16 round_once(st.x16, st.dctx_buf.data(), nH, precision_);
      attention_backward(ash, a.q.in(bf16), a.k.in(bf16), a.v.in(bf16), a.probs.data(), a.pkeep.data(),
                         st.dctx_buf.data(), st.dq.data(), st.dk.data(), st.dv.data(), pa, precision_,
                         a.kept_dropped(bf16));
    }
    linear_backward(xq, P + o.q_w, st.dq.data(), dh1, G + o.q_w, G + o.q_b, n, H, H, precision_, acc);
    for (size_t i = 0; i < nH; ++i) dxq[i] += dh1[i];
    // K and V read every row: in the last layer dx becomes [T, H] here, and the query rows join it.
    linear_backward(x, P + o.k_w, st.dk.data(), last ? dx : dh1, G + o.k_w, G + o.k_b, T, H, H, precision_, acc);
    if (!last)
      for (size_t i = 0; i < TH; ++i) dx[i] += dh1[i];
    linear_backward(x, P + o.v_w, st.dv.data(), dh1, G + o.v_w, G + o.v_b, T, H, H, precision_, acc);
    for (size_t i = 0; i < TH; ++i) dx[i] += dh1[i];
    if (last) scatter_add_rows(dxq, st.head_row.data(), n, H, dx);
    st.release_kept(l);
  }
  // Embeddings.
  dropout_backward(dx, dx, st.emb_keep.data(), TH, ph);
  layernorm_backward(st.emb.data(), P + layout_.emb_ln_g, st.emb_mean.data(), st.emb_rstd.data(), dx,
                     st.dtmp.data(), G + layout_.emb_ln_g, G + layout_.emb_ln_b, T, H, acc);
  embedding_backward(st.ids.data(), st.pos.data(), st.seg.data(), st.dtmp.data(), G + layout_.word_emb,
                     G + layout_.pos_emb, G + layout_.type_emb, T, H);
}

model::StepStats BertCpu::evaluate(const data::Batch& batch, const float* params) {
  return forward(batch, params, model::DropoutContext{});
}

}  // namespace bert::cpu
