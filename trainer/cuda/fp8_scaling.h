// The delayed-scaling state of a set of FP8 tensors on the device: per tensor an amax history
// (history[i * count + t], i < history length; row 0 is the step being accumulated, which the casts
// raise), its scale (what the cast multiplies by) and scale_inv (what the GEMM multiplies by; one per 16
// bytes: cuBLASLt refuses a scale pointer that is not 16-byte aligned, NOT_SUPPORTED for every algorithm,
// measured on an H100 with CUDA 13.0 in cuda_fp8_gemm). update()
// is one kernel running trainer/model/fp8_scaling.h's fp8_update for every tensor: graph-capturable,
// no host synchronisation. Initial state: history 0, scale = scale_inv = 1 (Transformer Engine's).
#pragma once
#include <cuda_runtime.h>

#include <vector>

#include "trainer/cuda/device_buffer.h"
#include "trainer/cuda/fp8_options.h"
#include "trainer/model/fp8_format.h"

namespace bert::cuda {

class Fp8Scaling {
 public:
  // One tensor per format entry (E4M3: forward tensors, E5M2: gradients).
  Fp8Scaling(const std::vector<model::Fp8Format>& formats, const Fp8Options& opt);

  int count() const { return count_; }
  int history_length() const { return len_; }
  float* amax(int t) { return history_.get() + t; }  // the current slot (row 0)
  const float* scale(int t) const { return scale_.get() + t; }
  const float* scale_inv(int t) const { return scale_inv_.get() + static_cast<size_t>(t) * kScaleInvStride; }
  // Row 0 of every tensor, contiguous: what data-parallel ranks reduce (max) before update().
  float* current_amax() { return history_.get(); }

  void update(cudaStream_t stream);

  // For tests and checks (synchronous).
  std::vector<float> history() const { return history_.download(); }
  std::vector<float> scales() const { return scale_.download(); }
  std::vector<float> scale_invs() const;
  const std::vector<float>& scaled_max() const { return scaled_max_host_; }

 private:
  static constexpr int kScaleInvStride = 4;  // floats: 16 bytes
  int count_ = 0, len_ = 1;
  DeviceBuffer<float> history_, scale_, scale_inv_, scaled_max_;
  std::vector<float> scaled_max_host_;
};

}  // namespace bert::cuda
