// Counter-based dropout RNG, host and device: an exact mirror of trainer/model/dropout_rng.h (the
// CPU path's definition; a unit test checks the two agree element by element).
//   Philox4x32-10, key = (seed lo, seed hi), counter = (q lo, (q >> 32) | rank << 16, micro_step, stream),
//   q = element / 4, word = element % 4; DROPPED when (word >> 8) * 2^-24 < p, kept scaled by 1/(1-p).
// Element numbering (flat Batch token indices, padding included):
//   hidden-state dropout: token * hidden + channel
//   attention probabilities: (token_q * heads + head) * seq_len + k, k = key position in its sequence
// Stream ids: trainer/model/dropout_rng.h dropout_stream_id (0 embeddings; 1+3l, 2+3l, 3+3l per layer).
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define BERT_HD __host__ __device__ __forceinline__
#else
#define BERT_HD inline
#endif

namespace bert::cuda {

struct Philox4 { uint32_t w[4]; };

BERT_HD Philox4 philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0, p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return Philox4{{c0, c1, c2, c3}};
}

// Dropout configuration passed to kernels: p = 0 disables dropout (no RNG work at all).
struct DropoutSpec {
  float p = 0.f;
  uint64_t seed = 0;
  uint32_t rank = 0;
  uint32_t micro_step = 0;
  uint32_t stream = 0;
  // When set (device memory), kernels read the micro-step from here instead of `micro_step`: a
  // CUDA graph captured once then draws new masks every step.
  const uint32_t* micro_step_dev = nullptr;

#if defined(__CUDACC__)
  __device__ __forceinline__ DropoutSpec resolved() const {
    DropoutSpec d = *this;
    if (micro_step_dev) d.micro_step = *micro_step_dev;
    return d;
  }
#endif
  BERT_HD float scale() const { return p > 0.f ? 1.f / (1.f - p) : 1.f; }
  BERT_HD Philox4 block(uint64_t q) const {
    return philox4x32_10(static_cast<uint32_t>(q), static_cast<uint32_t>(q >> 32) | (rank << 16), micro_step, stream,
                         static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
  }
  BERT_HD bool word_keeps(uint32_t word) const {
    return !(static_cast<float>(word >> 8) * (1.0f / 16777216.0f) < p);
  }
  BERT_HD bool keep(uint64_t element) const {
    return p <= 0.f || word_keeps(block(element >> 2).w[element & 3]);
  }
  // Keep flags of elements e and e+1 (e even, so both come from one Philox call).
  BERT_HD void keep2(uint64_t e, bool k[2]) const {
    if (p <= 0.f) {
      k[0] = k[1] = true;
      return;
    }
    const Philox4 r = block(e >> 2);
    k[0] = word_keeps(r.w[e & 3]);
    k[1] = word_keeps(r.w[(e & 3) + 1]);
  }
  // Keep flags of elements i0..i0+3 (i0 % 4 == 0): one Philox call for four elements.
  BERT_HD void keep4(uint64_t i0, bool k[4]) const {
    if (p <= 0.f) {
      k[0] = k[1] = k[2] = k[3] = true;
      return;
    }
    const Philox4 r = block(i0 >> 2);
    for (int j = 0; j < 4; ++j) k[j] = word_keeps(r.w[j]);
  }
};

}  // namespace bert::cuda
