// The small kernels around cuDNN's attention: its per-entry arrays and the dropout's Philox key
// (cudnn_attention_maths.h). Built with or without cuDNN (they call nothing of it).
#include "trainer/cuda/check.h"
#include "trainer/cuda/cudnn_attention.h"
#include "trainer/cuda/cudnn_attention_maths.h"
#include "trainer/cuda/device_utils.cuh"

namespace bert::cuda {
namespace {

__global__ void entries_kernel(const int32_t* first, const int32_t* lens, int entries, int tokens, int hidden,
                               int32_t* seq_len, int32_t* qkv_offset, int32_t* out_offset) {
  const int b = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (b > entries) return;
  if (b < entries) seq_len[b] = cudnn_sequence_length(first, lens, b, entries);
  qkv_offset[b] = cudnn_ragged_offset(first, b, entries, tokens, 3 * hidden);
  out_offset[b] = cudnn_ragged_offset(first, b, entries, tokens, hidden);
}

__global__ void seed_kernel(DropoutSpec spec, int64_t* rng) {
  const DropoutSpec d = spec.resolved();
  rng[0] = static_cast<int64_t>(cudnn_dropout_seed(d.rng.seed, d.rng.rank, d.rng.micro_step, d.rng.stream));
  rng[1] = 0;
}

}  // namespace

size_t cudnn_attention_stats_floats(const AttentionShape& s) {
  return static_cast<size_t>(s.num_sequences) * static_cast<size_t>(s.heads) * static_cast<size_t>(s.seq_len);
}

void cudnn_attention_entries(const AttentionShape& shape, const int32_t* first, const int32_t* lens, int32_t* seq_len,
                             int32_t* qkv_offset, int32_t* out_offset, cudaStream_t stream) {
  const int n = shape.num_sequences + 1;
  entries_kernel<<<dev::ceil_div(n, 128), 128, 0, stream>>>(first, lens, shape.num_sequences, shape.tokens,
                                                            shape.heads * kAttentionHeadDim, seq_len, qkv_offset,
                                                            out_offset);
  BERT_CUDA_CHECK_LAUNCH();
}

void cudnn_attention_seed(const DropoutSpec& spec, int64_t* rng, cudaStream_t stream) {
  seed_kernel<<<1, 1, 0, stream>>>(spec, rng);
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
