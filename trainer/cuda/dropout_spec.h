// The dropout argument of the CUDA kernels: the rate and the CPU trainer's RNG stream
// (trainer/model/dropout_rng.h, host and device: the masks are the CPU's bit for bit), with the
// kernels' ways of drawing it (one Philox call for 2 or 4 elements of a hidden state, for 8 attention
// probabilities) and a device micro-step.
#pragma once
#include <cstdint>

#include "trainer/model/dropout_rng.h"

namespace bert::cuda {

// p = 0 disables dropout (no RNG work at all).
struct DropoutSpec {
  float p = 0.f;
  model::DropoutStream rng;
  // When set (device memory), kernels read the micro-step from here instead of rng.micro_step: a
  // CUDA graph captured once then draws new masks every step.
  const uint32_t* micro_step_dev = nullptr;

#if defined(__CUDACC__)
  __device__ __forceinline__ DropoutSpec resolved() const {
    DropoutSpec d = *this;
    if (micro_step_dev) d.rng.micro_step = *micro_step_dev;
    return d;
  }
#endif
  BERT_HD float scale() const { return p > 0.f ? 1.f / (1.f - p) : 1.f; }
  BERT_HD bool word_keeps(uint32_t word) const { return !model::DropoutStream::dropped(word, p); }
  BERT_HD bool keep(uint64_t element) const { return p <= 0.f || rng.keep(element, p); }
  // Keep flags of elements e and e+1 (e even, so both come from one Philox call).
  BERT_HD void keep2(uint64_t e, bool k[2]) const {
    if (p <= 0.f) {
      k[0] = k[1] = true;
      return;
    }
    const model::Philox4 r = rng.block(e >> 2);
    k[0] = word_keeps(r.v[e & 3]);
    k[1] = word_keeps(r.v[(e & 3) + 1]);
  }
  // Keep flags of elements i0..i0+3 (i0 % 4 == 0): one Philox call for four elements.
  BERT_HD void keep4(uint64_t i0, bool k[4]) const {
    if (p <= 0.f) {
      k[0] = k[1] = k[2] = k[3] = true;
      return;
    }
    const model::Philox4 r = rng.block(i0 >> 2);
    for (int j = 0; j < 4; ++j) k[j] = word_keeps(r.v[j]);
  }
  // Attention probabilities (dropout_rng.h's 16-bit draw): keep flags of elements 8q .. 8q + 7 as bits
  // 0..7, and of one element.
  BERT_HD uint32_t keep8(uint64_t q) const { return p <= 0.f ? 0xffu : rng.keep_bits8(q, p); }
  BERT_HD bool keep_attention(uint64_t element) const { return p <= 0.f || rng.keep_attention(element, p); }
};

}  // namespace bert::cuda
