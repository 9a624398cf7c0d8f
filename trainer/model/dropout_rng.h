// Counter-based dropout randomness, one definition for every backend: host and device code
// (host_device.h), used by the CPU ops and by the CUDA kernels (through cuda/dropout_spec.h).
//
// Philox4x32-10 (Salmon et al. 2011, the Random123 constants) with
//   key     = (low 32 bits of seed, high 32 bits of seed)
//   counter = (q low 32 bits, (q >> 32) | rank << 16, micro_step, stream)
// Hidden-state dropouts: q = element_index / 4; output word (element_index % 4) decides one element,
// DROPPED when (word >> 8) * 2^-24 < p, else kept and scaled by 1/(1-p).
// Attention probabilities (eight times the elements of a hidden state at seq 512): 16 bits an element,
// 8 elements a Philox call (half the Philox work; FlashAttention-2 draws 8 bits): q = element_index / 8,
// element 8q + i is the low (i even) or high (i odd) half of word i / 2, DROPPED when half * 2^-16 < p
// (p resolved to 2^-16: 0.1 drops 6554 of 65536 values, 0.100006).
//   micro_step = optimizer_step * gradient_accumulation_steps + micro-batch index (0-based)
//   stream     = 0 for the embedding output; for layer l: 1 + 3l (attention probabilities),
//                2 + 3l (attention output dense), 3 + 3l (FFN output dense)
//   element_index, independent of how a backend lays out its tensors:
//     hidden-state dropouts: token * hidden + channel, with token = row * seq_len + position
//       (the flat token index of the Batch, padding included in the numbering)
//     attention probabilities: ((token_q * heads + head) * seq_len + k) where token_q is the query's
//       flat token index and k the key's position counted from its sequence's first token.
#pragma once
#include <cmath>
#include <cstdint>

#include "trainer/model/host_device.h"

namespace bert::model {

struct Philox4 { uint32_t v[4]; };

BERT_HD Philox4 philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kM0} * c0, p1 = uint64_t{kM1} * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += kW0;
    k1 += kW1;
  }
  return {{c0, c1, c2, c3}};
}

struct DropoutStream {
  uint64_t seed = 0;
  uint32_t rank = 0;
  uint32_t micro_step = 0;
  uint32_t stream = 0;

  // 4 consecutive uniform words for elements 4q..4q+3.
  BERT_HD Philox4 block(uint64_t q) const {
    return philox4x32_10(static_cast<uint32_t>(q), static_cast<uint32_t>(q >> 32) | (rank << 16), micro_step,
                         stream, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
  }
  BERT_HD static bool dropped(uint32_t word, float p) {
    return static_cast<float>(word >> 8) * (1.0f / 16777216.0f) < p;
  }
  BERT_HD bool keep(uint64_t element, float p) const { return !dropped(block(element >> 2).v[element & 3], p); }
  // Attention probabilities: the keep flags of elements 8q .. 8q + 7 as bits 0..7.
  BERT_HD static bool dropped16(uint32_t half, float p) {
    return static_cast<float>(half) * (1.0f / 65536.0f) < p;
  }
  // dropped16 as an integer compare: half * 2^-16 < p  <=>  half < ceil(p * 2^16) (p * 2^16 is exact).
  BERT_HD static uint32_t drop_threshold16(float p) {
    return p <= 0.0f ? 0u : p >= 1.0f ? 65536u : static_cast<uint32_t>(ceilf(p * 65536.0f));
  }
  BERT_HD uint32_t keep_bits8(uint64_t q, float p) const {
    const Philox4 r = block(q);
    const uint32_t thr = drop_threshold16(p);
    uint32_t bits = 0;
    for (int i = 0; i < 8; ++i) bits |= static_cast<uint32_t>(((r.v[i >> 1] >> (16 * (i & 1))) & 0xffffu) >= thr) << i;
    return bits;
  }
  BERT_HD bool keep_attention(uint64_t element, float p) const { return (keep_bits8(element >> 3, p) >> (element & 7)) & 1u; }
  // keep flags of elements [first, first + count): one Philox call per 4 elements.
  BERT_HD void fill_keep(uint64_t first, int count, float p, uint8_t* out) const {
    uint64_t e = first;
    const uint64_t end = first + static_cast<uint64_t>(count);
    while (e < end) {
      const Philox4 r = block(e >> 2);
      for (unsigned w = static_cast<unsigned>(e & 3); w < 4 && e < end; ++w, ++e) *out++ = !dropped(r.v[w], p);
    }
  }
  // The same for attention probabilities: one Philox call per 8 elements.
  BERT_HD void fill_keep_attention(uint64_t first, int count, float p, uint8_t* out) const {
    uint64_t e = first;
    const uint64_t end = first + static_cast<uint64_t>(count);
    while (e < end) {
      const uint32_t bits = keep_bits8(e >> 3, p);
      for (unsigned i = static_cast<unsigned>(e & 7); i < 8 && e < end; ++i, ++e) *out++ = (bits >> i) & 1u;
    }
  }
};

inline uint32_t dropout_stream_id(int layer, int site) { return layer < 0 ? 0u : static_cast<uint32_t>(1 + 3 * layer + site); }

}  // namespace bert::model
