// BERT input embeddings: sum[t, :] = word[id[t]] + position[pos[t]] + token_type[seg[t]]
// (then LayerNorm and dropout, done by layernorm.h and dropout.h). Tables are the bf16 compute
// copies; gradients go to the fp32 gradient buffer.
// Limits: hidden % 8 == 0 and hidden <= 1024 (checked).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace bert::cuda {

struct EmbeddingTables {
  const __nv_bfloat16* word = nullptr;        // [vocab, hidden]
  const __nv_bfloat16* position = nullptr;    // [max_positions, hidden]
  const __nv_bfloat16* token_type = nullptr;  // [2, hidden]
};
struct EmbeddingGrads {
  float* word = nullptr;        // accumulated (+=)
  float* position = nullptr;    // accumulated (+=)
  float* token_type = nullptr;  // accumulated (+=)
};
struct EmbeddingInputs {
  const int32_t* input_ids = nullptr;
  const int32_t* position_ids = nullptr;
  const int8_t* segment_ids = nullptr;
  const int8_t* input_mask = nullptr;  // backward skips tokens with mask 0 (their gradient is 0)
  int tokens = 0;
};

void embedding_forward(const EmbeddingInputs& in, const EmbeddingTables& t, __nv_bfloat16* sum, int hidden,
                       cudaStream_t stream);
// d_sum: gradient of the embedding sum. Word and position rows use fp32 atomics (order-dependent
// rounding in the last bit); the two token-type rows are reduced per block first.
void embedding_backward(const EmbeddingInputs& in, const __nv_bfloat16* d_sum, const EmbeddingGrads& g, int hidden,
                        cudaStream_t stream);

}  // namespace bert::cuda
