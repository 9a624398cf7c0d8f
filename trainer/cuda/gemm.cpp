#include "trainer/cuda/gemm.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "trainer/cuda/cast.h"
#include "trainer/cuda/check.h"
#include "trainer/cuda/cublaslt_plan.h"
#include "trainer/cuda/column_sum.h"

namespace bert::cuda {

// One cuBLASLt call in column-major terms: D[m, n] = alpha op(A) op(B) + beta C, C = D.
struct Gemm::Call {
  cublasOperation_t op_a = CUBLAS_OP_N, op_b = CUBLAS_OP_N;
  int m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int64_t lda = 0;
  const void* b = nullptr;
  int64_t ldb = 0;
  void* d = nullptr;
  int64_t ldd = 0;
  cudaDataType_t d_type = CUDA_R_16BF;
  float beta = 0.f;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void* bias = nullptr;  // bias (input) or bias gradient (output)
  void* aux = nullptr;
  int64_t aux_ld = 0;
  int batch = 1;  // strided batch: element offsets between consecutive matrices
  int64_t stride_a = 0, stride_b = 0, stride_d = 0, stride_bias = 0;
};

namespace {

void set_batch(cublasLtMatrixLayout_t l, int count, int64_t stride) {
  if (count <= 1) return;
  BERT_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
  BERT_CUBLAS_CHECK(
      cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)));
}

}  // namespace

Gemm::Gemm(LtContext& lt) : lt_(lt) {}

Gemm::~Gemm() {
  if (colsum_scratch_) cudaFree(colsum_scratch_);
}

bool Gemm::run(const Call& c, cudaStream_t stream, bool may_fail) {
  if (c.m == 0 || c.n == 0) return true;
  const LtPlanKey key{c.op_a, c.op_b, c.m, c.n, c.k, c.lda, c.ldb, c.ldd, c.d_type, c.epilogue, c.bias != nullptr,
                      c.aux != nullptr, c.aux_ld, c.batch, c.stride_a, c.stride_b, c.stride_d, c.stride_bias};
  LtPlan& p = (*plans_).get(key, c.op_a, c.op_b, [&](LtPlan& n) {
    set_lt_attr(n.op, CUBLASLT_MATMUL_DESC_EPILOGUE, c.epilogue);
    if (c.bias) set_lt_attr(n.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, c.bias);
    if (c.aux) {
      set_lt_attr(n.op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, c.aux);
      set_lt_attr(n.op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, c.aux_ld);
    }
    const bool ta = c.op_a != CUBLAS_OP_N, tb = c.op_b != CUBLAS_OP_N;
    BERT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&n.a, CUDA_R_16BF, ta ? c.k : c.m, ta ? c.m : c.k, c.lda));
    BERT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&n.b, CUDA_R_16BF, tb ? c.n : c.k, tb ? c.k : c.n, c.ldb));
    BERT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&n.d, c.d_type, c.m, c.n, c.ldd));
    set_batch(n.a, c.batch, c.stride_a);
    set_batch(n.b, c.batch, c.stride_b);
    set_batch(n.d, c.batch, c.stride_d);
    if (c.batch > 1 && c.bias) set_lt_attr(n.op, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, c.stride_bias);
    const cublasStatus_t hs = pick_algo(lt_.handle(), n, lt_.workspace_bytes());
    if (!may_fail) BERT_CUBLAS_CHECK(hs);
  });
  if (!p.found) {
    if (may_fail) return false;
    throw CudaError("cuBLASLt: no algorithm for m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
                    " k=" + std::to_string(c.k) + " epilogue=" + std::to_string(static_cast<int>(c.epilogue)));
  }
  if (c.bias) set_lt_attr(p.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, c.bias);
  if (c.aux) set_lt_attr(p.op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, c.aux);
  const float alpha = 1.f;
  BERT_CUBLAS_CHECK(cublasLtMatmul(lt_.handle(), p.op, &alpha, c.a, p.a, c.b, p.b, &c.beta, c.d, p.d, c.d, p.d, &p.algo,
                                   lt_.workspace(), lt_.workspace_bytes(), stream));
  return true;
}

void Gemm::forward(const __nv_bfloat16* x, const __nv_bfloat16* w, WeightLayout layout, const __nv_bfloat16* bias,
                   __nv_bfloat16* y, int tokens, int in, int out, bool gelu, __nv_bfloat16* pre_act,
                   cudaStream_t stream, int ld_y, const GemmBatch& batch) {
  // Y^T (out x T) = W_c (out x in) · X^T (in x T)
  if (gelu && batch.count > 1) throw CudaError("Gemm::forward: GELU epilogue with a batch is not supported");
  Call c;
  c.batch = batch.count;
  c.stride_a = batch.stride_w;
  c.stride_d = batch.stride_y;
  c.stride_bias = batch.stride_bias;
  c.m = out; c.n = tokens; c.k = in;
  c.op_a = layout == WeightLayout::KernelInOut ? CUBLAS_OP_N : CUBLAS_OP_T;
  c.a = w; c.lda = layout == WeightLayout::KernelInOut ? out : in;
  c.b = x; c.ldb = in;
  c.d = y; c.ldd = ld_y ? ld_y : out;
  c.bias = bias;
  if (gelu) {
    if (!bias || !pre_act) throw CudaError("Gemm::forward: GELU needs a bias and a pre-activation buffer");
    c.epilogue = CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
    c.aux = pre_act;
    c.aux_ld = out;
  } else if (bias) {
    c.epilogue = CUBLASLT_EPILOGUE_BIAS;
  }
  if (run(c, stream, c.batch > 1)) return;
  // No batched algorithm with this epilogue: one call per batch entry.
  for (int i = 0; i < batch.count; ++i) {
    Call one = c;
    one.batch = 1;
    one.a = w + i * batch.stride_w;
    one.d = y + i * batch.stride_y;
    one.bias = bias ? bias + i * batch.stride_bias : nullptr;
    run(one, stream);
  }
}

void Gemm::backward_data(const __nv_bfloat16* dy, const __nv_bfloat16* w, WeightLayout layout, __nv_bfloat16* dx,
                         int tokens, int in, int out, const __nv_bfloat16* gelu_aux, float beta,
                         cudaStream_t stream, int ld_dy) {
  // dX^T (in x T) = W_c^T (in x out) · dY^T (out x T)
  if (gelu_aux && beta != 0.f) throw CudaError("Gemm::backward_data: the GELU epilogue cannot accumulate");
  Call c;
  c.m = in; c.n = tokens; c.k = out;
  c.op_a = layout == WeightLayout::KernelInOut ? CUBLAS_OP_T : CUBLAS_OP_N;
  c.a = w; c.lda = layout == WeightLayout::KernelInOut ? out : in;
  c.b = dy; c.ldb = ld_dy ? ld_dy : out;
  c.d = dx; c.ldd = in;
  c.beta = beta;
  if (gelu_aux) {
    c.epilogue = CUBLASLT_EPILOGUE_DGELU;
    c.aux = const_cast<__nv_bfloat16*>(gelu_aux);
    c.aux_ld = in;
  }
  run(c, stream);
}

void Gemm::backward_weight(const __nv_bfloat16* x, const __nv_bfloat16* dy, WeightLayout layout, float* dw,
                           float* dbias, int tokens, int in, int out, float beta, cudaStream_t stream, int ld_dy,
                           const GemmBatch& batch) {
  const int64_t ldy = ld_dy ? ld_dy : out;
  Call c;
  c.batch = batch.count;
  c.stride_d = batch.stride_w;
  c.stride_bias = batch.stride_bias;
  c.k = tokens;
  c.d = dw;
  c.d_type = CUDA_R_32F;
  c.beta = beta;
  c.bias = dbias;
  if (layout == WeightLayout::KernelInOut) {
    // dW (row-major [in, out]) = col-major (out x in) = dY^T (out x T) · X (T x in)
    c.m = out; c.n = in;
    c.a = dy; c.lda = ldy; c.op_a = CUBLAS_OP_N; c.stride_a = batch.stride_y;
    c.b = x; c.ldb = in; c.op_b = CUBLAS_OP_T;
    c.ldd = out;
    if (dbias) c.epilogue = CUBLASLT_EPILOGUE_BGRADA;
  } else {
    // dW (row-major [out, in]) = col-major (in x out) = X^T (in x T) · dY (T x out)
    c.m = in; c.n = out;
    c.a = x; c.lda = in; c.op_a = CUBLAS_OP_N;
    c.b = dy; c.ldb = ldy; c.op_b = CUBLAS_OP_T; c.stride_b = batch.stride_y;
    c.ldd = in;
    if (dbias) c.epilogue = CUBLASLT_EPILOGUE_BGRADB;
  }
  if (run(c, stream, dbias != nullptr)) return;
  // No BGRAD algorithm for this shape/layout: plain GEMM, then the bias gradient as column sums of dY.
  c.epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  c.bias = nullptr;
  run(c, stream);
  for (int i = 0; i < batch.count; ++i) {
    const size_t need = column_sum_bf16_scratch_floats(tokens, out);
    if (need > colsum_scratch_floats_) {
      BERT_CUDA_CHECK(cudaStreamSynchronize(stream));
      if (colsum_scratch_) BERT_CUDA_CHECK(cudaFree(colsum_scratch_));
      colsum_scratch_ = nullptr;
      BERT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&colsum_scratch_), need * sizeof(float)));
      colsum_scratch_floats_ = need;
    }
    column_sum_bf16(dy + i * batch.stride_y, tokens, out, static_cast<int>(ldy), dbias + i * batch.stride_bias,
                    colsum_scratch_, stream);
  }
}

void Gemm::dense_backward(const DenseBackwardArgs& a, cudaStream_t stream) {
  const GemmBatch& b = a.batch;
  if (a.db && !a.bias_scratch) throw CudaError("Gemm::dense_backward: a bias gradient needs bias_scratch");
  for (int i = 0; i < b.count; ++i)
    backward_data(a.dy + i * b.stride_y, a.w + i * b.stride_w, a.layout, a.dx, a.tokens, a.in, a.out, a.gelu_aux,
                  i == 0 ? a.dx_beta : 1.f, stream, a.ld_dy);
  // backward_weight overwrites its bias gradient: it goes to the scratch, then is added into db
  backward_weight(a.x, a.dy, a.layout, a.dw, a.db ? a.bias_scratch : nullptr, a.tokens, a.in, a.out, 1.f, stream,
                  a.ld_dy, GemmBatch{b.count, b.stride_w, a.out, b.stride_y});
  if (!a.db) return;
  for (int i = 0; i < b.count; ++i)
    accumulate_f32(a.bias_scratch + i * a.out, a.db + i * b.stride_bias, static_cast<size_t>(a.out), stream);
}

}  // namespace bert::cuda
