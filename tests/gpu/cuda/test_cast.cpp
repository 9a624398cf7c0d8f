// The precision conversions (cast.cu) against the CPU backend's own rounding (cpu/bf16_round.h): the
// same bits for fp32 -> bf16 (nearest even), exact widening, and fp32 accumulation as a plain loop.
#include <cstring>

#include "tests/gpu/cuda/gpu_test.h"
#include "trainer/cpu/bf16_round.h"
#include "trainer/cuda/cast.h"

using namespace bert::cuda;
using namespace bert::cuda::test;

namespace {

// Normal fp32 values with every mantissa bit in play (ties to even included), both signs, wide exponents.
std::vector<float> unrounded(size_t n, std::mt19937_64& g) {
  std::uniform_real_distribution<float> mant(1.f, 2.f);
  std::uniform_int_distribution<int> exp(-60, 60), sign(0, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = std::ldexp(mant(g), exp(g)) * (sign(g) ? -1.f : 1.f);
  v[0] = 1.00390625f;  // exactly halfway between two bf16 values: rounds to even
  v[1] = 1.01171875f;  // halfway, odd below: rounds up
  return v;
}

}  // namespace

TEST_CASE("cast_f32_to_bf16 gives the CPU backend's bits; cast_bf16_to_f32 widens exactly") {
  std::mt19937_64 g(7);
  const auto x = unrounded(100003, g);
  std::vector<uint16_t> ref(x.size());
  bert::cpu::round_to_bf16_loop(x.data(), ref.data(), x.size());
  auto d_x = DeviceBuffer<float>::from(x);
  auto d_y = poisoned<bf16>(x.size());
  cast_f32_to_bf16(d_x.get(), d_y.get(), x.size(), nullptr);
  auto d_w = poisoned<float>(x.size());
  cast_bf16_to_f32(d_y.get(), d_w.get(), x.size(), nullptr);
  sync();
  const std::vector<bf16> got = d_y.download();
  size_t differ = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    uint16_t bits;
    std::memcpy(&bits, &got[i], 2);
    differ += bits != ref[i];
  }
  CHECK(differ == 0);
  std::vector<float> widened(x.size());
  bert::cpu::widen_bf16(ref.data(), widened.data(), ref.size());
  CHECK(rel_l2(d_w.download(), widened) == 0.0);
}

TEST_CASE("accumulate_bf16_into_f32 and accumulate_f32 add in fp32 as a plain loop") {
  std::mt19937_64 g(8);
  const size_t n = 70001;  // not a multiple of the block
  const auto in = random_vec(n, g), acc = random_vec(n, g, -4.f, 4.f), in32 = random_vec(n, g);
  std::vector<float> want_bf16 = acc, want_f32 = acc;
  for (size_t i = 0; i < n; ++i) {
    want_bf16[i] += in[i];  // in is bf16-representable: widening is exact
    want_f32[i] += in32[i];
  }
  auto d_in = upload_bf16(in);
  auto d_in32 = DeviceBuffer<float>::from(in32);
  auto d_a = DeviceBuffer<float>::from(acc), d_b = DeviceBuffer<float>::from(acc);
  accumulate_bf16_into_f32(d_in.get(), d_a.get(), n, nullptr);
  accumulate_f32(d_in32.get(), d_b.get(), n, nullptr);
  sync();
  CHECK(rel_l2(d_a.download(), want_bf16) == 0.0);
  CHECK(rel_l2(d_b.download(), want_f32) == 0.0);
}
