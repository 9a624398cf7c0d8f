#include "trainer/cpu/attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "trainer/cpu/bf16_round.h"
#include "trainer/cpu/dropout.h"
#include "trainer/cpu/gemm.h"
#include "trainer/cpu/gemm_bf16.h"
#include "trainer/cpu/omp_errors.h"
#include "trainer/cpu/vec_math.h"

namespace bert::cpu {

std::vector<int64_t> attention_prob_offsets(const int32_t* start, int num_seqs, int heads, const int32_t* q_start) {
  std::vector<int64_t> off(static_cast<size_t>(num_seqs) + 1, 0);
  for (int s = 0; s < num_seqs; ++s) {
    const int64_t len = start[s + 1] - start[s];
    const int64_t nq = q_start ? q_start[s + 1] - q_start[s] : len;
    off[s + 1] = off[s] + heads * nq * len;
  }
  return off;
}

namespace {

// One (sequence, head) block: its key rows and its query rows (all of the sequence's, or the subset).
struct Block {
  int sq, h, t0, len, q0, nq;
  int64_t prob;  // offset of its nq·len probabilities
  Block(const AttentionShape& s, int sh) : sq(sh / s.heads), h(sh % s.heads) {
    t0 = s.start[sq], len = s.start[sq + 1] - t0;
    q0 = s.q_start ? s.q_start[sq] : t0;
    nq = s.q_start ? s.q_start[sq + 1] - q0 : len;
    prob = s.prob_offset[sq] + static_cast<int64_t>(h) * nq * len;
  }
  int pos(const AttentionShape& s, int i) const { return s.q_pos ? s.q_pos[q0 + i] : i; }
};

// One row of probabilities after dropout: out = keep ? p·keep_scale : 0.
void dropped_row(const float* p, const uint8_t* keep, float keep_scale, float* out, int n) {
  apply_keep(p, keep, keep_scale, out, static_cast<size_t>(n));
}

// The same rounded to bf16, through a row of fp32 in L1 (one rounding for every bf16 operand: bf16_round.h).
void dropped_row_bf16(const float* p, const uint8_t* keep, float keep_scale, uint16_t* out, int n) {
  thread_local std::vector<float> row;
  row.resize(static_cast<size_t>(n));
  dropped_row(p, keep, keep_scale, row.data(), n);
  round_to_bf16(row.data(), out, static_cast<size_t>(n));
}

// One row through dropout and softmax, in place: g = dP_dropped in, dS out.
BERT_CPU_CLONES void softmax_dropout_backward_row(const float* pr, const uint8_t* kr, float keep_scale, float scale,
                                                  float* g, int n) {
  apply_keep(g, kr, keep_scale, g, static_cast<size_t>(n));
  float pdp = 0.0f;
#pragma omp simd reduction(+ : pdp)
  for (int j = 0; j < n; ++j) pdp += pr[j] * g[j];
#pragma omp simd
  for (int j = 0; j < n; ++j) g[j] = pr[j] * (g[j] - pdp) * scale;
}

// What both directions take from the shape and the call: the row stride (hidden), the head's width d, the
// scores' scale 1/sqrt(d), inverted dropout's 1/(1-p), and whether the products run in bf16.
struct CallConstants {
  int hidden, d;
  float scale, keep_scale;
  bool bf16;
};
CallConstants call_constants(const AttentionShape& s, float p, MatmulPrecision precision) {
  return {s.heads * s.head_dim, s.head_dim, 1.0f / std::sqrt(static_cast<float>(s.head_dim)), 1.0f / (1.0f - p),
          precision == MatmulPrecision::bf16};
}

}  // namespace

void attention_forward(const AttentionShape& s, Operand q, Operand k, Operand v, float* probs, uint8_t* keep,
                       Output ctx, const model::DropoutStream& rng, float p, MatmulPrecision precision,
                       AttentionDropped saved) {
  const auto [hidden, d, scale, keep_scale, bf16] = call_constants(s, p, precision);
  OmpErrors errors;
#pragma omp parallel
  {
    // when not kept: per thread, across calls (no fresh pages per layer)
    thread_local std::vector<float> scratch;
    thread_local std::vector<uint16_t> scratch16;
#pragma omp for schedule(dynamic)
    for (int sh = 0; sh < s.num_seqs * s.heads; ++sh) {
      errors.run([&] {
        const Block b(s, sh);
        const int h = b.h, len = b.len, nq = b.nq;
        float* pb = probs + b.prob;
        uint8_t* kb = keep + b.prob;
        const Operand qh = q + (static_cast<size_t>(b.q0) * hidden + h * d);
        const Operand kh = k + (static_cast<size_t>(b.t0) * hidden + h * d);
        const Operand vh = v + (static_cast<size_t>(b.t0) * hidden + h * d);
        gemm_on_thread(false, true, nq, len, d, scale, qh, hidden, kh, hidden, 0.0f, pb, len, precision);
        float* dropped = saved.f32 ? saved.f32 + b.prob : nullptr;
        uint16_t* dropped16 = saved.bf16 ? saved.bf16 + b.prob : nullptr;
        if (bf16 && !dropped16) scratch16.resize(static_cast<size_t>(nq) * len), dropped16 = scratch16.data();
        if (!bf16 && !dropped) scratch.resize(static_cast<size_t>(nq) * len), dropped = scratch.data();
        for (int i = 0; i < nq; ++i) {
          float* row = pb + static_cast<int64_t>(i) * len;
          softmax_row(row, len);
          uint8_t* krow = kb + static_cast<int64_t>(i) * len;
          const uint64_t elem0 = (static_cast<uint64_t>(s.first_flat[b.sq] + b.pos(s, i)) * s.heads + h) *
                                 static_cast<uint64_t>(s.seq_len);
          if (p > 0.0f)
            fill_keep_attention(rng, elem0, len, p, krow);
          else
            std::memset(krow, 1, static_cast<size_t>(len));
          if (bf16)
            dropped_row_bf16(row, krow, keep_scale, dropped16 + static_cast<size_t>(i) * len, len);
          else
            dropped_row(row, krow, keep_scale, dropped + static_cast<size_t>(i) * len, len);
        }
        const Output ch = ctx + (static_cast<size_t>(b.q0) * hidden + h * d);
        if (bf16)
          gemm_on_thread(false, false, nq, d, len, 1.0f, dropped16, len, vh, hidden, 0.0f, ch, hidden, precision);
        else
          gemm_on_thread(false, false, nq, d, len, 1.0f, dropped, len, vh, hidden, 0.0f, ch, hidden, precision);
      });
    }
  }
  errors.rethrow();
}

void attention_backward(const AttentionShape& s, Operand q, Operand k, Operand v, const float* probs,
                        const uint8_t* keep, const float* dctx, float* dq, float* dk, float* dv, float p,
                        MatmulPrecision precision, AttentionDropped saved) {
  const auto [hidden, d, scale, keep_scale, bf16] = call_constants(s, p, precision);
  OmpErrors errors;
#pragma omp parallel
  {
    // per thread, kept across calls (no fresh pages per layer)
    thread_local std::vector<float> scratch, ds;
    thread_local std::vector<uint16_t> scratch16, ds16;
#pragma omp for schedule(dynamic)
    for (int sh = 0; sh < s.num_seqs * s.heads; ++sh) {
      errors.run([&] {
        const Block b(s, sh);
        const int len = b.len, nq = b.nq;
        const size_t ll = static_cast<size_t>(nq) * len;
        const float* pb = probs + b.prob;
        const uint8_t* kb = keep + b.prob;
        const size_t at = static_cast<size_t>(b.t0) * hidden + b.h * d;  // key rows
        const size_t aq = static_cast<size_t>(b.q0) * hidden + b.h * d;  // query rows
        ds.resize(ll);
        // dV = P_droppedᵀ·dctx (P_dropped: the forward's, or again);  dP_dropped = dctx·Vᵀ
        const auto kept_or_again = [&](auto* kept, auto& scratch_of_type, auto row) {
          if (kept) return kept + b.prob;  // the forward's
          scratch_of_type.resize(ll);
          for (int i = 0; i < nq; ++i)
            row(pb + static_cast<size_t>(i) * len, kb + static_cast<size_t>(i) * len, keep_scale,
                scratch_of_type.data() + static_cast<size_t>(i) * len, len);
          return scratch_of_type.data();
        };
        if (bf16)
          gemm_on_thread(true, false, len, d, nq, 1.0f, kept_or_again(saved.bf16, scratch16, dropped_row_bf16), len,
                         dctx + aq, hidden, 0.0f, dv + at, hidden, precision);
        else
          gemm_on_thread(true, false, len, d, nq, 1.0f, kept_or_again(saved.f32, scratch, dropped_row), len, dctx + aq,
                         hidden, 0.0f, dv + at, hidden, precision);
        gemm_on_thread(false, true, nq, len, d, 1.0f, dctx + aq, hidden, v + at, hidden, 0.0f, ds.data(), len,
                       precision);
        // Through dropout and softmax: dS = P ⊙ (dP − Σ_j P·dP) · scale, dP = dP_dropped·keep·keep_scale.
        // bf16: each row of dS rounded once for both products below, while it is in L1.
        if (bf16) ds16.resize(ll);
        for (int i = 0; i < nq; ++i) {
          const size_t row = static_cast<size_t>(i) * len;
          softmax_dropout_backward_row(pb + row, kb + row, keep_scale, scale, ds.data() + row, len);
          if (bf16) round_to_bf16(ds.data() + row, ds16.data() + row, static_cast<size_t>(len));
        }
        // dQ = dS·K;  dK = dSᵀ·Q
        if (bf16) {
          gemm_on_thread(false, false, nq, d, len, 1.0f, ds16.data(), len, k + at, hidden, 0.0f, dq + aq, hidden,
                         precision);
          gemm_on_thread(true, false, len, d, nq, 1.0f, ds16.data(), len, q + aq, hidden, 0.0f, dk + at, hidden,
                         precision);
        } else {
          gemm_on_thread(false, false, nq, d, len, 1.0f, ds.data(), len, k + at, hidden, 0.0f, dq + aq, hidden,
                         precision);
          gemm_on_thread(true, false, len, d, nq, 1.0f, ds.data(), len, q + aq, hidden, 0.0f, dk + at, hidden,
                         precision);
        }
      });
    }
  }
  errors.rethrow();
}

}  // namespace bert::cpu
