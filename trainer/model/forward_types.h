// What a model's forward pass takes, returns and throws: the same types for the CPU model
// (trainer/cpu/bert_cpu.h) and the CUDA model (trainer/cuda/cuda_model.h).
#pragma once
#include <cstdint>

#include "common/user_error.h"

namespace bert::model {

// A batch that does not fit the model (token id >= vocab, position >= max_position, ...) or the
// buffers a CUDA model was sized for; also a model the CUDA kernels cannot run (head dim != 64, ...).
using BatchError = bert::UserError;

struct DropoutContext {
  bool enabled = false;     // training: true; eval and reference tests: false
  uint64_t seed = 0;
  uint32_t rank = 0;
  uint32_t micro_step = 0;  // see dropout_rng.h
};

struct StepStats {
  double loss = 0, mlm_loss = 0, nsp_loss = 0;  // means over this batch
  int64_t masked = 0, mlm_correct = 0;          // MLM accuracy counts
  int64_t sequences = 0, nsp_correct = 0;
};

}  // namespace bert::model
