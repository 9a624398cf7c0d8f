// The bf16 copy of the model's weights that bf16 GEMMs read (run.precision bf16): rounded once per
// optimizer step (LAMB writes it next to the fp32 master weights, Lamb::step's params_bf16) instead
// of at every GEMM call, and registered with gemm_bf16 (set_bf16_mirror) while it lives.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bert::cpu {

class Bf16Weights {
 public:
  Bf16Weights() = default;
  ~Bf16Weights();
  Bf16Weights(const Bf16Weights&) = delete;
  Bf16Weights& operator=(const Bf16Weights&) = delete;

  // Rounds all of params[0, n) into the copy and registers it for those weights (after loading or
  // replacing the fp32 weights; a later update keeps it in step through data()).
  void refresh(const float* params, size_t n);
  // For Lamb::step's params_bf16; null before refresh().
  uint16_t* data() { return copy_.empty() ? nullptr : copy_.data(); }

 private:
  std::vector<uint16_t> copy_;
};

}  // namespace bert::cpu
