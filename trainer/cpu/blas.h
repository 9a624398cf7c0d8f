// Which library runs the fp32 GEMMs: OpenBLAS (linked), Intel MKL (loaded at run time from Debian's
// libmkl-rt, non-free) or oneDNN's sgemm (linked for bf16 anyway). MKL's sgemm is 8-16 % faster than
// OpenBLAS's on an Intel Xeon (bench/cpu_gemm) and is what PyTorch's CPU path uses there; on other vendors'
// CPUs MKL takes slow generic paths. `auto`: MKL on Intel, oneDNN on other CPUs with AVX-512 (where Debian's
// OpenBLAS runs AVX2 kernels), OpenBLAS otherwise. Chosen once per process from
// BERT_CPU_BLAS = auto (default) | mkl | onednn | openblas.
#pragma once
#include "common/user_error.h"

namespace bert::cpu {

enum class BlasLibrary { openblas, mkl, onednn };

// The library in use; the first call decides (and throws a UserError naming BERT_CPU_BLAS on a bad
// value, or when it asks for mkl and libmkl_rt.so does not load).
BlasLibrary blas_library();
const char* blas_library_name(BlasLibrary lib);

// Row-major C = alpha·op(A)·op(B) + beta·C on the calling thread (the library single-threaded).
void blas_sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
                float beta, float* c, int ldc);
// Row-major y = alpha·Aᵀ·x + beta·y, A m×n.
void blas_sgemv_t(int m, int n, float alpha, const float* a, int lda, const float* x, float beta, float* y);

}  // namespace bert::cpu
