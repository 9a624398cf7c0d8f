// LAMB as the MLPerf reference (TF lamb_optimizer_v1; apex FusedLAMB is equivalent), over the flat
// parameter layout. Per tensor, at step t (1 on the first update), with g already clipped:
//   m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g²
//   u = (m/(1−β1^t)) / (√(v/(1−β2^t)) + ε) + wd·w        (wd term only for decayed tensors)
//   r = ‖w‖/‖u‖ if both > 0 else 1                          (r = 1 for excluded tensors)
//   w ← w − lr·r·u
// Excluded (no decay, no trust ratio): names containing LayerNorm, layer_norm or bias.
// Computed in float, vectorized (AVX-512/AVX2 clones), in two parallel passes over all tensors' blocks
// (moments + per-block norms, then the update with u recomputed or, given a buffer, read back); the
// norms are summed in double over blocks in a fixed order (independent of the thread count).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "trainer/model/params.h"

namespace bert::optim {

struct LambHyper {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-6, weight_decay = 0.01;
};

// Σx² over x[0, n): float lanes per block of 2048, blocks summed in double.
double sum_squares(const float* x, size_t n);
// ‖g‖₂ over every tensor of the layout (alignment gaps are zero anyway).
double global_grad_norm(const model::ParamLayout& layout, const float* grads);
// Reference clipping factor: 1 / max(norm / max_norm, 1).
inline double clip_factor(double norm, double max_norm = 1.0) { return norm > max_norm ? max_norm / norm : 1.0; }

class Lamb {
 public:
  // Updates tensors [first_tensor, end_tensor) of the layout (a rank's run: shards.h), all by default;
  // the moments are kept for those only.
  Lamb(const model::ParamLayout& layout, LambHyper hyper, size_t first_tensor = 0, size_t end_tensor = SIZE_MAX);

  // One update with learning rate `lr` of the run's tensors (the buffers are the whole layout's); each
  // gradient is multiplied by `grad_factor` first (the clipping factor, and 1/world for an average). Increments the step counter. With params_bf16, the same pass writes the
  // bf16 rounding of every updated weight there (the copy bf16 GEMMs read: cpu/bf16_copy.h), with
  // non-temporal stores: nothing reads it before the next forward.
  // With `updates`, the moments pass stores each element's u there and the update pass reads it back
  // instead of recomputing it from m and v (less memory traffic and no second square root and division;
  // the same result). It may be `grads` itself when the caller no longer needs the gradients, as the CPU
  // backend, whose next backward overwrites them.
  void step(float* params, const float* grads, double lr, double grad_factor, uint16_t* params_bf16 = nullptr,
            float* updates = nullptr);

  int64_t steps_done() const { return t_; }
  void set_state(int64_t steps_done) { t_ = steps_done; }  // tests and restarts
  // The run's moments: element i is the layout's element first_element() + i.
  std::vector<float>& m() { return m_; }
  std::vector<float>& v() { return v_; }
  size_t first_element() const { return base_; }

 private:
  const model::ParamLayout& layout_;
  LambHyper h_;
  size_t base_ = 0;  // the run's first element in the flat buffer
  std::vector<float> m_, v_;
  struct Block {
    int tensor;
    int64_t first, count;
  };
  std::vector<Block> blocks_;    // every tensor cut into blocks of 2048 elements, in layout order
  std::vector<double> partial_;  // per block: Σw², Σu²
  std::vector<float> scale_;     // per tensor: lr · trust ratio
  int64_t t_ = 0;
};

}  // namespace bert::optim
