// The check both attention tests make: attention with the forward keeping its dropped probabilities
// for the backward (as the model runs it) gives the same bits as without. Kept is float for fp32 GEMMs,
// uint16_t (bf16) for bf16 ones.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "trainer/cpu/attention.h"

namespace bert::test {

struct AttentionRun {  // one run's inputs and the outputs it gave without keeping
  const std::vector<float>&q, &k, &v, &dctx;
  const std::vector<float>&ctx, &dq, &dk, &dv;
};

template <class Kept>
void check_kept_dropped_same_bits(const cpu::AttentionShape& sh, const model::DropoutStream& rng, float p,
                                  const AttentionRun& r) {
  const size_t np = static_cast<size_t>(sh.prob_offset[sh.num_seqs]), nt = r.q.size();
  std::vector<Kept> kept(np);
  cpu::AttentionDropped saved;
  if constexpr (std::is_same_v<Kept, float>)
    saved.f32 = kept.data();
  else
    saved.bf16 = kept.data();
  std::vector<float> probs(np), ctx(nt), dq(nt), dk(nt), dv(nt);
  std::vector<uint8_t> keep(np);
  constexpr cpu::MatmulPrecision precision =
      std::is_same_v<Kept, float> ? cpu::MatmulPrecision::fp32 : cpu::MatmulPrecision::bf16;
  cpu::attention_forward(sh, r.q.data(), r.k.data(), r.v.data(), probs.data(), keep.data(), ctx.data(), rng, p,
                         precision, saved);
  cpu::attention_backward(sh, r.q.data(), r.k.data(), r.v.data(), probs.data(), keep.data(), r.dctx.data(), dq.data(),
                          dk.data(), dv.data(), p, precision, saved);
  CHECK(ctx == r.ctx);
  CHECK(dq == r.dq);
  CHECK(dk == r.dk);
  CHECK(dv == r.dv);
}

}  // namespace bert::test
