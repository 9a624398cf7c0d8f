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

template <typename T>
void set_lt_attr(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr, const T& v) {
  BERT_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(d, attr, &v, sizeof(v)));
}

// A call shape's integers: a GEMM class keys its plans by as many as it needs (the rest stay 0).
using LtPlanKey = std::array<int64_t, 18>;

// One GEMM class's plans by call shape (owned by its LtPlans, cublaslt_context.h).
struct LtPlanCache {
  std::map<LtPlanKey, std::unique_ptr<LtPlan>> plans;

  // The plan kept for key, else a new one: its descriptor created (fp32 compute and scale) with the
  // operands' transposes, then completed by finish (attributes, layouts, the heuristic); a finish that
  // throws keeps nothing, and the next call of that shape tries again.
  template <class Finish>
  LtPlan& get(const LtPlanKey& key, cublasOperation_t op_a, cublasOperation_t op_b, Finish&& finish) {
    std::unique_ptr<LtPlan>& slot = plans[key];
    if (!slot) {
      auto p = std::make_unique<LtPlan>();
      BERT_CUBLAS_CHECK(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
      set_lt_attr(p->op, CUBLASLT_MATMUL_DESC_TRANSA, op_a);
      set_lt_attr(p->op, CUBLASLT_MATMUL_DESC_TRANSB, op_b);
      finish(*p);
      slot = std::move(p);
    }
    return *slot;
  }
};

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
