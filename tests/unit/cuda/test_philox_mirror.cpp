// The CUDA dropout RNG (trainer/cuda/philox.h, host+device) must equal the CPU trainer's
// (trainer/model/dropout_rng.h) bit for bit, and Philox4x32-10 must match Random123's published
// known-answer vectors.
#include <doctest/doctest.h>

#include <random>

#include "trainer/cuda/philox.h"
#include "trainer/model/dropout_rng.h"

using bert::cuda::DropoutSpec;

TEST_CASE("Philox4x32-10 known-answer vectors (Random123 kat_vectors)") {
  const auto z = bert::cuda::philox4x32_10(0, 0, 0, 0, 0, 0);
  CHECK(z.w[0] == 0x6627e8d5u);
  CHECK(z.w[1] == 0xe169c58du);
  CHECK(z.w[2] == 0xbc57ac4cu);
  CHECK(z.w[3] == 0x9b00dbd8u);
  const auto f = bert::cuda::philox4x32_10(~0u, ~0u, ~0u, ~0u, ~0u, ~0u);
  CHECK(f.w[0] == 0x408f276du);
  CHECK(f.w[1] == 0x41c83b0eu);
  CHECK(f.w[2] == 0xa20bc7c6u);
  CHECK(f.w[3] == 0x6d5451fdu);
  const auto pi = bert::cuda::philox4x32_10(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u);
  CHECK(pi.w[0] == 0xd16cfe09u);
  CHECK(pi.w[1] == 0x94fdccebu);
  CHECK(pi.w[2] == 0x5001e420u);
  CHECK(pi.w[3] == 0x24126ea1u);
}

TEST_CASE("CUDA dropout mask == CPU dropout mask (seed, rank, micro-step, stream, element)") {
  std::mt19937_64 g(1);
  for (int trial = 0; trial < 50; ++trial) {
    const float p = trial % 5 == 0 ? 0.5f : 0.1f;
    DropoutSpec d{p, g(), static_cast<uint32_t>(g() % 8), static_cast<uint32_t>(g() % 1000),
                  static_cast<uint32_t>(g() % 73)};
    const bert::model::DropoutStream cpu{d.seed, d.rank, d.micro_step, d.stream};
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
  DropoutSpec d{0.1f, 99, 1, 2, 3};
  for (uint64_t e = 0; e < 4000; e += 2) {
    bool k2[2];
    d.keep2(e, k2);
    CHECK(k2[0] == d.keep(e));
    CHECK(k2[1] == d.keep(e + 1));
  }
}
