#include "trainer/cpu/attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "trainer/cpu/dropout.h"
#include "trainer/cpu/gemm.h"
#include "trainer/cpu/vec_math.h"

namespace bert::cpu {

std::vector<int64_t> attention_prob_offsets(const int32_t* start, int num_seqs, int heads) {
  std::vector<int64_t> off(static_cast<size_t>(num_seqs) + 1, 0);
  for (int s = 0; s < num_seqs; ++s) {
    const int64_t len = start[s + 1] - start[s];
    off[s + 1] = off[s] + heads * len * len;
  }
  return off;
}

namespace {

// One row of probabilities after dropout: out = keep ? p·keep_scale : 0.
BERT_CPU_CLONES void dropped_row(const float* p, const uint8_t* keep, float keep_scale, float* out, int n) {
#pragma omp simd
  for (int j = 0; j < n; ++j) out[j] = keep[j] ? p[j] * keep_scale : 0.0f;
}

// One row through dropout and softmax, in place: g = dP_dropped in, dS out.
BERT_CPU_CLONES void softmax_dropout_backward_row(const float* pr, const uint8_t* kr, float keep_scale, float scale,
                                                  float* g, int n) {
  float pdp = 0.0f;
#pragma omp simd reduction(+ : pdp)
  for (int j = 0; j < n; ++j) {
    g[j] = kr[j] ? g[j] * keep_scale : 0.0f;
    pdp += pr[j] * g[j];
  }
#pragma omp simd
  for (int j = 0; j < n; ++j) g[j] = pr[j] * (g[j] - pdp) * scale;
}

}  // namespace

void attention_forward(const AttentionShape& s, const float* q, const float* k, const float* v, float* probs,
                       uint8_t* keep, float* ctx, const model::DropoutStream& rng, float p) {
  const int hidden = s.heads * s.head_dim, d = s.head_dim;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const float keep_scale = 1.0f / (1.0f - p);
#pragma omp parallel
  {
    thread_local std::vector<float> dropped;  // per thread, kept across calls (no fresh pages per layer)
#pragma omp for schedule(dynamic)
    for (int sh = 0; sh < s.num_seqs * s.heads; ++sh) {
      const int sq = sh / s.heads, h = sh % s.heads;
      const int t0 = s.start[sq], len = s.start[sq + 1] - t0;
      float* pb = probs + s.prob_offset[sq] + static_cast<int64_t>(h) * len * len;
      uint8_t* kb = keep + s.prob_offset[sq] + static_cast<int64_t>(h) * len * len;
      const float* qh = q + static_cast<size_t>(t0) * hidden + h * d;
      const float* kh = k + static_cast<size_t>(t0) * hidden + h * d;
      const float* vh = v + static_cast<size_t>(t0) * hidden + h * d;
      gemm_on_thread(false, true, len, len, d, scale, qh, hidden, kh, hidden, 0.0f, pb, len);
      dropped.resize(static_cast<size_t>(len) * len);
      for (int i = 0; i < len; ++i) {
        float* row = pb + static_cast<int64_t>(i) * len;
        softmax_row(row, len);
        uint8_t* krow = kb + static_cast<int64_t>(i) * len;
        const uint64_t elem0 =
            (static_cast<uint64_t>(s.first_flat[sq] + i) * s.heads + h) * static_cast<uint64_t>(s.seq_len);
        if (p > 0.0f)
          fill_keep(rng, elem0, len, p, krow);
        else
          std::memset(krow, 1, static_cast<size_t>(len));
        dropped_row(row, krow, keep_scale, dropped.data() + static_cast<size_t>(i) * len, len);
      }
      gemm_on_thread(false, false, len, d, len, 1.0f, dropped.data(), len, vh, hidden, 0.0f,
                     ctx + static_cast<size_t>(t0) * hidden + h * d, hidden);
    }
  }
}

void attention_backward(const AttentionShape& s, const float* q, const float* k, const float* v,
                        const float* probs, const uint8_t* keep, const float* dctx, float* dq, float* dk, float* dv,
                        float p) {
  const int hidden = s.heads * s.head_dim, d = s.head_dim;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const float keep_scale = 1.0f / (1.0f - p);
#pragma omp parallel
  {
    thread_local std::vector<float> dropped, ds;  // per thread, kept across calls (no fresh pages per layer)
#pragma omp for schedule(dynamic)
    for (int sh = 0; sh < s.num_seqs * s.heads; ++sh) {
      const int sq = sh / s.heads, h = sh % s.heads;
      const int t0 = s.start[sq], len = s.start[sq + 1] - t0;
      const size_t ll = static_cast<size_t>(len) * len;
      const float* pb = probs + s.prob_offset[sq] + static_cast<int64_t>(h) * len * len;
      const uint8_t* kb = keep + s.prob_offset[sq] + static_cast<int64_t>(h) * len * len;
      const size_t at = static_cast<size_t>(t0) * hidden + h * d;
      dropped.resize(ll), ds.resize(ll);
      for (int i = 0; i < len; ++i)
        dropped_row(pb + static_cast<size_t>(i) * len, kb + static_cast<size_t>(i) * len, keep_scale,
                    dropped.data() + static_cast<size_t>(i) * len, len);
      // dV = P_droppedᵀ·dctx;  dP_dropped = dctx·Vᵀ
      gemm_on_thread(true, false, len, d, len, 1.0f, dropped.data(), len, dctx + at, hidden, 0.0f, dv + at, hidden);
      gemm_on_thread(false, true, len, len, d, 1.0f, dctx + at, hidden, v + at, hidden, 0.0f, ds.data(), len);
      // Through dropout and softmax: dS = P ⊙ (dP − Σ_j P·dP) · scale, dP = dP_dropped·keep·keep_scale.
      for (int i = 0; i < len; ++i)
        softmax_dropout_backward_row(pb + static_cast<size_t>(i) * len, kb + static_cast<size_t>(i) * len, keep_scale,
                                     scale, ds.data() + static_cast<size_t>(i) * len, len);
      // dQ = dS·K;  dK = dSᵀ·Q
      gemm_on_thread(false, false, len, d, len, 1.0f, ds.data(), len, k + at, hidden, 0.0f, dq + at, hidden);
      gemm_on_thread(true, false, len, d, len, 1.0f, ds.data(), len, q + at, hidden, 0.0f, dk + at, hidden);
    }
  }
}

}  // namespace bert::cpu
