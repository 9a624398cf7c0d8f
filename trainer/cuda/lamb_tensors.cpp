#include "trainer/cuda/lamb_tensors.h"

namespace bert::cuda {

std::vector<LambTensor> lamb_tensors(const model::ParamLayout& layout) {
  std::vector<LambTensor> t;
  t.reserve(layout.tensors.size());
  for (const auto& p : layout.tensors)
    t.push_back(LambTensor{static_cast<int64_t>(p.offset), static_cast<int64_t>(p.size), p.no_decay});
  return t;
}

}  // namespace bert::cuda
