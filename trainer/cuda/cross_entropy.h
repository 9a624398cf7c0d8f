// Softmax cross-entropy over rows of bf16 logits: the MLM loss on the gathered masked rows
// (vocab columns, row stride ld >= vocab, e.g. 30528) and the NSP loss (vocab 2).
//   loss[r]    = logsumexp(logits[r, :vocab]) - logits[r, label[r]]
//   dlogits[r] = grad_scale * (softmax(logits[r]) - onehot(label[r])); columns [vocab, ld) are set to 0
//   correct[r] = argmax(logits[r]) == label[r]   (lowest index wins a tie)
// A row with label < 0 is ignored: loss 0, correct 0, dlogits 0. dlogits may alias logits.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace bert::cuda {

struct CrossEntropyArgs {
  const __nv_bfloat16* logits = nullptr;
  const int32_t* labels = nullptr;
  int rows = 0, vocab = 0, ld = 0;
  float grad_scale = 1.f;
  __nv_bfloat16* dlogits = nullptr;  // nullable (eval)
  float* loss = nullptr;             // [rows]
  int32_t* correct = nullptr;        // nullable, [rows]
  const float* grad_scale_dev = nullptr;  // nullable: dlogits are further multiplied by *grad_scale_dev
};

void cross_entropy(const CrossEntropyArgs& a, cudaStream_t stream);

// *out = 1 / max(1, number of labels >= 0): the mean-loss gradient factor of a padded (static-shape)
// label array, computed on the device so a captured CUDA graph serves every batch.
void inverse_valid_count(const int32_t* labels, int n, float* out, cudaStream_t stream);

}  // namespace bert::cuda
