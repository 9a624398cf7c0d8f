// BERT embeddings: word[id] + position[pos] + token_type[segment], for the compact token list.
#pragma once
#include <cstdint>

namespace bert::cpu {

void embedding_forward(const int32_t* ids, const int32_t* pos, const int8_t* seg, const float* word,
                       const float* position, const float* type, float* out, int t, int h);
// Scatter-adds dy into the three tables' gradients (serial: ids repeat).
void embedding_backward(const int32_t* ids, const int32_t* pos, const int8_t* seg, const float* dy, float* dword,
                        float* dposition, float* dtype, int t, int h);

}  // namespace bert::cpu
