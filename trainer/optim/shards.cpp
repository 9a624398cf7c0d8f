#include "trainer/optim/shards.h"

#include <cmath>
#include <stdexcept>

namespace bert::optim {

std::vector<size_t> Shards::byte_bounds(size_t element_bytes) const {
  std::vector<size_t> b(bounds);
  for (size_t& x : b) x *= element_bytes;
  return b;
}

Shards shard_tensors(const model::ParamLayout& layout, int parts) {
  if (parts < 1) throw std::invalid_argument("shard_tensors: parts must be >= 1");
  const size_t n = layout.tensors.size();
  Shards s;
  s.first_tensor.push_back(0);
  // run r starts at the tensor boundary nearest to r/parts of the buffer (never before run r-1's start)
  for (int r = 1; r < parts; ++r) {
    const double target = static_cast<double>(layout.total) * r / parts;
    size_t best = s.first_tensor.back();
    for (size_t t = best; t <= n; ++t) {
      const double at = t == n ? static_cast<double>(layout.total) : static_cast<double>(layout.tensors[t].offset);
      const double best_at = best == n ? static_cast<double>(layout.total) : static_cast<double>(layout.tensors[best].offset);
      if (std::abs(at - target) < std::abs(best_at - target)) best = t;
      if (at > target) break;
    }
    s.first_tensor.push_back(best);
  }
  s.first_tensor.push_back(n);
  for (const size_t t : s.first_tensor) s.bounds.push_back(t == n ? layout.total : layout.tensors[t].offset);
  return s;
}

}  // namespace bert::optim
