// The FP8 formats and the delayed-scaling recipe (trainer/model/fp8_format.h, fp8_scaling.h): the
// shared maths the CUDA casts and scale update run, checked on the host against the formats' documented
// bit layouts (OCP FP8; cuda_fp8.h's own conversion is compared bit for bit in tests/unit/cuda where
// the CUDA headers are installed) and against Transformer Engine's rules.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "trainer/model/fp8_format.h"
#include "trainer/model/fp8_scaling.h"

using bert::model::Fp8Format;
using bert::model::fp8_decode;
using bert::model::fp8_encode;

namespace {

constexpr Fp8Format kFormats[] = {Fp8Format::e4m3, Fp8Format::e5m2};

bool is_nan_code(uint8_t c, Fp8Format f) { return std::isnan(fp8_decode(c, f)); }
bool is_inf_code(uint8_t c, Fp8Format f) { return std::isinf(fp8_decode(c, f)); }

}  // namespace

TEST_CASE("fp8 formats: the documented values of the bit layouts") {
  CHECK(fp8_decode(0x38, Fp8Format::e4m3) == 1.f);        // 0.0111.000: 2^(7-7)
  CHECK(fp8_decode(0x7E, Fp8Format::e4m3) == 448.f);      // 0.1111.110: the largest finite
  CHECK(std::isnan(fp8_decode(0x7F, Fp8Format::e4m3)));   // 0.1111.111: NaN, no infinity
  CHECK(fp8_decode(0x08, Fp8Format::e4m3) == std::ldexp(1.f, -6));  // smallest normal
  CHECK(fp8_decode(0x01, Fp8Format::e4m3) == std::ldexp(1.f, -9));  // smallest subnormal
  CHECK(fp8_decode(0xFE, Fp8Format::e4m3) == -448.f);
  CHECK(fp8_decode(0x3C, Fp8Format::e5m2) == 1.f);        // 0.01111.00
  CHECK(fp8_decode(0x7B, Fp8Format::e5m2) == 57344.f);    // 0.11110.11
  CHECK(fp8_decode(0x7C, Fp8Format::e5m2) == INFINITY);   // 0.11111.00
  CHECK(fp8_decode(0xFC, Fp8Format::e5m2) == -INFINITY);
  CHECK(std::isnan(fp8_decode(0x7D, Fp8Format::e5m2)));
  CHECK(fp8_decode(0x04, Fp8Format::e5m2) == std::ldexp(1.f, -14));
  CHECK(fp8_decode(0x01, Fp8Format::e5m2) == std::ldexp(1.f, -16));
  CHECK(bert::model::fp8_max(Fp8Format::e4m3) == fp8_decode(bert::model::fp8_max_code(Fp8Format::e4m3), Fp8Format::e4m3));
  CHECK(bert::model::fp8_max(Fp8Format::e5m2) == fp8_decode(bert::model::fp8_max_code(Fp8Format::e5m2), Fp8Format::e5m2));
  int e4m3_nans = 0, e5m2_nans = 0, e5m2_infs = 0;
  for (int c = 0; c < 256; ++c) {
    e4m3_nans += is_nan_code(static_cast<uint8_t>(c), Fp8Format::e4m3);
    e5m2_nans += is_nan_code(static_cast<uint8_t>(c), Fp8Format::e5m2);
    e5m2_infs += is_inf_code(static_cast<uint8_t>(c), Fp8Format::e5m2);
  }
  CHECK(e4m3_nans == 2);  // 0x7F, 0xFF
  CHECK(e5m2_nans == 6);  // S.11111.{01,10,11}
  CHECK(e5m2_infs == 2);
}

TEST_CASE("fp8 encode: every finite code round-trips; ties between neighbours go to the even code") {
  for (Fp8Format f : kFormats) {
    CAPTURE(static_cast<int>(f));
    for (int c = 0; c < 256; ++c) {
      const auto code = static_cast<uint8_t>(c);
      const float v = fp8_decode(code, f);
      if (!std::isfinite(v)) continue;
      if (v == 0.f) {
        CHECK(fp8_encode(v, f) == code);  // +0 -> 0x00, -0 -> 0x80
        continue;
      }
      CHECK(fp8_encode(v, f) == code);
      // the next code up in magnitude (same sign): the midpoint is a tie, just above and below are not
      const auto up = static_cast<uint8_t>(c + 1);
      if ((c & 0x7F) >= bert::model::fp8_max_code(f)) continue;
      const float w = fp8_decode(up, f);
      const float mid = (v + w) / 2;  // exact: both have few mantissa bits
      CAPTURE(c);
      const uint8_t even = (c & 1) == 0 ? code : up;
      CHECK(fp8_encode(mid, f) == even);
      CHECK(fp8_encode(std::nextafter(mid, w), f) == up);
      CHECK(fp8_encode(std::nextafter(mid, v), f) == code);
    }
  }
}

TEST_CASE("fp8 encode: saturation to the largest finite value, NaN, zero and underflow") {
  // E4M3: 448 + half an ulp (464) is a tie that rounds to the even 448; anything above saturates
  CHECK(fp8_encode(464.f, Fp8Format::e4m3) == 0x7E);
  CHECK(fp8_encode(std::nextafter(464.f, 1e9f), Fp8Format::e4m3) == 0x7E);
  CHECK(fp8_encode(1e30f, Fp8Format::e4m3) == 0x7E);
  CHECK(fp8_encode(-1e30f, Fp8Format::e4m3) == 0xFE);
  CHECK(fp8_encode(INFINITY, Fp8Format::e4m3) == 0x7E);
  CHECK(fp8_encode(-INFINITY, Fp8Format::e4m3) == 0xFE);
  // E5M2: infinity exists, but the satfinite conversion never produces it
  CHECK(fp8_encode(61440.f, Fp8Format::e5m2) == 0x7B);  // a tie that would round to infinity
  CHECK(fp8_encode(INFINITY, Fp8Format::e5m2) == 0x7B);
  CHECK(fp8_encode(-INFINITY, Fp8Format::e5m2) == 0xFB);
  CHECK(fp8_encode(FLT_MAX, Fp8Format::e5m2) == 0x7B);
  for (Fp8Format f : kFormats) {
    CHECK(fp8_encode(std::numeric_limits<float>::quiet_NaN(), f) == 0x7F);
    CHECK(fp8_encode(-std::numeric_limits<float>::quiet_NaN(), f) == 0x7F);  // CUDA: canonical NaN
    CHECK(fp8_encode(0.f, f) == 0x00);
    CHECK(fp8_encode(-0.f, f) == 0x80);
    CHECK(fp8_encode(std::numeric_limits<float>::denorm_min(), f) == 0x00);
  }
  // half the smallest subnormal is a tie to the even zero; just above it rounds up
  CHECK(fp8_encode(std::ldexp(1.f, -10), Fp8Format::e4m3) == 0x00);
  CHECK(fp8_encode(std::nextafter(std::ldexp(1.f, -10), 1.f), Fp8Format::e4m3) == 0x01);
  CHECK(fp8_encode(std::ldexp(1.f, -17), Fp8Format::e5m2) == 0x00);
  CHECK(fp8_encode(std::ldexp(3.f, -17), Fp8Format::e5m2) == 0x02);  // 1.5 subnormal ulps: tie to even 2
}

TEST_CASE("fp8 encode: random floats land on the nearest code, monotonically") {
  std::mt19937 g(7);
  for (Fp8Format f : kFormats) {
    std::vector<float> codes;  // the non-negative finite values, ascending
    for (int c = 0; c < 128; ++c)
      if (std::isfinite(fp8_decode(static_cast<uint8_t>(c), f))) codes.push_back(fp8_decode(static_cast<uint8_t>(c), f));
    const float top = bert::model::fp8_max(f);
    std::uniform_real_distribution<float> exponent(-20.f, std::log2(top) + 1.f);
    for (int i = 0; i < 20000; ++i) {
      const float x = std::exp2(exponent(g)) * (g() & 1 ? -1.f : 1.f);
      const float got = fp8_decode(fp8_encode(x, f), f);
      const float ax = std::fabs(std::min(std::fabs(x), top));
      float best = codes.front();
      for (float v : codes)
        if (std::fabs(v - ax) < std::fabs(best - ax)) best = v;
      CAPTURE(x);
      CHECK(std::fabs(std::fabs(got) - ax) == std::fabs(best - ax));  // a nearest code (ties: either distance)
      CHECK((got == 0.f || std::signbit(got) == std::signbit(x)));
    }
  }
}

TEST_CASE("fp8 delayed scaling: the amax history rolls and the scale follows its maximum (Transformer Engine)") {
  using bert::model::fp8_update;
  const float e4m3 = bert::model::fp8_scaled_max(Fp8Format::e4m3, 0);
  CHECK(e4m3 == 448.f);
  CHECK(bert::model::fp8_scaled_max(Fp8Format::e5m2, 2) == 57344.f / 4);
  // history of 3 (stride 2: another tensor's slots interleaved, as the device layout [len][tensors])
  float h[6] = {0, -1, 0, -1, 0, -1};
  float scale = 1, scale_inv = 1;
  auto step = [&](float amax) {
    h[0] = amax;  // what this step's casts wrote
    fp8_update(h, 3, 2, &scale, &scale_inv, e4m3);
    CHECK(scale_inv == 1.f / scale);
    CHECK(h[0] == 0.f);  // the next step's slot starts empty
    CHECK(h[1] == -1.f);  // the other tensor's slots untouched
  };
  step(2.f);
  CHECK(scale == 224.f);
  CHECK(h[4] == 2.f);  // the oldest slot holds the newest amax after the roll
  step(8.f);
  CHECK(scale == 56.f);  // max(2, 8)
  step(1.f);
  CHECK(scale == 56.f);  // 8 is still in the window {h[1], h[2], last} = {2, 8, 1}
  step(1.f);
  CHECK(scale == 56.f);  // window {8, 1, 1}
  step(1.f);
  CHECK(scale == 448.f);  // 8 has left: {1, 1, 1}
  // amax 0 (nothing cast, or all zeros): no roll, the scale stays
  const float before[3] = {h[0], h[2], h[4]};
  step(0.f);
  CHECK(scale == 448.f);
  CHECK(h[2] == before[1]);
  CHECK(h[4] == before[2]);
}

TEST_CASE("fp8 delayed scaling: history 1, margin, and amax 0 / inf / NaN / tiny keep or clamp the scale") {
  using bert::model::fp8_update;
  float h = 0, scale = 1, inv = 1;
  const float max2 = bert::model::fp8_scaled_max(Fp8Format::e5m2, 1);  // margin 1: 57344 / 2
  h = 7.f;
  fp8_update(&h, 1, 1, &scale, &inv, max2);
  CHECK(scale == doctest::Approx(28672.f / 7.f));
  CHECK(h == 0.f);
  const float kept = scale;
  h = INFINITY;
  fp8_update(&h, 1, 1, &scale, &inv, max2);
  CHECK(scale == kept);
  h = std::numeric_limits<float>::quiet_NaN();
  fp8_update(&h, 1, 1, &scale, &inv, max2);
  CHECK(scale == kept);
  h = 0.f;
  fp8_update(&h, 1, 1, &scale, &inv, max2);
  CHECK(scale == kept);
  h = std::numeric_limits<float>::denorm_min();  // 28672 / 1.4e-45 overflows: the largest float instead
  fp8_update(&h, 1, 1, &scale, &inv, max2);
  CHECK(scale == FLT_MAX);
  CHECK(inv == 1.f / FLT_MAX);
  // an inf stays in a longer window and holds the scale for that many steps (TE: isfinite(amax) fails)
  float w[2] = {0, 0};
  float s2 = 1, i2 = 1;
  w[0] = 4.f;
  fp8_update(w, 2, 1, &s2, &i2, 448.f);
  CHECK(s2 == 112.f);
  w[0] = INFINITY;
  fp8_update(w, 2, 1, &s2, &i2, 448.f);
  CHECK(s2 == 112.f);
  w[0] = 2.f;
  fp8_update(w, 2, 1, &s2, &i2, 448.f);
  CHECK(s2 == 112.f);  // window {inf, 2}
  w[0] = 2.f;
  fp8_update(w, 2, 1, &s2, &i2, 448.f);
  CHECK(s2 == 224.f);  // window {2, 2}
}
