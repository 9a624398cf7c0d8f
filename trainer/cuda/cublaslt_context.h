// The one cuBLASLt context of a model: the handle and the workspace every GEMM class runs with (Gemm's
// bf16 dense layers and Fp8Gemm's FP8 ones take it by reference). Calls through one context must be
// queued on one stream at a time (the workspace is shared), as the model's are.
#pragma once
#include <cublasLt.h>

#include <cstddef>

namespace bert::cuda {

class LtContext {
 public:
  explicit LtContext(size_t workspace_bytes = 32u << 20);
  ~LtContext();
  LtContext(const LtContext&) = delete;
  LtContext& operator=(const LtContext&) = delete;

  cublasLtHandle_t handle() const { return handle_; }
  void* workspace() const { return workspace_; }
  size_t workspace_bytes() const { return workspace_bytes_; }

 private:
  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_;
};

struct LtPlanCache;  // cublaslt_plan.h

// One GEMM class's plans by call shape, owned (the map stays out of this header: its <memory> brings
// ::sync into the tests' scope).
class LtPlans {
 public:
  LtPlans();
  ~LtPlans();
  LtPlans(const LtPlans&) = delete;
  LtPlans& operator=(const LtPlans&) = delete;
  LtPlanCache& operator*() const { return *cache_; }

 private:
  LtPlanCache* cache_;
};

}  // namespace bert::cuda
