// Fused multi-tensor LAMB over the flat fp32 parameter buffer (reference: trainer.md §3.1/§3.2):
//   g <- g * max_grad_norm / max(||g||, max_grad_norm)          (global norm over all tensors)
//   m <- b1 m + (1-b1) g;  v <- b2 v + (1-b2) g^2;  u = m^/(sqrt(v^)+eps) + wd w  (wd: not excluded)
//   r = ||w|| / ||u|| (1 if excluded or a norm is 0);  w <- w - lr r u;  bf16 copy of w refreshed
// lr follows the run's schedule (trainer/optim/schedule.h, host and device: warmup, poly decay),
// evaluated on the device from the device step counter, so a step needs no host synchronisation and
// can be captured in a CUDA graph.
// Five launches per step: grad sum-of-squares per chunk, global norm, moments + update direction
// (written over the gradient buffer), per-tensor trust ratios (+ lr, step++), parameter update.
// Element passes move float4s (16-byte accesses; a chunk's last len % 4 elements one by one).
// All reductions have a fixed order: the result is bitwise reproducible on one device.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "trainer/cuda/device_buffer.h"
#include "trainer/optim/schedule.h"

namespace bert::cuda {

struct LambTensor {
  int64_t offset = 0;     // in elements of the flat buffer
  int64_t size = 0;
  bool excluded = false;  // bias / LayerNorm: no weight decay, no trust ratio
};

struct LambHyper {
  float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-6f, weight_decay = 0.01f;
  float max_grad_norm = 1.f;  // <= 0: no clipping
  optim::LrSchedule schedule;  // step = 0-based index of the update
};

// Learning rate of update `step`, in fp32: what the device uses (this same function runs there).
BERT_HD float lamb_learning_rate(const LambHyper& h, int step) { return static_cast<float>(h.schedule.at(step)); }

class FusedLamb {
 public:
  static constexpr int kChunk = 8192;
  FusedLamb(const std::vector<LambTensor>& tensors, const LambHyper& hyper);

  // grads are consumed (overwritten with the update direction). params_bf16 may be null.
  void step(float* params, float* grads, float* m, float* v, __nv_bfloat16* params_bf16, cudaStream_t stream);

  // Device scalars for logging (read them only at a sync point): updates done, lr of the last
  // update, global gradient norm before clipping.
  const int32_t* device_step() const { return state_i_.get(); }
  const float* device_lr() const { return state_f_.get(); }
  const float* device_grad_norm() const { return state_f_.get() + 1; }
  void set_step(int32_t step, cudaStream_t stream);  // e.g. after a restore

 private:
  LambHyper h_;
  int num_tensors_ = 0, num_chunks_ = 0;
  DeviceBuffer<int64_t> chunk_begin_;   // [chunks] flat offset
  DeviceBuffer<int32_t> chunk_len_;     // [chunks]
  DeviceBuffer<int32_t> chunk_tensor_;  // [chunks]
  DeviceBuffer<int32_t> tensor_first_chunk_;  // [tensors + 1]
  DeviceBuffer<uint8_t> tensor_excluded_;     // [tensors]
  DeviceBuffer<float> chunk_gsq_;       // [chunks] grad sum of squares
  DeviceBuffer<float> chunk_wu_;        // [2 * chunks] ||w||^2, ||u||^2 partials
  DeviceBuffer<float> tensor_ratio_;    // [tensors]
  DeviceBuffer<int32_t> state_i_;       // [1] step
  DeviceBuffer<float> state_f_;         // [3] lr, grad norm, clip factor
};

}  // namespace bert::cuda
