// Hidden-state dropout with the counter-based RNG of trainer/model/dropout_rng.h. Tokens are given by
// their flat Batch index so the mask does not depend on how the backend lays tokens out.
#pragma once
#include <cstddef>
#include <cstdint>

#include "trainer/model/dropout_rng.h"

namespace bert::cpu {

// keep flags of elements [first, first + count) of the stream: the bits of rng.fill_keep (the one
// definition, dropout_rng.h), with the Philox blocks computed 16 at a time in vector lanes.
void fill_keep(const model::DropoutStream& rng, uint64_t first, int count, float p, uint8_t* out);
// The same for attention probabilities (8 elements a Philox block): rng.fill_keep_attention's bits.
void fill_keep_attention(const model::DropoutStream& rng, uint64_t first, int count, float p, uint8_t* out);

// out[i] = keep[i] ? x[i]·scale : 0 (out may alias x), as a vector loop: written as that select, GCC
// emits a scalar branch that mispredicts on every drop.
void apply_keep(const float* x, const uint8_t* keep, float scale, float* out, size_t n);

// y = x·keep/(1-p); keep[t*n + c] saved for backward. p == 0: plain copy, keep all ones.
void dropout_forward(const float* x, float* y, uint8_t* keep, const int32_t* token_flat, int t, int n,
                     const model::DropoutStream& rng, float p);
// dx = dy·keep/(1-p) (dx may alias dy).
void dropout_backward(const float* dy, float* dx, const uint8_t* keep, size_t count, float p);

}  // namespace bert::cpu
