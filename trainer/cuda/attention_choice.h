// Which attention kernels the CUDA model runs: cuDNN's fused scaled-dot-product attention
// (cudnn_attention.h) where the build has cuDNN, else ours (attention.h). BERT_CUDA_ATTENTION chooses:
//   auto   (default) cuDNN where the build has it, ours otherwise
//   cudnn  cuDNN; a build without it is a user error naming the variable
//   own    our kernels
// Read once, where the backend sizes its model (cuda_backend.cpp; trainer_throughput likewise). The
// profile's rows say which ran (attention.fwd / .bwd: ours; attention.cudnn.fwd / .bwd: cuDNN's).
#pragma once
#include <string>

#include "common/enum_names.h"

namespace bert::cuda {

enum class AttentionChoice { automatic, cudnn, own };
inline constexpr EnumNames<AttentionChoice, 3> kAttentionChoiceNames{
    {{AttentionChoice::automatic, "auto"}, {AttentionChoice::cudnn, "cudnn"}, {AttentionChoice::own, "own"}}};
inline constexpr const char* kAttentionChoiceVariable = "BERT_CUDA_ATTENTION";

// The word (unset or empty: auto); bert::UserError naming the variable and its words on any other.
AttentionChoice parse_attention_choice(const char* word);
AttentionChoice attention_choice_from_env();

// Whether this build has cuDNN's attention (CMake option BERT_WITH_CUDNN, cuDNN and cudnn-frontend found).
bool cudnn_attention_built();
// Whether the model runs cuDNN's attention for this choice in this build; bert::UserError for `cudnn` in a
// build without it.
bool use_cudnn_attention(AttentionChoice choice, bool built = cudnn_attention_built());

}  // namespace bert::cuda
