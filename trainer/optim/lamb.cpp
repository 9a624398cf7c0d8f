#include "trainer/optim/lamb.h"

#include <algorithm>
#include <cmath>

#include "trainer/cpu/bf16_round.h"
#include "trainer/cpu/vec_math.h"

namespace bert::optim {

namespace {

// Elements per block: float lanes inside a block, blocks summed in double (a float sum over a whole
// 31M-element tensor would drift by ~1e-4 relative).
constexpr int64_t kBlock = 2048;

BERT_CPU_CLONES float sum_squares_block(const float* x, int64_t n) {
  float s = 0.0f;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += x[i] * x[i];
  return s;
}

struct Coeffs {
  float grad_factor, b1, b2, one_minus_b1, one_minus_b2, inv_c1, inv_c2, eps, wd;
};

inline float update_of(const Coeffs& k, float m, float v, float w) {
  return (m * k.inv_c1) / (std::sqrt(v * k.inv_c2) + k.eps) + k.wd * w;
}

// Moments in place, each element's update into u, and Σw², Σu² of the block.
BERT_CPU_CLONES void moments_block(const Coeffs& k, const float* g, float* m, float* v, const float* w, float* u,
                                   int64_t n, float& wn2, float& un2) {
  float sw = 0.0f, su = 0.0f;
#pragma omp simd reduction(+ : sw, su)
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i] * k.grad_factor;
    const float mi = k.b1 * m[i] + k.one_minus_b1 * gi;
    const float vi = k.b2 * v[i] + k.one_minus_b2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    const float ui = update_of(k, mi, vi, w[i]);
    u[i] = ui;
    sw += w[i] * w[i];
    su += ui * ui;
  }
  wn2 = sw, un2 = su;
}

// The update recomputed from the moments (no buffer for u) ...
BERT_CPU_CLONES void apply_block(const Coeffs& k, const float* m, const float* v, float* w, int64_t n, float scale) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) w[i] -= scale * update_of(k, m[i], v[i], w[i]);
}

// ... or read back as the moments pass stored it (the same bits: w has not changed in between).
BERT_CPU_CLONES void apply_stored_block(const float* u, float* w, int64_t n, float scale) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) w[i] -= scale * u[i];
}

int64_t blocks_of(int64_t n) { return (n + kBlock - 1) / kBlock; }

}  // namespace

double sum_squares(const float* x, size_t count) {
  const auto n = static_cast<int64_t>(count);
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (int64_t b = 0; b < blocks_of(n); ++b) s += sum_squares_block(x + b * kBlock, std::min(kBlock, n - b * kBlock));
  return s;
}

double global_grad_norm(const model::ParamLayout& layout, const float* grads) {
  return std::sqrt(sum_squares(grads, layout.total));
}

Lamb::Lamb(const model::ParamLayout& layout, LambHyper hyper, size_t first_tensor, size_t end_tensor)
    : layout_(layout), h_(hyper) {
  end_tensor = std::min(end_tensor, layout.tensors.size());
  if (first_tensor >= end_tensor) return;
  base_ = layout.tensors[first_tensor].offset;
  const model::ParamInfo& last = layout.tensors[end_tensor - 1];
  m_.assign(last.offset + last.size - base_, 0.0f);
  v_.assign(m_.size(), 0.0f);
  for (size_t t = first_tensor; t < end_tensor; ++t) {
    const auto n = static_cast<int64_t>(layout.tensors[t].size);
    for (int64_t at = 0; at < n; at += kBlock) blocks_.push_back({static_cast<int>(t), at, std::min(kBlock, n - at)});
  }
}

void Lamb::step(float* params, const float* grads, double lr, double grad_factor, uint16_t* params_bf16,
                float* updates) {
  ++t_;
  const double b1 = h_.beta1, b2 = h_.beta2;
  const double c1 = 1.0 - std::pow(b1, static_cast<double>(t_)), c2 = 1.0 - std::pow(b2, static_cast<double>(t_));
  const auto coeffs = [&](const model::ParamInfo& p) {
    return Coeffs{static_cast<float>(grad_factor), static_cast<float>(b1), static_cast<float>(b2),
                  static_cast<float>(1.0 - b1), static_cast<float>(1.0 - b2), static_cast<float>(1.0 / c1),
                  static_cast<float>(1.0 / c2), static_cast<float>(h_.eps),
                  static_cast<float>(p.no_decay ? 0.0 : h_.weight_decay)};
  };
  // Two parallel loops over the blocks of every tensor, not two per tensor: ~800 fork/joins per step
  // (BERT-Large) cost seconds when a thread of the team is preempted. Per-block partial norms are
  // summed per tensor in block order, so the result does not depend on the thread count.
  const auto nb = static_cast<int64_t>(blocks_.size());
  partial_.resize(blocks_.size() * 2);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nb; ++i) {
    const Block& bl = blocks_[static_cast<size_t>(i)];
    const model::ParamInfo& p = layout_.tensors[static_cast<size_t>(bl.tensor)];
    const size_t at = p.offset + static_cast<size_t>(bl.first);
    thread_local float scratch[kBlock];  // u when the caller gives no buffer for it: L1, then dropped
    float* u = updates ? updates + at : scratch;
    float sw = 0, su = 0;
    moments_block(coeffs(p), grads + at, m_.data() + (at - base_), v_.data() + (at - base_), params + at, u, bl.count,
                  sw, su);
    partial_[2 * static_cast<size_t>(i)] = sw;
    partial_[2 * static_cast<size_t>(i) + 1] = su;
  }
  scale_.assign(layout_.tensors.size(), 0.0f);
  for (size_t i = 0; i < blocks_.size();) {
    const int tensor = blocks_[i].tensor;
    double wn2 = 0, un2 = 0;
    for (; i < blocks_.size() && blocks_[i].tensor == tensor; ++i) wn2 += partial_[2 * i], un2 += partial_[2 * i + 1];
    const model::ParamInfo& p = layout_.tensors[static_cast<size_t>(tensor)];
    const double wn = std::sqrt(wn2), un = std::sqrt(un2);
    const double r = (!p.no_decay && wn > 0 && un > 0) ? wn / un : 1.0;
    scale_[static_cast<size_t>(tensor)] = static_cast<float>(lr * r);
  }
#pragma omp parallel
  {
#pragma omp for schedule(static) nowait
    for (int64_t i = 0; i < nb; ++i) {
      const Block& bl = blocks_[static_cast<size_t>(i)];
      const model::ParamInfo& p = layout_.tensors[static_cast<size_t>(bl.tensor)];
      const size_t at = p.offset + static_cast<size_t>(bl.first);
      const float scale = scale_[static_cast<size_t>(bl.tensor)];
      if (updates)
        apply_stored_block(updates + at, params + at, bl.count, scale);
      else
        apply_block(coeffs(p), m_.data() + (at - base_), v_.data() + (at - base_), params + at, bl.count, scale);
      // The block's bf16 copy, right after its update while it is in L1. Nothing reads it before the
      // next forward, so it goes past the cache.
      if (params_bf16) cpu::round_to_bf16_stream(params + at, params_bf16 + at, static_cast<size_t>(bl.count));
    }
    if (params_bf16) cpu::stream_fence();
  }
}

}  // namespace bert::optim
