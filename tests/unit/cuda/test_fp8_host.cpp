// trainer/model/fp8_format.h against CUDA's own conversions (cuda_fp8.h, host side; on sm_89+ the
// device runs cvt.rn.satfinite with the same results): every FP8 code decodes alike, and float -> FP8
// (satfinite) agrees bit for bit over a sweep of all float bit patterns at a stride plus every code's
// neighbourhood. Runs in CI wherever the CUDA toolkit is installed (no GPU needed).
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "trainer/model/fp8_format.h"

using bert::model::Fp8Format;

namespace {

__nv_fp8_interpretation_t kind(Fp8Format f) { return f == Fp8Format::e4m3 ? __NV_E4M3 : __NV_E5M2; }

float from_bits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

}  // namespace

TEST_CASE("fp8_decode == cuda_fp8.h for all 256 codes of both formats") {
  for (Fp8Format f : {Fp8Format::e4m3, Fp8Format::e5m2})
    for (int c = 0; c < 256; ++c) {
      const __half_raw h = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(c), kind(f));
      const float ref = __half2float(__half(h)), got = bert::model::fp8_decode(static_cast<uint8_t>(c), f);
      CAPTURE(c);
      CHECK((got == ref || (std::isnan(got) && std::isnan(ref))));
    }
}

TEST_CASE("fp8_encode == __nv_cvt_float_to_fp8(satfinite) over a sweep of float bit patterns") {
  long mismatches = 0, checked = 0;
  for (Fp8Format f : {Fp8Format::e4m3, Fp8Format::e5m2}) {
    for (uint64_t b = 0; b < (1ull << 32); b += 251) {  // every exponent, many mantissas, both signs
      const float x = from_bits(static_cast<uint32_t>(b));
      mismatches += bert::model::fp8_encode(x, f) != __nv_cvt_float_to_fp8(x, __NV_SATFINITE, kind(f));
      ++checked;
    }
    for (int c = 0; c < 256; ++c) {  // each code's value, its neighbour floats and the midpoints
      const float v = bert::model::fp8_decode(static_cast<uint8_t>(c), f);
      if (!std::isfinite(v)) continue;
      const float w = bert::model::fp8_decode(static_cast<uint8_t>(c + 1), f);
      for (float x : {v, std::nextafter(v, 1e30f), std::nextafter(v, -1e30f), (v + w) / 2}) {
        if (!std::isfinite(x)) continue;
        mismatches += bert::model::fp8_encode(x, f) != __nv_cvt_float_to_fp8(x, __NV_SATFINITE, kind(f));
        ++checked;
      }
    }
  }
  CHECK(checked > 34000000);
  CHECK(mismatches == 0);
}
