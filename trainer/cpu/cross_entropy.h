// Softmax cross entropy over rows of logits (MLM over the vocabulary, NSP over 2 classes).
// cross_entropy: one vectorized float exp per logit (exp_approx), the row's sum in float lanes and the
// loss summed in double over rows.
#pragma once
#include <cstdint>

namespace bert::cpu {

struct CrossEntropyResult {
  double loss_sum = 0;   // Σ_rows −log softmax(logits)[label]
  int64_t correct = 0;   // rows whose argmax (first maximum) equals the label
};

// dlogits (optional, may alias logits) = grad_scale·(softmax − onehot(label)).
CrossEntropyResult cross_entropy(const float* logits, const int32_t* labels, int rows, int classes,
                                 float grad_scale, float* dlogits);
// The same in double with std::exp (cross_entropy_ref.cpp): the reference cross_entropy is tested against.
CrossEntropyResult cross_entropy_ref(const float* logits, const int32_t* labels, int rows, int classes,
                                     float grad_scale, float* dlogits);

}  // namespace bert::cpu
