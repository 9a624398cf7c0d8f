// The rows of a cross entropy (cross_entropy.cpp and its reference, cross_entropy_ref.cpp): each row's loss
// and whether its first argmax is the label, summed over the rows in parallel (the loss in double).
#pragma once
#include <cstddef>
#include <cstdint>

#include "trainer/cpu/cross_entropy.h"

namespace bert::cpu {

struct CrossEntropyRow {
  double loss;
  bool correct;
};

// row(x, label, g): one row of logits x, its label, and its gradient g (null: none wanted; may alias x).
template <class Row>
CrossEntropyResult cross_entropy_rows(const float* logits, const int32_t* labels, int rows, int classes,
                                      float* dlogits, Row row) {
  double loss = 0;
  int64_t correct = 0;
#pragma omp parallel for schedule(static) reduction(+ : loss, correct)
  for (int r = 0; r < rows; ++r) {
    const size_t at = static_cast<size_t>(r) * classes;
    const CrossEntropyRow rr = row(logits + at, labels[r], dlogits ? dlogits + at : nullptr);
    loss += rr.loss;
    correct += rr.correct;
  }
  return {loss, correct};
}

}  // namespace bert::cpu
