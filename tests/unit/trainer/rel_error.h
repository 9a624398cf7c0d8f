// ‖a − b‖ / ‖b‖ over a tensor: how the trainer's unit tests compare an op or the model with its reference.
#pragma once
#include <cmath>
#include <vector>

namespace bert::test {

// Against a float64 fixture. A reference that is zero in theory (the attention key biases: softmax
// ignores a per-query constant) holds only rounding noise; there ‖a‖ itself must be below 1e-6.
inline double rel_error(const float* a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  if (std::sqrt(den) < 1e-12) return std::sqrt(num) / 1e-1;
  return std::sqrt(num) / std::sqrt(den);
}

// Between two float tensors of the same size (op against its float reference).
inline double rel_error(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    num += d * d;
    den += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(num / den);
}

}  // namespace bert::test
