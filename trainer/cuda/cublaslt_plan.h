// One cuBLASLt call shape's descriptors and the heuristic's algorithm for it, made on the shape's first
// call and kept (Gemm, Fp8Gemm): pointers are no part of it (the heuristic does not see them), so the
// epilogue's and the scales' pointers are set on the cached descriptor before each call. Under graph
// capture that is host work at capture time only.
#pragma once
#include <cublasLt.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>

#include "trainer/cuda/check.h"

namespace bert::cuda {

struct LtPlan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;  // c null: C is D
  bool found = false;
  cublasLtMatmulAlgo_t algo{};
  LtPlan() = default;
  LtPlan(const LtPlan&) = delete;
  LtPlan& operator=(const LtPlan&) = delete;
  ~LtPlan() {
    for (cublasLtMatrixLayout_t l : {d, c, b, a})
      if (l) cublasLtMatrixLayoutDestroy(l);
    if (op) cublasLtMatmulDescDestroy(op);
  }
  cublasLtMatrixLayout_t c_layout() const { return c ? c : d; }
};

// Plans by call shape: K is a std::array of the shape's integers.
template <size_t N>
using LtPlanCache = std::map<std::array<int64_t, N>, std::unique_ptr<LtPlan>>;

template <typename T>
void set_lt_attr(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr, const T& v) {
  BERT_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(d, attr, &v, sizeof(v)));
}

}  // namespace bert::cuda
