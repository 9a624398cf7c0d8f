// The two FP8 formats of FP8 training (OCP 8-bit floating point, as CUDA's __nv_fp8_e4m3/__nv_fp8_e5m2):
//   E4M3: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinity, S.1111.111 is NaN; max 448,
//         smallest normal 2^-6, smallest subnormal 2^-9. Forward tensors (activations, weights).
//   E5M2: 1 sign, 5 exponent (bias 15), 2 mantissa bits; IEEE-like (S.11111.00 infinity, S.11111.xx
//         NaN); max 57344, smallest normal 2^-14, smallest subnormal 2^-16. Gradients.
// fp8_encode is CUDA's __nv_cvt_float_to_fp8(x, __NV_SATFINITE, fmt) (cvt.rn.satfinite on sm_89+):
// round to nearest even; a magnitude that rounds above the largest finite value (infinity included)
// saturates to it with its sign; NaN becomes 0x7F. Host and device (BERT_HD): the CPU reference of the
// FP8 GEMMs and casts uses it, tests/unit/cuda checks it against cuda_fp8.h bit for bit.
#pragma once
#include <cstdint>
#include <cstring>

#include "trainer/model/host_device.h"

namespace bert::model {

enum class Fp8Format : uint8_t { e4m3, e5m2 };

BERT_HD int fp8_mantissa_bits(Fp8Format f) { return f == Fp8Format::e4m3 ? 3 : 2; }
BERT_HD int fp8_exponent_bias(Fp8Format f) { return f == Fp8Format::e4m3 ? 7 : 15; }
BERT_HD float fp8_max(Fp8Format f) { return f == Fp8Format::e4m3 ? 448.f : 57344.f; }
BERT_HD uint8_t fp8_max_code(Fp8Format f) { return f == Fp8Format::e4m3 ? 0x7E : 0x7B; }

BERT_HD uint32_t fp8_float_bits(float x) {
  uint32_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

BERT_HD uint8_t fp8_encode(float x, Fp8Format f) {
  const uint32_t bits = fp8_float_bits(x);
  const auto sign = static_cast<uint8_t>((bits >> 24) & 0x80u);
  const uint32_t mag = bits & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) return 0x7F;  // NaN
  const int m = fp8_mantissa_bits(f), bias = fp8_exponent_bias(f);
  const int exp = static_cast<int>(mag >> 23) - 127;
  uint32_t code;
  if (exp >= 1 - bias) {
    // normal in FP8: round the float's mantissa to m bits (to nearest, ties to even; a carry moves
    // into the exponent), then rebias the exponent
    const int shift = 23 - m;
    const uint32_t rounded = (mag + ((1u << (shift - 1)) - 1u) + ((mag >> shift) & 1u)) >> shift;
    code = rounded - (static_cast<uint32_t>(127 - bias) << m);
  } else {
    // subnormal in FP8 (or zero): a multiple of 2^(1-bias-m); the scaling by a power of two is exact
    float scaled;
    const uint32_t abs_bits = mag;
    memcpy(&scaled, &abs_bits, sizeof scaled);
    scaled *= static_cast<float>(1u << (bias - 1 + m));
    // round to nearest even by hand (no dependence on the floating-point rounding mode)
    const auto whole = static_cast<uint32_t>(scaled);
    const float frac = scaled - static_cast<float>(whole);
    code = whole + ((frac > 0.5f || (frac == 0.5f && (whole & 1u))) ? 1u : 0u);
  }
  if (code > fp8_max_code(f)) code = fp8_max_code(f);  // satfinite
  return static_cast<uint8_t>(sign | code);
}

BERT_HD float fp8_decode(uint8_t c, Fp8Format f) {
  const int m = fp8_mantissa_bits(f), bias = fp8_exponent_bias(f);
  const int e = (c & 0x7F) >> m;
  const int mant = c & ((1 << m) - 1);
  const bool negative = (c & 0x80) != 0;
  float v;
  if (f == Fp8Format::e4m3 && (c & 0x7F) == 0x7F) {
    const uint32_t nan = 0x7FC00000u;
    memcpy(&v, &nan, sizeof v);
    return v;
  }
  if (f == Fp8Format::e5m2 && e == 31) {
    const uint32_t special = mant == 0 ? 0x7F800000u : 0x7FC00000u;
    memcpy(&v, &special, sizeof v);
    return negative && mant == 0 ? -v : v;
  }
  // value = (e ? 1 + mant/2^m : mant/2^m) * 2^(max(e,1) - bias), built exactly from float bits
  const float significand = static_cast<float>(e ? (1 << m) + mant : mant);
  const int exponent = (e ? e : 1) - bias - m;  // >= -16: a normal float
  const uint32_t pow2 = static_cast<uint32_t>(exponent + 127) << 23;
  float scale;
  memcpy(&scale, &pow2, sizeof scale);
  v = significand * scale;
  return negative ? -v : v;
}

}  // namespace bert::model
