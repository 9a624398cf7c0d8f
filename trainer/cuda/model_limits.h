// What a CudaModel's buffers are sized for, and how it runs (cuda_model.h).
#pragma once

#include "trainer/cuda/attention_choice.h"
#include "trainer/cuda/fp8_options.h"

namespace bert::cuda {

struct CudaModelLimits {
  int rows = 0;
  int seq_len = 0;
  int max_sequences = 0;  // rows, or 3*rows for packs
  int max_masked = 0;     // rows * max_predictions_per_seq
  // Static shapes (for CUDA graphs): every batch is padded to max_sequences / max_masked (index -1,
  // label -1: ignored), attention is sized for seq_len, the dropout micro-step and the loss
  // normalisers are read from device memory. Same results as dynamic shapes.
  bool static_shapes = false;
  Fp8Options fp8 = {};  // run.precision fp8: the encoder's dense GEMMs in FP8 (fp8_dense.h)
  // Which attention kernels: cuDNN's where built (auto), or ours (attention_choice.h)
  AttentionChoice attention = AttentionChoice::automatic;
};

}  // namespace bert::cuda
