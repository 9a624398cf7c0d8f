// Whether a system's GPUs have FP8 matrix units (compute capability 8.9 or later), from its
// system.accelerator_model_name: `benchmark.precision: fp8` is accepted only where they do, and the
// dry-run says so for every CUDA system. NVIDIA models as data (gpu_fp8.cpp); the trainer checks the
// device itself again at start (trainer/train_backend.cpp).
#pragma once
#include <string>

namespace bert::harness {

struct GpuFp8 {
  bool known = false;    // an NVIDIA model of the table
  bool has_fp8 = false;
  std::string arch;      // "sm_90"
  std::string why;       // "NVIDIA H100-SXM5-80GB is sm_90: FP8 matrix units" / "... is not an NVIDIA GPU model this harness knows"
};

GpuFp8 gpu_fp8(const std::string& accelerator_model_name);

}  // namespace bert::harness
