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

// The heuristic's first algorithm for the plan's descriptors within `workspace` bytes, into p.algo
// (p.found: it named one); its status. alignments (nullable): A, B, C, D's in bytes. The heuristic
// assumes 256-byte-aligned matrices unless told, and an algorithm picked on that assumption is refused
// by cublasLtMatmul for a matrix at a smaller alignment (a column block, a tensor in a flat buffer).
inline cublasStatus_t pick_algo(cublasLtHandle_t handle, LtPlan& p, size_t workspace,
                                const uint32_t* alignments = nullptr) {
  cublasLtMatmulPreference_t pref = nullptr;
  cublasStatus_t st = cublasLtMatmulPreferenceCreate(&pref);
  if (st != CUBLAS_STATUS_SUCCESS) return st;
  st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace));
  constexpr cublasLtMatmulPreferenceAttributes_t kAlignment[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; alignments && i < 4 && st == CUBLAS_STATUS_SUCCESS; ++i)
    st = cublasLtMatmulPreferenceSetAttribute(pref, kAlignment[i], &alignments[i], sizeof(uint32_t));
  cublasLtMatmulHeuristicResult_t heur{};
  int found = 0;
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(handle, p.op, p.a, p.b, p.c_layout(), p.d, pref, 1, &heur, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  p.found = st == CUBLAS_STATUS_SUCCESS && found > 0;
  if (p.found) p.algo = heur.algo;
  return st;
}

}  // namespace bert::cuda
