// run.precision fp8 as the CUDA model sees it: whether the encoder's dense layers run their GEMMs in
// FP8, and the delayed-scaling recipe's settings (trainer/model/fp8_scaling.h; run.fp8_amax_history,
// run.fp8_margin; Transformer Engine's defaults).
#pragma once

namespace bert::cuda {

struct Fp8Options {
  bool enabled = false;
  int amax_history = 1;
  int margin = 0;
};

}  // namespace bert::cuda
