// Fused multi-head self-attention for head dim 64 and sequences of at most 512 tokens, variable
// length: sequence s is the real tokens [seq_first_token[s], + seq_lengths[s]) of the rows*seq_len
// token array (the Batch's fields), and attends only within itself (block-diagonal for packs,
// padding excluded exactly).
// Flash-style: scores never reach device memory; forward keeps the row logsumexp for backward.
//   qkv  [tokens, 3 * heads * 64] bf16: columns Q | K | V, each laid out [head, 64] (fused QKV GEMM)
//   out  [tokens, heads * 64] bf16 = softmax(Q K^T / 8) with dropout, times V; rows of tokens in no
//        sequence are set to 0.
// Dropout on the probabilities uses dropout_spec.h with element (q * heads + head) * seq_len + k
// for flat query token q and key position k in the sequence; the normaliser uses undropped probabilities.
// keep_bits (optional, dropout on, seq_len % 32 == 0): the forward writes every keep flag, one bit per
// element, and the backward reads them instead of drawing the masks again: word
// (head * tokens + q) * (seq_len / 32) + k / 32, bit k % 32, for query token q and key position k
// (words of queries outside every sequence, and of keys past a sequence's end, are not written).
// Pointers must be 32-byte aligned (tensor-core fragment loads).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "trainer/cuda/dropout_spec.h"

namespace bert::cuda {

constexpr int kAttentionHeadDim = 64;
constexpr int kAttentionMaxSeq = 512;

struct AttentionShape {
  int tokens = 0;         // rows * seq_len
  int seq_len = 0;        // row length (<= 512)
  int heads = 0;
  int num_sequences = 0;
  int max_seqlen = 0;     // bound on any sequence length (sizes the grid); <= seq_len
};

struct AttentionForwardArgs {
  AttentionShape shape;
  const __nv_bfloat16* qkv = nullptr;
  const int32_t* seq_first_token = nullptr;  // device, [num_sequences]
  const int32_t* seq_lengths = nullptr;      // device, [num_sequences]
  DropoutSpec dropout;
  __nv_bfloat16* out = nullptr;
  float* lse = nullptr;                 // [heads, tokens] natural-log logsumexp of the scaled scores
  uint32_t* keep_bits = nullptr;        // [heads, tokens, seq_len / 32] (attention_keep_words) or null
};
// Words of the keep bits for a shape (0 where seq_len % 32 != 0: no keep bits then).
size_t attention_keep_words(const AttentionShape& s);
void attention_forward(const AttentionForwardArgs& a, cudaStream_t stream);

// What a backward of attention (ours; cuDNN's, cudnn_attention.h) reads of its forward and the next layer:
// the shape, the fused QKV input, the output and the output's gradient.
struct AttentionBackwardInputs {
  AttentionShape shape;
  const __nv_bfloat16* qkv = nullptr;
  const __nv_bfloat16* out = nullptr;
  const __nv_bfloat16* dout = nullptr;
};

struct AttentionBackwardArgs : AttentionBackwardInputs {
  const float* lse = nullptr;
  const int32_t* seq_first_token = nullptr;
  const int32_t* seq_lengths = nullptr;
  DropoutSpec dropout;
  __nv_bfloat16* dqkv = nullptr;        // [tokens, 3 * heads * 64], fully written (0 outside sequences)
  float* scratch = nullptr;             // attention_backward_scratch_floats(shape)
  const uint32_t* keep_bits = nullptr;  // the forward's (same dropout), or null: the masks drawn again
};
size_t attention_backward_scratch_floats(const AttentionShape& s);
void attention_backward(const AttentionBackwardArgs& a, cudaStream_t stream);

}  // namespace bert::cuda
