// FP8 GEMMs through cuBLASLt (sm_89, sm_90 and later), written for row-major tensors:
//   D[rows, cols] = x[rows, k] · w[cols, k]^T  (+ bias[cols])  (+ beta · D)
// Both operands are FP8 with the inner dimension k contiguous (cuBLASLt's FP8 kernels take only this
// "TN" layout), each with its dequantisation factor scale_inv (device scalar: the product is scaled by
// x.scale_inv * w.scale_inv), fp32 accumulation. E4M3 x E4M3, E4M3 x E5M2 and E5M2 x E4M3 (not E5M2 x
// E5M2). D is bf16 (bias bf16, optional), fp32 (weight gradients, beta 1 accumulates) or FP8 (scaled by
// d_scale, with the absolute maximum of the unscaled result written to amax_d). Fast accumulation (no
// periodic promotion of the partial sums) is Transformer Engine's choice for the forward GEMMs only.
// rows, cols, k and the row strides: multiples of 16; pointers 16-byte aligned.
#pragma once
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "trainer/cuda/cublaslt_context.h"
#include "trainer/model/fp8_format.h"

namespace bert::cuda {

// FP8 matrix units: Ada (sm_89), Hopper (sm_90) and later.
inline bool has_fp8_matrix_units(int major, int minor) { return major > 8 || (major == 8 && minor >= 9); }

struct Fp8Operand {
  const uint8_t* p = nullptr;
  model::Fp8Format format = model::Fp8Format::e4m3;
  const float* scale_inv = nullptr;  // device scalar
  int64_t ld = 0;                    // row stride (0: k)
};

enum class Fp8OutType { bf16, f32, e4m3, e5m2 };

struct Fp8GemmArgs {
  Fp8Operand x, w;
  int rows = 0, cols = 0, k = 0;
  void* d = nullptr;
  Fp8OutType d_type = Fp8OutType::bf16;
  int64_t ldd = 0;                        // 0: cols
  float beta = 0.f;                       // bf16 and fp32 outputs only
  const __nv_bfloat16* bias = nullptr;    // bf16 output only
  const float* d_scale = nullptr;         // FP8 output only
  float* amax_d = nullptr;                // FP8 output only
  bool fast_accum = false;
};

class Fp8Gemm {
 public:
  explicit Fp8Gemm(LtContext& lt);
  ~Fp8Gemm();

  // Descriptors and the heuristic's algorithm are made on a call shape's first call and kept (the
  // pointers set per call): a graph replays it, an eager call queries nothing again.
  void run(const Fp8GemmArgs& a, cudaStream_t stream);

 private:
  LtContext& lt_;
  LtPlans plans_;  // (not copyable, so neither is the class)
  // An FP8 D takes a bf16 C of its own (cuBLASLt refuses C == D with another type; beta is 0, so it is never
  // read): grown on first use, so FP8-output GEMMs run eagerly, outside graph capture.
  void* c16_ = nullptr;
  size_t c16_bytes_ = 0;
};

}  // namespace bert::cuda
