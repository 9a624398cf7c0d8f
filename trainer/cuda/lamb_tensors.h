// The LAMB tensor table of a model's flat parameter layout (trainer/model/params.h).
#pragma once
#include <vector>

#include "trainer/cuda/lamb.h"
#include "trainer/model/params.h"

namespace bert::cuda {

std::vector<LambTensor> lamb_tensors(const model::ParamLayout& layout);

}  // namespace bert::cuda
