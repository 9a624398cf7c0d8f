// Attention through cuDNN's fused scaled-dot-product attention (its graph API, through the header-only
// cudnn-frontend; NVIDIA's own BERT runs this kernel family through Transformer Engine), with the same
// contract as our kernels (attention.h): head dim 64, every sequence of a batch attending only to itself,
// padding rows of the output zero, dQKV fully written (0 outside sequences).
//   - The batch is ragged: one entry per sequence (its length, where its rows start: cudnn_attention_maths.h),
//     so padded rows and packed rows (several sequences a row) are one layout; Q, K, V read the fused
//     [tokens, 3 x hidden] qkv tensor in place, O and dO are [tokens, hidden].
//   - The softmax statistics (what the backward reads) are [entries, heads, seq_len] fp32.
//   - Dropout on the probabilities from cuDNN's own Philox, keyed per (run seed, rank, micro-step, layer)
//     by a device kernel (the micro-step may come from device memory, as a captured graph needs); the
//     backward draws the same masks from the same key. Not the CPU trainer's masks.
//   - One cuDNN graph per (entries, seq_len, heads, dropout, forward for training / for evaluation /
//     backward), built on its first use and kept; execution queues work on the stream only (capturable).
// create() gives null in a build without cuDNN (no_cudnn_attention.cpp).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "trainer/cuda/attention.h"
#include "trainer/cuda/dropout_spec.h"

namespace bert::cuda {

struct CudnnForwardArgs {
  AttentionShape shape;
  const __nv_bfloat16* qkv = nullptr;
  DropoutSpec dropout;                 // p 0: none (evaluation)
  bool training = true;                // writes the statistics for the backward
  __nv_bfloat16* out = nullptr;        // [tokens, heads * 64]
  float* stats = nullptr;              // cudnn_attention_stats_floats(shape)
  int64_t* rng = nullptr;              // 2 int64 (seed, offset), written here when dropout is on; the backward reads them
  // Tests only (cuDNN calls it a debugging output): the dropout mask cuDNN drew, 1 kept / 0 dropped, fp32
  // [entries, heads, seq_len, seq_len]; its own graph.
  float* dropout_mask = nullptr;
};

struct CudnnBackwardArgs : AttentionBackwardInputs {
  const float* stats = nullptr;
  DropoutSpec dropout;                 // the forward's (its p)
  const int64_t* rng = nullptr;        // the forward's
  __nv_bfloat16* dqkv = nullptr;       // [tokens, 3 * heads * 64]
};

size_t cudnn_attention_stats_floats(const AttentionShape& s);

class CudnnAttention {
 public:
  // Null in a build without cuDNN.
  static std::unique_ptr<CudnnAttention> create();
  // The loaded cuDNN library's version (cudnnGetVersion: 91900 for 9.19.0); 0 in a build without cuDNN.
  static size_t library_version();
  virtual ~CudnnAttention() = default;

  // The batch's entries for the passes that follow (queued on the stream: sequence lengths and ragged
  // offsets from the batch's device arrays). shape.num_sequences entries; first/lens on the device.
  virtual void set_batch(const AttentionShape& shape, const int32_t* first, const int32_t* lens,
                         cudaStream_t stream) = 0;
  virtual void forward(const CudnnForwardArgs& a, cudaStream_t stream) = 0;
  virtual void backward(const CudnnBackwardArgs& a, cudaStream_t stream) = 0;
};

// The per-entry arrays of set_batch (entries = shape.num_sequences): lengths [entries], ragged offsets of
// the qkv tensor and of the output [entries + 1]. One small kernel (cudnn_attention_prep.cu).
void cudnn_attention_entries(const AttentionShape& shape, const int32_t* first, const int32_t* lens, int32_t* seq_len,
                             int32_t* qkv_offset, int32_t* out_offset, cudaStream_t stream);
// rng[0] = the dropout's Philox seed for spec (its micro-step from the device when set), rng[1] = 0.
void cudnn_attention_seed(const DropoutSpec& spec, int64_t* rng, cudaStream_t stream);

}  // namespace bert::cuda
