// Kernel attributes the launches set once per process (host side, nvcc only).
#pragma once
#include <cuda_runtime.h>

#include "trainer/cuda/check.h"

namespace bert::cuda {

// The largest shared-memory carveout for a kernel whose launch bounds count on several blocks an SM with
// much shared memory each (the carveout is a per-kernel preference; a split the driver picks by itself
// need not hold them). `done`: the caller's once-per-process flag.
template <class Kernel>
void prefer_shared_memory(Kernel kernel, bool& done) {
  if (done) return;
  BERT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       static_cast<int>(cudaSharedmemCarveoutMaxShared)));
  done = true;
}

}  // namespace bert::cuda
