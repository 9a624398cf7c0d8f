#include "trainer/cuda/cublaslt_context.h"

#include <cuda_runtime.h>

#include "trainer/cuda/check.h"
#include "trainer/cuda/cublaslt_plan.h"

namespace bert::cuda {

LtContext::LtContext(size_t workspace_bytes) : workspace_bytes_(workspace_bytes) {
  BERT_CUBLAS_CHECK(cublasLtCreate(&handle_));
  if (!workspace_bytes_) return;
  const cudaError_t e = cudaMalloc(&workspace_, workspace_bytes_);
  if (e != cudaSuccess) {
    cublasLtDestroy(handle_);
    BERT_CUDA_CHECK(e);
  }
}

LtContext::~LtContext() {
  if (workspace_) cudaFree(workspace_);
  if (handle_) cublasLtDestroy(handle_);
}

LtPlans::LtPlans() : cache_(new LtPlanCache) {}
LtPlans::~LtPlans() { delete cache_; }

}  // namespace bert::cuda
