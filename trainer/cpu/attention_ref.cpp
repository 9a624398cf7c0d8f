// The plain-loop reference of attention.cpp (per-row dot/axpy, no BLAS), kept for its tests.
#include "trainer/cpu/attention.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace bert::cpu {

namespace {

inline float dot(const float* a, const float* b, int n) {
  float acc = 0.0f;
#pragma omp simd reduction(+ : acc)
  for (int i = 0; i < n; ++i) acc += a[i] * b[i];
  return acc;
}

inline void axpy(float alpha, const float* x, float* y, int n) {
#pragma omp simd
  for (int i = 0; i < n; ++i) y[i] += alpha * x[i];
}

}  // namespace

void attention_forward_ref(const AttentionShape& s, const float* q, const float* k, const float* v, float* probs,
                       uint8_t* keep, float* ctx, const model::DropoutStream& rng, float p) {
  const int hidden = s.heads * s.head_dim, d = s.head_dim;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const float keep_scale = 1.0f / (1.0f - p);
#pragma omp parallel for schedule(dynamic)
  for (int sh = 0; sh < s.num_seqs * s.heads; ++sh) {
    const int sq = sh / s.heads, h = sh % s.heads;
    const int t0 = s.start[sq], len = s.start[sq + 1] - t0;
    float* pb = probs + s.prob_offset[sq] + static_cast<int64_t>(h) * len * len;
    uint8_t* kb = keep + s.prob_offset[sq] + static_cast<int64_t>(h) * len * len;
    for (int i = 0; i < len; ++i) {
      const float* qi = q + static_cast<size_t>(t0 + i) * hidden + h * d;
      float* row = pb + static_cast<int64_t>(i) * len;
      float mx = -INFINITY;
      for (int j = 0; j < len; ++j) {
        row[j] = dot(qi, k + static_cast<size_t>(t0 + j) * hidden + h * d, d) * scale;
        mx = std::max(mx, row[j]);
      }
      float sum = 0.0f;
      for (int j = 0; j < len; ++j) {
        row[j] = std::exp(row[j] - mx);
        sum += row[j];
      }
      const float inv = 1.0f / sum;
      float* ci = ctx + static_cast<size_t>(t0 + i) * hidden + h * d;
      std::memset(ci, 0, sizeof(float) * d);
      const uint64_t elem0 =
          (static_cast<uint64_t>(s.first_flat[sq] + i) * s.heads + h) * static_cast<uint64_t>(s.seq_len);
      uint8_t* krow = kb + static_cast<int64_t>(i) * len;
      if (p > 0.0f)
        rng.fill_keep_attention(elem0, len, p, krow);
      else
        std::memset(krow, 1, static_cast<size_t>(len));
      for (int j = 0; j < len; ++j) {
        row[j] *= inv;
        if (krow[j]) axpy(row[j] * keep_scale, v + static_cast<size_t>(t0 + j) * hidden + h * d, ci, d);
      }
    }
  }
}

void attention_backward_ref(const AttentionShape& s, const float* q, const float* k, const float* v,
                        const float* probs, const uint8_t* keep, const float* dctx, float* dq, float* dk, float* dv,
                        float p) {
  const int hidden = s.heads * s.head_dim, d = s.head_dim;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const float keep_scale = 1.0f / (1.0f - p);
#pragma omp parallel
  {
    std::vector<float> dp;
#pragma omp for schedule(dynamic)
    for (int sh = 0; sh < s.num_seqs * s.heads; ++sh) {
      const int sq = sh / s.heads, h = sh % s.heads;
      const int t0 = s.start[sq], len = s.start[sq + 1] - t0;
      const float* pb = probs + s.prob_offset[sq] + static_cast<int64_t>(h) * len * len;
      const uint8_t* kb = keep + s.prob_offset[sq] + static_cast<int64_t>(h) * len * len;
      for (int i = 0; i < len; ++i) {
        std::memset(dq + static_cast<size_t>(t0 + i) * hidden + h * d, 0, sizeof(float) * d);
        std::memset(dk + static_cast<size_t>(t0 + i) * hidden + h * d, 0, sizeof(float) * d);
        std::memset(dv + static_cast<size_t>(t0 + i) * hidden + h * d, 0, sizeof(float) * d);
      }
      dp.resize(static_cast<size_t>(len));
      for (int i = 0; i < len; ++i) {
        const float* gi = dctx + static_cast<size_t>(t0 + i) * hidden + h * d;
        const float* pr = pb + static_cast<int64_t>(i) * len;
        const uint8_t* kr = kb + static_cast<int64_t>(i) * len;
        float pdp = 0.0f;
        for (int j = 0; j < len; ++j) {
          if (kr[j]) {
            const float pd = pr[j] * keep_scale;
            axpy(pd, gi, dv + static_cast<size_t>(t0 + j) * hidden + h * d, d);
            dp[j] = dot(gi, v + static_cast<size_t>(t0 + j) * hidden + h * d, d) * keep_scale;
          } else {
            dp[j] = 0.0f;
          }
          pdp += pr[j] * dp[j];
        }
        const float* qi = q + static_cast<size_t>(t0 + i) * hidden + h * d;
        float* dqi = dq + static_cast<size_t>(t0 + i) * hidden + h * d;
        for (int j = 0; j < len; ++j) {
          const float ds = pr[j] * (dp[j] - pdp) * scale;
          if (ds == 0.0f) continue;
          axpy(ds, k + static_cast<size_t>(t0 + j) * hidden + h * d, dqi, d);
          axpy(ds, qi, dk + static_cast<size_t>(t0 + j) * hidden + h * d, d);
        }
      }
    }
  }
}

}  // namespace bert::cpu
