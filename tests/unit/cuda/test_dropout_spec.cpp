// The CUDA kernels draw dropout through DropoutSpec (trainer/cuda/dropout_spec.h: keep, keep2, keep4,
// and keep8 / keep_attention for attention probabilities, the p = 0 short cut); their masks must be the
// CPU trainer's (model::DropoutStream) bit for bit.
// Philox4x32-10 itself (one definition, trainer/model/dropout_rng.h) is checked against Random123's
// known-answer vectors in tests/unit/trainer/test_cpu_ops.cpp.
#include <doctest/doctest.h>

#include <random>

#include "trainer/cuda/dropout_spec.h"
#include "trainer/model/dropout_rng.h"

using bert::cuda::DropoutSpec;

namespace {

// Trial `trial`'s spec: rate 0.5 every fifth trial, else 0.1; a random seed, rank, micro-step and stream.
DropoutSpec random_spec(std::mt19937_64& g, int trial) {
  const float p = trial % 5 == 0 ? 0.5f : 0.1f;
  return DropoutSpec{p, {g(), static_cast<uint32_t>(g() % 8), static_cast<uint32_t>(g() % 1000),
                         static_cast<uint32_t>(g() % 73)}};
}

}  // namespace

TEST_CASE("CUDA dropout mask == CPU dropout mask (seed, rank, micro-step, stream, element)") {
  std::mt19937_64 g(1);
  for (int trial = 0; trial < 50; ++trial) {
    const DropoutSpec d = random_spec(g, trial);
    const float p = d.p;
    const bert::model::DropoutStream cpu{d.rng.seed, d.rng.rank, d.rng.micro_step, d.rng.stream};
    const uint64_t base = (g() % (1ull << 40)) & ~3ull;
    for (uint64_t i = base; i < base + 64; i += 4) {
      bool k4[4];
      d.keep4(i, k4);
      for (int j = 0; j < 4; ++j) {
        CHECK(d.keep(i + j) == cpu.keep(i + j, p));
        CHECK(k4[j] == cpu.keep(i + j, p));
      }
    }
  }
}

TEST_CASE("p = 0 keeps everything without drawing") {
  DropoutSpec d;
  bool k4[4];
  d.keep4(8, k4);
  CHECK((k4[0] && k4[1] && k4[2] && k4[3]));
  CHECK(d.keep(12345));
  CHECK(d.scale() == 1.f);
}

TEST_CASE("keep2 (one Philox call for an even element and its neighbour) == keep") {
  DropoutSpec d{0.1f, {99, 1, 2, 3}};
  for (uint64_t e = 0; e < 4000; e += 2) {
    bool k2[2];
    d.keep2(e, k2);
    CHECK(k2[0] == d.keep(e));
    CHECK(k2[1] == d.keep(e + 1));
  }
}

TEST_CASE("keep8 (attention: one Philox call for 8 elements) == the CPU's attention mask") {
  std::mt19937_64 g(3);
  for (int trial = 0; trial < 50; ++trial) {
    const DropoutSpec d = random_spec(g, trial);
    const float p = d.p;
    const uint64_t q0 = g() % (1ull << 37);
    uint8_t cpu[64];
    d.rng.fill_keep_attention(8 * q0, 64, p, cpu);
    for (int b = 0; b < 8; ++b) {
      const uint32_t bits = d.keep8(q0 + b);
      for (int i = 0; i < 8; ++i) {
        CHECK(((bits >> i) & 1u) == cpu[8 * b + i]);
        CHECK(d.keep_attention(8 * (q0 + b) + i) == (cpu[8 * b + i] != 0));
      }
    }
  }
  DropoutSpec off;
  CHECK(off.keep8(3) == 0xffu);
  CHECK(off.keep_attention(17));
}
