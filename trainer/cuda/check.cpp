#include "trainer/cuda/check.h"

namespace bert::cuda {

void throw_cuda_error(const char* what, const char* detail, const char* file, int line) {
  throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " + detail);
}

}  // namespace bert::cuda
