#include "trainer/cuda/check.h"
#include "trainer/cuda/device_utils.cuh"
#include "trainer/cuda/embedding.h"

#include <algorithm>
#include <string>

namespace bert::cuda {
namespace {

using dev::bf16;

// Block = hidden/8 threads, thread owns 8 columns; tokens in a grid-stride loop.
__global__ void embedding_forward_kernel(EmbeddingInputs in, EmbeddingTables t, bf16* sum, int hidden) {
  const int c = threadIdx.x * 8;
  for (int tok = blockIdx.x; tok < in.tokens; tok += gridDim.x) {
    float w[8], p[8], s[8];
    dev::load8(t.word + static_cast<size_t>(in.input_ids[tok]) * hidden + c, w);
    dev::load8(t.position + static_cast<size_t>(in.position_ids[tok]) * hidden + c, p);
    dev::load8(t.token_type + static_cast<size_t>(in.segment_ids[tok]) * hidden + c, s);
#pragma unroll
    for (int j = 0; j < 8; ++j) w[j] += p[j] + s[j];
    dev::store8(sum + static_cast<size_t>(tok) * hidden + c, w);
  }
}

__global__ void embedding_backward_kernel(EmbeddingInputs in, const bf16* d, EmbeddingGrads g, int hidden) {
  const int c = threadIdx.x * 8;
  float type_acc[2][8] = {};
  for (int tok = blockIdx.x; tok < in.tokens; tok += gridDim.x) {
    if (in.input_mask && in.input_mask[tok] == 0) continue;
    float v[8];
    dev::load8(d + static_cast<size_t>(tok) * hidden + c, v);
    float* gw = g.word + static_cast<size_t>(in.input_ids[tok]) * hidden + c;
    float* gp = g.position + static_cast<size_t>(in.position_ids[tok]) * hidden + c;
    const int seg = in.segment_ids[tok] ? 1 : 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      atomicAdd(gw + j, v[j]);
      atomicAdd(gp + j, v[j]);
      type_acc[seg][j] += v[j];
    }
  }
#pragma unroll
  for (int s = 0; s < 2; ++s)
#pragma unroll
    for (int j = 0; j < 8; ++j) atomicAdd(g.token_type + static_cast<size_t>(s) * hidden + c + j, type_acc[s][j]);
}

void check_hidden(int hidden) {
  if (hidden <= 0 || hidden % 8 != 0 || hidden > 1024)
    throw CudaError("embedding: hidden size must be a multiple of 8 and at most 1024, got " + std::to_string(hidden));
}

}  // namespace

void embedding_forward(const EmbeddingInputs& in, const EmbeddingTables& t, bf16* sum, int hidden,
                       cudaStream_t stream) {
  check_hidden(hidden);
  if (in.tokens <= 0) return;
  embedding_forward_kernel<<<std::min(in.tokens, 8192), hidden / 8, 0, stream>>>(in, t, sum, hidden);
  BERT_CUDA_CHECK_LAUNCH();
}

void embedding_backward(const EmbeddingInputs& in, const bf16* d_sum, const EmbeddingGrads& g, int hidden,
                        cudaStream_t stream) {
  check_hidden(hidden);
  if (in.tokens <= 0) return;
  // Fewer blocks than tokens so each block folds many tokens into its two token-type rows.
  embedding_backward_kernel<<<std::min(in.tokens, 1024), hidden / 8, 0, stream>>>(in, d_sum, g, hidden);
  BERT_CUDA_CHECK_LAUNCH();
}

}  // namespace bert::cuda
