#include "trainer/cpu/attention.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "trainer/cpu/dropout.h"
#include "trainer/cpu/gemm.h"
#include "trainer/cpu/gemm_bf16.h"
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

// One (sequence, head) product, C = alpha·op(A)·op(B), in the run's matmul precision: OpenBLAS in fp32,
// gemm_bf16 (bf16 operands, fp32 accumulation and result) in bf16. Called inside the OpenMP loop over
// (sequence, head), so neither library threads it further (gemm() would split its rows).
void head_gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
               float* c, int ldc) {
  if (matmul_precision() == MatmulPrecision::bf16) {
    if (ldc == n) return gemm_bf16(ta, tb, m, n, k, alpha, a, lda, b, ldb, 0.0f, c, ldc);
    // A head's slice of a [T, hidden] output: oneDNN takes its AMX kernels only for a dense C (a
    // strided one falls back to the slower non-AMX gemm:jit), so the product goes through dense scratch.
    thread_local std::vector<float> dense;
    dense.resize(static_cast<size_t>(m) * n);
    gemm_bf16(ta, tb, m, n, k, alpha, a, lda, b, ldb, 0.0f, dense.data(), n);
    for (int i = 0; i < m; ++i)
      std::memcpy(c + static_cast<size_t>(i) * ldc, dense.data() + static_cast<size_t>(i) * n, sizeof(float) * n);
  } else
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a,
                lda, b, ldb, 0.0f, c, ldc);
}

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
      head_gemm(false, true, len, len, d, scale, qh, hidden, kh, hidden, pb, len);
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
      head_gemm(false, false, len, d, len, 1.0f, dropped.data(), len, vh, hidden,
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
      head_gemm(true, false, len, d, len, 1.0f, dropped.data(), len, dctx + at, hidden, dv + at, hidden);
      head_gemm(false, true, len, len, d, 1.0f, dctx + at, hidden, v + at, hidden, ds.data(), len);
      // Through dropout and softmax: dS = P ⊙ (dP − Σ_j P·dP) · scale, dP = dP_dropped·keep·keep_scale.
      for (int i = 0; i < len; ++i)
        softmax_dropout_backward_row(pb + static_cast<size_t>(i) * len, kb + static_cast<size_t>(i) * len, keep_scale,
                                     scale, ds.data() + static_cast<size_t>(i) * len, len);
      // dQ = dS·K;  dK = dSᵀ·Q
      head_gemm(false, false, len, d, len, 1.0f, ds.data(), len, k + at, hidden, dq + at, hidden);
      head_gemm(true, false, len, d, len, 1.0f, ds.data(), len, q + at, hidden, dk + at, hidden);
    }
  }
}

}  // namespace bert::cpu
