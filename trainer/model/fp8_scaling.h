// FP8 delayed scaling, Transformer Engine's recipe (DelayedScaling, amax_compute_algo "max"; its
// bulk update kernel, transformer_engine/common/recipe/delayed_scaling.cu): one scale per tensor, taken
// from the absolute maxima (amax) of that tensor in the last `history` steps.
//   - A cast to FP8 writes q = fp8(scale * x) and raises the current amax slot history[0] to max|x|
//     (before scaling). The GEMM reading q multiplies by scale_inv = 1 / scale.
//   - After each optimizer step, per tensor (fp8_update):
//       last = history[0];
//       if last != 0: roll the history by one (history[i] <- history[i+1], the oldest slot gets `last`,
//                     history[0] <- 0 for the next step) and amax = the maximum over that window
//                     (fmaxf: a NaN entry is skipped); else nothing rolls and amax = 0;
//       scale = amax finite and > 0 ? fp8_max / 2^margin / amax : the previous scale (amax 0, inf or NaN);
//       an infinite scale (amax too small) becomes FLT_MAX; scale_inv = 1 / scale.
//   - Initial state: history zero, scale = scale_inv = 1 (so the first step casts with scale 1).
// Host and device (BERT_HD): the CUDA update kernel (cuda/fp8_scaling.cu) runs this code, and the CPU
// reference of the tests is the same function on the host.
#pragma once
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "trainer/model/fp8_format.h"
#include "trainer/model/host_device.h"

namespace bert::model {

// fp8_max(format) / 2^margin: the magnitude a tensor's amax is scaled to.
BERT_HD float fp8_scaled_max(Fp8Format f, int margin) { return ldexpf(fp8_max(f), -margin); }

BERT_HD bool fp8_finite(float x) { return (fp8_float_bits(x) & 0x7F800000u) != 0x7F800000u; }

BERT_HD float fp8_next_scale(float amax, float scale, float scaled_max) {
  float s = fp8_finite(amax) && amax > 0.f ? scaled_max / amax : scale;
  if (!fp8_finite(s)) s = FLT_MAX;  // amax so small that fp8_max / amax overflows
  return s;
}

// One tensor's update: history[i * stride] for i < len (history[0]: this step's amax).
BERT_HD void fp8_update(float* history, int len, size_t stride, float* scale, float* scale_inv, float scaled_max) {
  const float last = history[0];
  float amax = 0.f;
  if (last != 0.f) {
    for (int i = 0; i < len; ++i) {  // in place: history[i] is written after history[i + 1] was read
      const float a = i + 1 < len ? history[static_cast<size_t>(i + 1) * stride] : last;
      amax = fmaxf(amax, a);
      history[static_cast<size_t>(i) * stride] = i > 0 ? a : 0.f;
    }
  }
  *scale = fp8_next_scale(amax, *scale, scaled_max);
  *scale_inv = 1.f / *scale;
}

}  // namespace bert::model
