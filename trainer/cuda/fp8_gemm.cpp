#include "trainer/cuda/fp8_gemm.h"

#include <array>
#include <memory>
#include <string>

#include "trainer/cuda/check.h"
#include "trainer/cuda/cublaslt_plan.h"

namespace bert::cuda {
namespace {

cudaDataType_t cuda_type(model::Fp8Format f) { return f == model::Fp8Format::e4m3 ? CUDA_R_8F_E4M3 : CUDA_R_8F_E5M2; }

cudaDataType_t cuda_type(Fp8OutType t) {
  switch (t) {
    case Fp8OutType::bf16: return CUDA_R_16BF;
    case Fp8OutType::f32: return CUDA_R_32F;
    case Fp8OutType::e4m3: return CUDA_R_8F_E4M3;
    case Fp8OutType::e5m2: return CUDA_R_8F_E5M2;
  }
  return CUDA_R_16BF;
}

const char* fp8_name(model::Fp8Format f) { return f == model::Fp8Format::e4m3 ? "e4m3" : "e5m2"; }

const char* out_name(Fp8OutType t) {
  switch (t) {
    case Fp8OutType::bf16: return "bf16";
    case Fp8OutType::f32: return "f32";
    case Fp8OutType::e4m3: return "e4m3";
    case Fp8OutType::e5m2: return "e5m2";
  }
  return "?";
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// The largest power of two (at most 256) dividing the address.
uint32_t alignment(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  uint32_t al = 256;
  while (al > 1 && a % al) al /= 2;
  return al;
}

// The per-call pointers of the descriptor: both scale_inv, and where given D's scale, its amax and the bias.
void set_pointers(cublasLtMatmulDesc_t op, const Fp8GemmArgs& a) {
  set_lt_attr(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(a.w.scale_inv));
  set_lt_attr(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(a.x.scale_inv));
  if (a.d_scale) set_lt_attr(op, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, static_cast<const void*>(a.d_scale));
  if (a.amax_d) set_lt_attr(op, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, static_cast<void*>(a.amax_d));
  if (a.bias) set_lt_attr(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, static_cast<const void*>(a.bias));
}

std::string shape(const Fp8GemmArgs& a) {
  return std::to_string(a.rows) + "x" + std::to_string(a.cols) + "x" + std::to_string(a.k);
}

}  // namespace

Fp8Gemm::Fp8Gemm(LtContext& lt) : lt_(lt) {}

Fp8Gemm::~Fp8Gemm() {
  if (c16_) cudaFree(c16_);
}

void Fp8Gemm::run(const Fp8GemmArgs& a, cudaStream_t stream) {
  if (a.rows == 0 || a.cols == 0) return;
  const bool fp8_out = a.d_type == Fp8OutType::e4m3 || a.d_type == Fp8OutType::e5m2;
  const int64_t ldx = a.x.ld ? a.x.ld : a.k, ldw = a.w.ld ? a.w.ld : a.k, ldd = a.ldd ? a.ldd : a.cols;
  if (a.rows % 16 || a.cols % 16 || a.k % 16 || ldx % 16 || ldw % 16 || ldd % 16 || !aligned16(a.x.p) ||
      !aligned16(a.w.p) || !aligned16(a.d) || !a.x.scale_inv || !a.w.scale_inv)
    throw CudaError("Fp8Gemm: " + shape(a) + ": rows, cols, k and row strides must be multiples of 16, pointers "
                    "16-byte aligned, both scale_inv given");
  // cuBLASLt refuses (NOT_SUPPORTED, every algorithm) a scale pointer off the 16-byte grid (cuda_fp8_gemm)
  if (!aligned16(a.x.scale_inv) || !aligned16(a.w.scale_inv) || (a.d_scale && !aligned16(a.d_scale)) ||
      (a.amax_d && !aligned16(a.amax_d)))
    throw CudaError("Fp8Gemm: " + shape(a) + ": scale_inv, d_scale and amax_d must be 16-byte aligned");
  if (a.x.format == model::Fp8Format::e5m2 && a.w.format == model::Fp8Format::e5m2)
    throw CudaError("Fp8Gemm: E5M2 x E5M2 has no cuBLASLt kernel");
  if (fp8_out ? (a.beta != 0.f || a.bias || !a.d_scale) : (a.d_scale || a.amax_d))
    throw CudaError("Fp8Gemm: an FP8 output takes d_scale (and amax_d), no beta or bias; other outputs neither");
  if (a.bias && a.d_type != Fp8OutType::bf16) throw CudaError("Fp8Gemm: a bias needs the bf16 output");

  // C is D itself, except for an FP8 D: a bf16 C of its own (never read: beta 0), as NVIDIA's FP8 sample
  void* c = a.d;
  if (fp8_out) {
    const size_t bytes = static_cast<size_t>(a.cols) * static_cast<size_t>(a.rows) * 2;
    if (bytes > c16_bytes_) {
      if (c16_) BERT_CUDA_CHECK(cudaFree(c16_));
      c16_ = nullptr;
      c16_bytes_ = 0;
      BERT_CUDA_CHECK(cudaMalloc(&c16_, bytes));
      c16_bytes_ = bytes;
    }
    c = c16_;
  }
  // which call of the model it was: its shape, types, strides and alignments
  const auto what = [&] {
    return shape(a) + " (rows x cols x k; x " + fp8_name(a.x.format) + " ld " + std::to_string(ldx) + " at " +
           std::to_string(alignment(a.x.p)) + " B, w " + fp8_name(a.w.format) + " ld " + std::to_string(ldw) + " at " +
           std::to_string(alignment(a.w.p)) + " B, d " + out_name(a.d_type) + " ld " + std::to_string(ldd) + " at " +
           std::to_string(alignment(a.d)) + " B, beta " + std::to_string(a.beta) +
           (a.bias ? ", bias at " + std::to_string(alignment(a.bias)) + " B" : std::string()) +
           (a.fast_accum ? ", fast accumulation" : "") + ")";
  };

  const LtPlanKey key{a.rows, a.cols, a.k, ldx, ldw, ldd, static_cast<int64_t>(a.x.format),
                      static_cast<int64_t>(a.w.format), static_cast<int64_t>(a.d_type),
                      (a.bias ? 1 : 0) | (a.d_scale ? 2 : 0) | (a.amax_d ? 4 : 0) | (a.fast_accum ? 8 : 0),
                      alignment(a.x.p), alignment(a.w.p), alignment(a.d)};
  // Column-major: D (cols x rows) = W^T (cols x k, W stored k x cols: op T) * X (k x rows, op N).
  LtPlan& p = (*plans_).get(key, CUBLAS_OP_T, CUBLAS_OP_N, [&](LtPlan& n) {
    set_lt_attr(n.op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, static_cast<int8_t>(a.fast_accum ? 1 : 0));
    if (a.bias) {
      set_lt_attr(n.op, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_BIAS);
      set_lt_attr(n.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, static_cast<int32_t>(CUDA_R_16BF));
    }
    set_pointers(n.op, a);  // the heuristic sees which scales and epilogue pointers there are
    BERT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&n.a, cuda_type(a.w.format), a.k, a.cols, ldw));
    BERT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&n.b, cuda_type(a.x.format), a.k, a.rows, ldx));
    BERT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&n.c, fp8_out ? CUDA_R_16BF : cuda_type(a.d_type), a.cols, a.rows,
                                                 fp8_out ? a.cols : ldd));
    BERT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&n.d, cuda_type(a.d_type), a.cols, a.rows, ldd));
    // C (an FP8 output's) is c16_, from cudaMalloc
    const uint32_t al[4] = {alignment(a.w.p), alignment(a.x.p), alignment(c), alignment(a.d)};
    const cublasStatus_t hs = pick_algo(lt_.handle(), n, lt_.workspace_bytes(), al);
    if (!n.found)
      throw CudaError("cuBLASLt: no FP8 algorithm for " + what() + ": " + cublasLtGetStatusString(hs) +
                      " (FP8 needs sm_89 or later)");
  });
  set_pointers(p.op, a);
  const float alpha = 1.f;
  const cublasStatus_t st = cublasLtMatmul(lt_.handle(), p.op, &alpha, a.w.p, p.a, a.x.p, p.b, &a.beta, c, p.c, a.d,
                                           p.d, &p.algo, lt_.workspace(), lt_.workspace_bytes(), stream);
  if (st != CUBLAS_STATUS_SUCCESS)
    throw CudaError("cuBLASLt FP8 matmul " + what() + ": the heuristic's algorithm refused: " +
                    cublasLtGetStatusString(st));
}

}  // namespace bert::cuda
